// Golden case G03: Ping-pong interior block
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 1>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1>, global_load = #sched.op<load_a st 0 sub 0 k K0> flags [global_load_prefetch]
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<mma_load_b st 0 sub 1>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<load_a st 0 sub 0 k K0> prefetch
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<set_prio 1>
// CHECK-NEXT:   sched.entry kernel 5 #sched.op<mma st 0 sub 1>
// CHECK-NEXT:   sched.entry kernel 6 #sched.op<set_prio 0>
// CHECK-NEXT:   sched.entry kernel 7 #sched.op<barrier>
// CHECK-NEXT: }
