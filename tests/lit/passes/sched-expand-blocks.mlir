// RUN: %warpsched-opt %s --split-input-file --sched-expand-blocks | FileCheck %s
// RUN: %warpsched-opt %s --split-input-file --pass-pipeline='builtin.module(sched-expand-blocks)' | FileCheck %s
// RUN: %warpsched-opt %s --split-input-file --sched-expand-blocks --mlir-print-op-generic --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// Golden G30: a two-block program with a trailing barrier.
// CHECK-LABEL: sched.program kernel trailing_barrier {
// CHECK-NEXT:    sched.entry kernel 0 #sched.op<mma_load_b st 0 sub 1>
// CHECK-NEXT:    sched.entry kernel 1 #sched.op<load_a st 0 sub 0 k K0> prefetch
// CHECK-NEXT:    sched.entry kernel 2 #sched.op<barrier>
// CHECK-NEXT:    sched.entry kernel 3 #sched.op<wait_lgkm 0>
// CHECK-NEXT:    sched.entry kernel 4 #sched.op<set_prio 1>
// CHECK-NEXT:    sched.entry kernel 5 #sched.op<mma st 0 sub 1>
// CHECK-NEXT:    sched.entry kernel 6 #sched.op<set_prio 0>
// CHECK-NEXT:    sched.entry kernel 7 #sched.op<barrier>
// CHECK-NEXT:    sched.entry kernel 8 #sched.op<load_b st 0 sub 1 k K0> prefetch
// CHECK-NEXT:    sched.entry kernel 9 #sched.op<wait_vm 6>
// CHECK-NEXT:    sched.entry kernel 10 #sched.op<barrier>
// CHECK-NEXT:    sched.entry kernel 11 #sched.op<set_prio 1>
// CHECK-NEXT:    sched.entry kernel 12 #sched.op<mma st 1 sub 1>
// CHECK-NEXT:    sched.entry kernel 13 #sched.op<set_prio 0>
// CHECK-NEXT:    sched.entry kernel 14 #sched.op<barrier>
// CHECK-NEXT:    sched.entry kernel 15 #sched.op<barrier>
// CHECK-NEXT:  }

// Each entry keeps the location of its block; the trailing barrier takes the program's.
// LOC: time_slot = 0 : i64} : () -> () loc([[B0:#loc[0-9]*]])
// LOC: time_slot = 8 : i64} : () -> () loc([[B1:#loc[0-9]*]])
// LOC: time_slot = 15 : i64} : () -> () loc([[P:#loc[0-9]*]])
// LOC-DAG: [[P]] = loc("{{.*}}sched-expand-blocks.mlir":[[@LINE+3]]:1)
// LOC-DAG: [[B0]] = loc("{{.*}}sched-expand-blocks.mlir":[[@LINE+3]]:3)
// LOC-DAG: [[B1]] = loc("{{.*}}sched-expand-blocks.mlir":[[@LINE+3]]:3)
sched.program kernel trailing_barrier {
  sched.block mma = #sched.op<mma st 0 sub 1>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1>, global_load = #sched.op<load_a st 0 sub 0 k K0> flags [global_load_prefetch]
  sched.block mma = #sched.op<mma st 1 sub 1>, global_load = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 6> flags [!post_barrier_lgkm, global_load_prefetch]
}

// -----
// Explicit blocks are emitted verbatim and never as prefetches (golden G29); a
// default program block (mma = none) still emits its template.
// CHECK-LABEL: sched.schedule @mixed stagger 15 {
// CHECK-NEXT:    sched.program prologue {
// CHECK-NEXT:      sched.entry prologue 0 #sched.op<barrier>
// CHECK-NEXT:      sched.entry prologue 1 #sched.op<wait_lgkm 0>
// CHECK-NEXT:      sched.entry prologue 2 #sched.op<set_prio 1>
// CHECK-NEXT:      sched.entry prologue 3 #sched.op<none>
// CHECK-NEXT:      sched.entry prologue 4 #sched.op<set_prio 0>
// CHECK-NEXT:      sched.entry prologue 5 #sched.op<barrier>
// CHECK-NEXT:    }
// CHECK-NEXT:    sched.program kernel {
// CHECK-NEXT:      sched.entry kernel 0 #sched.op<load_a st 0 sub 0 k K0>
// CHECK-NEXT:      sched.entry kernel 1 #sched.op<sched_barrier>
// CHECK-NEXT:      sched.entry kernel 2 #sched.op<mma_load_b st 0 sub 1>
// CHECK-NEXT:      sched.entry kernel 3 #sched.op<mma st 0 sub 1>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
sched.schedule @mixed stagger 15 {
  sched.program prologue {
    sched.block mma = #sched.op<none>
  }
  sched.program kernel {
    sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0>, #sched.op<sched_barrier>, #sched.op<mma_load_b st 0 sub 1>, #sched.op<mma st 0 sub 1>]
  }
}

// -----
// Already-expanded programs are left as they are.
// CHECK-LABEL: sched.program epilogue {
// CHECK-NEXT:    sched.entry epilogue 0 #sched.op<barrier>
// CHECK-NEXT:  }
sched.program epilogue {
  sched.entry epilogue 0 #sched.op<barrier>
}
