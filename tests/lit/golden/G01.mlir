// Golden case G01: Defaults; only `mma` given
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<set_prio 1>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<mma st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<set_prio 0>
// CHECK-NEXT:   sched.entry kernel 5 #sched.op<barrier>
// CHECK-NEXT: }
