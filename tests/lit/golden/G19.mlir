// Golden case G19: Kitchen sink, default order (DRIFT: returns actual+1)
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0>, global_load = #sched.op<load_a st 0 sub 0 k K0>, global_load_1 = #sched.op<load_b st 0 sub 0 k K0>, entry_wait = #sched.op<wait_vm 12>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_lgkm 4>, fused_mma = #sched.op<mma st 0 sub 1> flags [post_barrier_sched, trailing_sched_barrier, global_load_prefetch, drain_lgkm_before_loads, wrap_waits_with_sched_barrier]
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<wait_vm 12>
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 5 #sched.op<mma_load_b st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 6 #sched.op<mma_load_a st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 7 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 8 #sched.op<load_a st 0 sub 0 k K0> prefetch
// CHECK-NEXT:   sched.entry kernel 9 #sched.op<load_b st 0 sub 0 k K0>
// CHECK-NEXT:   sched.entry kernel 10 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 11 #sched.op<wait_lgkm 4>
// CHECK-NEXT:   sched.entry kernel 12 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 13 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 14 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 15 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 16 #sched.op<set_prio 1>
// CHECK-NEXT:   sched.entry kernel 17 #sched.op<mma st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 18 #sched.op<mma st 0 sub 1>
// CHECK-NEXT:   sched.entry kernel 19 #sched.op<set_prio 0>
// CHECK-NEXT:   sched.entry kernel 20 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 21 #sched.op<sched_barrier>
// CHECK-NEXT: }
