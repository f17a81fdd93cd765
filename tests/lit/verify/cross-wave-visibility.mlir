// sched-verify{visibility=wave}, the default: each wave runs on its own, so another wave's DMA
// part is in place only after that wave's wait_vm *and a barrier*, and a later DMA by another
// wave is ordered after a read only by a barrier.  Under visibility=group the waves of a wave
// group count as one stream and golden S4 passes; under the default rule it does not.
// On the H100 (docs/crossvendor.md), compute-sanitizer's racecheck reports cross-warp hazards
// in S4 lowered to sm_90a, and S4's result is wrong under the sanitizer's timing.
// RUN: %warpsched-opt --sched-verify=visibility=group %S/../../../examples/four_wave.mlir -o /dev/null
// RUN: not %warpsched-opt --sched-verify %S/../../../examples/four_wave.mlir 2>&1 | FileCheck %s
// RUN: not %warpsched-opt --sched-verify=visibility=wave %S/../../../examples/four_wave.mlir 2>&1 | FileCheck %s
// warpsched-compile takes the rule too, and writes nothing when the schedule breaks it:
// RUN: rm -f %t.cubin
// RUN: not %warpsched-compile %S/../../../examples/four_wave.mlir --target sm_90a --visibility wave -o %t.cubin 2>&1 | FileCheck %s
// RUN: not ls %t.cubin
// RUN: not %warpsched-compile %S/../../../examples/four_wave.mlir --target sm_90a -o %t.cubin 2>&1 | FileCheck %s
// RUN: not ls %t.cubin
// RUN: %warpsched-compile %S/../../../examples/four_wave.mlir --target sm_90a --visibility group -o %t.cubin
// RUN: %warpsched-compile %S/../../../examples/four_wave_strict.mlir --target sm_90a -o %t.cubin
// The schedules fixed for the rule pass it, with the lgkm read ends too:
// RUN: %warpsched-opt "--sched-verify=visibility=wave war=lgkm" %S/../../../examples/four_wave_strict.mlir -o /dev/null
// RUN: %warpsched-opt "--sched-verify=visibility=wave war=lgkm" %S/../../../examples/pingpong_strict.mlir -o /dev/null
// RUN: not %warpsched-opt --sched-verify=visibility=wave %S/../../../examples/pingpong_fixed.mlir 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not %warpsched-opt --sched-verify=visibility=lockstep %S/../../../examples/four_wave.mlir 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: four_wave.mlir:18:7: error: sched-verify: prefetch-overwrite: LOAD overwrites half tile B[stage 0, half 1] while wave group 0 may still read it (epilogue[1] MMA_LOAD_B[st=0,sub=1]): neither is ordered before the other by a wait and a barrier
// CHECK: note: counterexample (prefetch-overwrite, 3 steps)
// CHECK: note: step 1: wave group 0: kernel[23] (iteration 2) LOAD_B[st=0,sub=1,k=K0] (after 8 barriers)
// CHECK: note: step 2: wave group 0: epilogue[1] MMA_LOAD_B[st=0,sub=1] (after 10 barriers)
// FIXED: pingpong_fixed.mlir:{{[0-9]+}}:7: error: sched-verify: prefetch-overwrite: LOAD overwrites half tile A[stage 0, half 0] while wave group 0 may still read it (kernel[19] (iteration 1) MMA_LOAD_A[st=0,sub=1])
// BAD: visibility must be group or wave, got 'lockstep'
