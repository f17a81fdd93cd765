// Golden case G06: Epilogue-style fused block
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 1 sub 0>, pre_op_0 = #sched.op<mma_load_a st 0 sub 1>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0>, fused_mma = #sched.op<mma st 1 sub 1>
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<mma_load_a st 0 sub 1>
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<wait_vm 0>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 5 #sched.op<set_prio 1>
// CHECK-NEXT:   sched.entry kernel 6 #sched.op<mma st 1 sub 0>
// CHECK-NEXT:   sched.entry kernel 7 #sched.op<mma st 1 sub 1>
// CHECK-NEXT:   sched.entry kernel 8 #sched.op<set_prio 0>
// CHECK-NEXT:   sched.entry kernel 9 #sched.op<barrier>
// CHECK-NEXT: }
