// Golden case G25: minimal-style last block: pre_sync wrapped even though pre_mma_barrier=False
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 1 sub 1>, pre_op_0 = #sched.op<mma_load_b st 1 sub 0>, global_load = #sched.op<load_a st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 6> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm, global_load_prefetch, wrap_waits_with_sched_barrier]
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<mma_load_b st 1 sub 0>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<load_a st 0 sub 1 k K0> prefetch
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<wait_vm 6>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 5 #sched.op<mma st 1 sub 1>
// CHECK-NEXT: }
