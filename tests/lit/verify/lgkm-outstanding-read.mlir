// S1 under war=lgkm (with lds-geometry=schedule, so that the kernel layout's entry-19 race does
// not come first): a fragment load is over only when lgkmcnt retires its ds_reads.  Wave group
// 1 reads A[stage 0, half 0] at kernel entry 1, passes barrier 4 with the read still outstanding
// (wait_lgkm(8) at entry 3 leaves it in flight) and retires it only at entry 5; wave group 0
// refills that half tile at entry 12 right after the same barrier.  The default war=issue takes
// the read as over once issued (the LDS unit serves it before the DMA's data returns); the fixed
// S1 and the 4-wave schedule pass either way under visibility=group (docs/verify.md, "lgkmcnt").
// RUN: not %warpsched-opt "--sched-verify=lds-geometry=schedule war=lgkm" %S/../../../examples/pingpong.mlir 2>&1 | FileCheck %s
// RUN: %warpsched-opt --sched-verify=lds-geometry=schedule %S/../../../examples/pingpong.mlir -o /dev/null
// RUN: %warpsched-opt "--sched-verify=war=lgkm visibility=group" %S/../../../examples/pingpong_fixed.mlir -o /dev/null
// RUN: %warpsched-opt "--sched-verify=war=lgkm visibility=group" %S/../../../examples/four_wave.mlir -o /dev/null
// RUN: not %warpsched-opt --sched-verify=war=ds %S/../../../examples/four_wave.mlir 2>&1 | FileCheck %s --check-prefix=OPTION

// CHECK: pingpong.mlir:20:7: error: sched-verify: prefetch-overwrite: LOAD overwrites half tile A[stage 0, half 0] while wave group 1 may still read it (kernel[1] (iteration 1) MMA_LOAD_A[st=0,sub=0], and its ds_reads are outstanding until kernel[5] (iteration 1) wait_lgkm(0))
// CHECK-NEXT: note: counterexample (prefetch-overwrite, 4 steps)
// CHECK-NEXT: note: step 1: wave group 0: kernel[12] (iteration 1) LOAD_A[st=0,sub=0,k=K0] (after 4 barriers)
// CHECK-NEXT: note: step 2: wave group 1: kernel[1] (iteration 1) MMA_LOAD_A[st=0,sub=0] (after 3 barriers)
// CHECK-NEXT: note: step 3: wave group 1: kernel[5] (iteration 1) wait_lgkm(0) (after 4 barriers)
// CHECK-NEXT: note: step 4: wave group 0: kernel[64] (iteration 1) wait_vm(6) (after 16 barriers)
// OPTION: error: sched-verify: war must be issue or lgkm, got 'ds'
