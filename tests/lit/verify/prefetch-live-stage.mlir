// S1 under the ping-pong kernel's LDS layout (the default lds-geometry=kernel): the prefetch at
// kernel entry 12 refills the A half tile that wave group 0 still reads at entry 19
// (docs/verify.md, the S1 verdict).  The reference scheduler's own buffer model
// (lds-geometry=schedule) passes it.  The fixed schedule passes under visibility=group; the
// schedule fixed for the default per-wave rule too (pingpong_strict.mlir).
// RUN: not %warpsched-opt --sched-verify %S/../../../examples/pingpong.mlir 2>&1 | FileCheck %s
// RUN: not %warpsched-opt --sched-verify=lds-geometry=kernel %S/../../../examples/pingpong.mlir 2>&1 | FileCheck %s
// RUN: %warpsched-opt --sched-verify=lds-geometry=schedule %S/../../../examples/pingpong.mlir -o /dev/null
// RUN: %warpsched-opt --sched-verify=visibility=group %S/../../../examples/pingpong_fixed.mlir -o /dev/null
// RUN: %warpsched-opt --sched-verify %S/../../../examples/pingpong_strict.mlir -o /dev/null

// CHECK: pingpong.mlir:20:7: error: sched-verify: prefetch-overwrite: LOAD overwrites half tile A[stage 0, half 0] while wave group 0 may still read it (kernel[19] (iteration 1) MMA_LOAD_A[st=0,sub=1])
// CHECK-NEXT: note: counterexample (prefetch-overwrite, 3 steps)
// CHECK-NEXT: note: step 1: wave group 0: kernel[12] (iteration 1) LOAD_A[st=0,sub=0,k=K0] (after 4 barriers)
// CHECK-NEXT: note: step 2: wave group 0: kernel[19] (iteration 1) MMA_LOAD_A[st=0,sub=1] (after 6 barriers)
// CHECK-NEXT: note: step 3: wave group 0: kernel[64] (iteration 1) wait_vm(6) (after 16 barriers)
