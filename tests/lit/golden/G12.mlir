// Golden case G12: minimal_barriers TOP-of-half block (set_prio kept, omit_mma_set_prio=False)
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1>, global_load = #sched.op<load_a st 0 sub 0 k K0>, entry_wait = #sched.op<wait_vm 14>, entry_wait_lgkm = #sched.op<wait_lgkm 0> flags [!pre_mma_barrier, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm, global_load_prefetch]
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<wait_vm 14>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<mma_load_b st 0 sub 1>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<load_a st 0 sub 0 k K0> prefetch
// CHECK-NEXT:   sched.entry kernel 5 #sched.op<set_prio 1>
// CHECK-NEXT:   sched.entry kernel 6 #sched.op<mma st 0 sub 0>
// CHECK-NEXT: }
