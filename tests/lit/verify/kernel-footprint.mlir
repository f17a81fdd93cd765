// sched-verify checks each schedule as each sched.kernel runs it, on the LDS elements that
// kernel's DMAs write and its fragment loads read (verify/amd_footprint.py, shared with the CPU
// interpreter), with the DMA lanes of the compile's target.  The fixed S1 with bk = 32 and
// 16-byte lanes (gfx950's, and the cp.async of sm_90a): no element that entry 19 reads is
// refilled by another wave, so compiling that kernel for sm_90a passes (the H100's racecheck
// agrees, docs/crossvendor.md).  With gfx942's 4-byte lanes the refill does meet the read, and
// the bk = 64 kernel of the same file races either way.  A compile checks only its --kernel.
// RUN: rm -f %t.cubin
// RUN: %warpsched-compile %S/../../../examples/pingpong_fixed.mlir --target sm_90a --kernel pingpong_gfx942 -o %t.cubin
// RUN: ls %t.cubin
// RUN: not %warpsched-compile %S/../../../examples/pingpong_fixed.mlir --target gfx942 --kernel pingpong_gfx942 -o %t.hsaco 2>&1 | FileCheck %s --check-prefix=GFX942
// RUN: not %warpsched-compile %S/../../../examples/pingpong_fixed.mlir --target sm_90a --kernel pingpong_gfx950 -o %t.cubin 2>&1 | FileCheck %s --check-prefix=BK64
// RUN: not %warpsched-opt --sched-verify %S/../../../examples/pingpong_fixed.mlir 2>&1 | FileCheck %s --check-prefix=BK64
// RUN: not %warpsched-opt --sched-verify=target=gfx942 %S/../../../examples/pingpong_fixed.mlir 2>&1 | FileCheck %s --check-prefix=BK64

// GFX942: pingpong_fixed.mlir:25:7: error: sched-verify: prefetch-overwrite: LOAD overwrites half tile A[stage 0, half 0] while wave group 0 may still read it (kernel[19] (iteration 1) MMA_LOAD_A[st=0,sub=1]): neither is ordered before the other by a wait and a barrier, as @pingpong_gfx942 runs it
// GFX942-NEXT: note: counterexample (prefetch-overwrite, 3 steps)
// GFX942-NEXT: note: step 1: wave group 0: kernel[20] (iteration 1) LOAD_A[st=0,sub=0,k=K0] (after 6 barriers)

// BK64: pingpong_fixed.mlir:25:7: error: sched-verify: prefetch-overwrite: {{.*}} (kernel[19] (iteration 1) MMA_LOAD_A[st=0,sub=1]): {{.*}}, as @pingpong_gfx950 runs it
