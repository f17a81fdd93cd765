// Golden case G04: Ping-pong last block of a half
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 1 sub 1>, global_load = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 6> flags [!post_barrier_lgkm, global_load_prefetch]
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<load_b st 0 sub 1 k K0> prefetch
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<wait_vm 6>
// CHECK-NEXT:   sched.entry kernel 2 #sched.op<barrier>
// CHECK-NEXT:   sched.entry kernel 3 #sched.op<set_prio 1>
// CHECK-NEXT:   sched.entry kernel 4 #sched.op<mma st 1 sub 1>
// CHECK-NEXT:   sched.entry kernel 5 #sched.op<set_prio 0>
// CHECK-NEXT:   sched.entry kernel 6 #sched.op<barrier>
// CHECK-NEXT: }
