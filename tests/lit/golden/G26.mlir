// Golden case G26: barrier_before_pre_ops + wrap + entry_wait, no pre_sync (DRIFT: returns actual-1)
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<mma_load_a st 0 sub 0>, entry_wait = #sched.op<wait_vm 14> flags [barrier_before_pre_ops, wrap_waits_with_sched_barrier]
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<wait_vm 14>
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 5 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 6 #sched.op<wait_lgkm 0>
// CHECK-NEXT:   sched.entry kernel 7 #sched.op<sched_barrier>
// CHECK-NEXT:   sched.entry kernel 8 #sched.op<mma_load_a st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 9 #sched.op<set_prio 1>
// CHECK-NEXT:   sched.entry kernel 10 #sched.op<mma st 0 sub 0>
// CHECK-NEXT:   sched.entry kernel 11 #sched.op<set_prio 0>
// CHECK-NEXT:   sched.entry kernel 12 #sched.op<barrier>
// CHECK-NEXT: }
