// RUN: not %warpsched-opt %s --sched-expand-blocks --sched-strip-fences=classes=trailing 2>&1 | FileCheck %s
// RUN: not %warpsched-opt %s --sched-strip-fences=classes=bogus 2>&1 | FileCheck %s --check-prefix=CLASS

// CHECK: sched-strip-fences-invalid.mlir:[[@LINE+2]]:1: error: sched-strip-fences: fence class 'trailing' needs unexpanded blocks; run sched-strip-fences before sched-expand-blocks
// CLASS: warpsched-opt: error: sched-strip-fences: unknown fence class 'bogus' (classes: post-barrier, sched-barrier, sched-group, set-prio, trailing, wrap)
sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>
}
