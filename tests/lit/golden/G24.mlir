// Golden case G24: All four sync flags False + fused_mma (post_barrier_sched / trailing suppressed)
// Expected entries transcribed from docs/golden-expansions.md (executed on
// modular/modular @ c7fec4f865c8); the block is the case's spec in pretty syntax.
// RUN: %warpsched-opt %s --sched-expand-blocks | FileCheck %s

sched.program kernel {
  sched.block mma = #sched.op<mma st 1 sub 0>, fused_mma = #sched.op<mma st 1 sub 1> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, post_barrier_sched, trailing_sched_barrier]
}

// CHECK-LABEL: sched.program kernel {
// CHECK-NEXT:   sched.entry kernel 0 #sched.op<mma st 1 sub 0>
// CHECK-NEXT:   sched.entry kernel 1 #sched.op<mma st 1 sub 1>
// CHECK-NEXT: }
