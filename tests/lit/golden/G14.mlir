// Golden case G14: pre_mma_barrier=False suppresses post_barrier_sched and post_barrier_lgkm
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<mma_load_a st 0 sub 0> flags [!pre_mma_barrier, post_barrier_sched]
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<mma_load_a st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<set_prio 1>
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<mma st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<set_prio 0>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<barrier>
// CHECK-NEXT: }
