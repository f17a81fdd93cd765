// Golden case G23: set_prio pair suppressed, barriers kept
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<mma_load_a st 0 sub 0> flags [!pre_mma_set_prio, !post_mma_set_prio]
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<mma_load_a st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<mma st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<barrier>
// CHECK-NEXT: }
