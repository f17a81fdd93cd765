// Every way to give a pass its options (docs/cli.md, "Pass options"): mlir-opt's
// --pass-pipeline='builtin.module(pass{a=1 b=2})', the same with commas, and a pass flag with
// its options after '=', separated by commas or (quoted) spaces. Each form gives the same module.
// RUN: %warpsched-opt %examples/pingpong_strict.mlir --sched-expand-blocks --sched-to-rocdl=target=gfx950,kernel=pingpong_gfx950 | FileCheck %s --check-prefix=GFX950
// RUN: %warpsched-opt %examples/pingpong_strict.mlir --sched-expand-blocks "--sched-to-rocdl=target=gfx950 kernel=pingpong_gfx950" | FileCheck %s --check-prefix=GFX950
// RUN: %warpsched-opt %examples/pingpong_strict.mlir --sched-expand-blocks --sched-to-rocdl="kernel=pingpong_gfx950, target=gfx950" | FileCheck %s --check-prefix=GFX950
// RUN: %warpsched-opt %examples/pingpong_strict.mlir --pass-pipeline='builtin.module(sched-expand-blocks,sched-to-rocdl{target=gfx950 kernel=pingpong_gfx950})' | FileCheck %s --check-prefix=GFX950
// RUN: %warpsched-opt %examples/pingpong_strict.mlir --pass-pipeline='builtin.module(sched-expand-blocks,sched-to-rocdl{target=gfx950,kernel=pingpong_gfx950})' | FileCheck %s --check-prefix=GFX950
// RUN: %warpsched-opt %examples/pingpong_strict.mlir --pass-pipeline='sched-expand-blocks,sched-to-rocdl{kernel=pingpong_gfx950 target=gfx950}' | FileCheck %s --check-prefix=GFX950
// The other kernel and target: the option values are not mixed up.
// RUN: %warpsched-opt %examples/pingpong_strict.mlir --sched-expand-blocks --sched-to-rocdl=target=gfx942,kernel=pingpong_gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: %warpsched-opt %examples/pingpong_strict.mlir --pass-pipeline='builtin.module(sched-expand-blocks,sched-to-rocdl{kernel=pingpong_gfx942,target=gfx942})' | FileCheck %s --check-prefix=GFX942
// A list value keeps its commas: classes=trailing,set-prio is one option, in every form.
// RUN: %warpsched-opt %s --sched-strip-fences=classes=trailing,set-prio --sched-expand-blocks | FileCheck %s --check-prefix=STRIP
// RUN: %warpsched-opt %s "--sched-strip-fences=classes=trailing,set-prio" --sched-expand-blocks | FileCheck %s --check-prefix=STRIP
// RUN: %warpsched-opt %s --pass-pipeline='builtin.module(sched-strip-fences{classes=trailing,set-prio},sched-expand-blocks)' | FileCheck %s --check-prefix=STRIP
// A comma before a name that is no option of the pass is that option's error; two kernels need kernel=.
// RUN: not %warpsched-opt %s --sched-to-rocdl=target=gfx950,bogus=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %warpsched-opt %examples/pingpong_strict.mlir --sched-expand-blocks --sched-to-rocdl=target=gfx950 2>&1 | FileCheck %s --check-prefix=PICK

// GFX950:      llvm.mlir.global internal @__warpsched_lds() {{.*}} : !llvm.array<131072 x i8>
// GFX950:      llvm.func @pingpong_gfx950(
// GFX950-NOT:  @pingpong_gfx942
// GFX942:      llvm.mlir.global internal @__warpsched_lds() {{.*}} : !llvm.array<65536 x i8>
// GFX942:      llvm.func @pingpong_gfx942(
// GFX942-NOT:  @pingpong_gfx950
// STRIP:       sched.program kernel {
// STRIP-NEXT:    sched.entry kernel 0 #sched.op<mma_load_b st 0 sub 0>
// STRIP-NOT:     set_prio
// STRIP-NOT:     sched_barrier
// STRIP:       }
// UNKNOWN:     warpsched-opt: error: sched-to-rocdl: unknown option 'bogus' (options: target, kernel)
// PICK:        error: sched-to-rocdl: 2 kernels (@pingpong_gfx950, @pingpong_gfx942); pick one with kernel=NAME (warpsched-opt --sched-to-rocdl=kernel=pingpong_gfx950, warpsched-compile --kernel pingpong_gfx950)
sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier]
}
