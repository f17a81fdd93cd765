// An AMD schedule (S4 fixed for the per-wave rule, the 4-wave kernel) compiled for sm_90a
// (docs/crossvendor.md): each
// LOAD entry is two 16-byte cp.async runs a thread and one commit group, its first wait_vm(14)
// after eight loads keeps the 7 youngest groups pending, fragments come from ldmatrix.x4 and
// the MMAs are mma.sync m16n8k16; barriers are the non-aligned barrier.sync.
// RUN: %warpsched-compile %S/../../../examples/four_wave_strict.mlir --target sm_90a --emit=ptx -o - | FileCheck %s
// RUN: %warpsched-opt --sched-build-program --sched-expand-blocks "--sched-to-nvvm=target=sm_90a kernel=four_wave" %S/../../../examples/four_wave_strict.mlir | FileCheck %s --check-prefix=NVVM
// RUN: not %warpsched-compile %S/../../../examples/four_wave_strict.mlir --target sm_100a -o %t.cubin 2>&1 | FileCheck %s --check-prefix=SM100
// RUN: not ls %t.cubin

// CHECK: .visible .entry four_wave(
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.cg.shared.global [%rd{{[0-9]+}}+4096], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-NEXT: cp.async.commit_group;
// CHECK: cp.async.wait_group 7;
// CHECK: barrier.sync 0;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: st.global.b32

// NVVM: module attributes {sched.target = "sm_90a"} {
// NVVM: llvm.func @four_wave(%arg0: !llvm.ptr<1>, %arg1: !llvm.ptr<1>, %arg2: !llvm.ptr<1>, %arg3: i32, %arg4: i32, %arg5: i32)
// NVVM: nvvm.cp.async.shared.global
// NVVM: nvvm.ldmatrix
// NVVM: nvvm.mma.sync

// SM100: four_wave_strict.mlir:45:3: error: sched-to-nvvm: AMD schedules lower to cp.async, ldmatrix and mma.sync for sm_90a; sm_100a has no such lowering
