// Level 2: the schedule's sync entries and data ops survive translation as intrinsic calls, in order.
// Golden S1 races on the kernel it drives (docs/verify.md, the S1 verdict), so these compiles of
// its code pass --no-verify; examples/pingpong_fixed.mlir is the schedule to run.
// RUN: %warpsched-opt --sched-build-program --sched-expand-blocks "--sched-to-rocdl=kernel=pingpong_gfx942 target=gfx942" %examples/pingpong.mlir | %warpsched-translate --mlir-to-llvmir | FileCheck %s --check-prefixes=CHECK,GFX942
// RUN: %warpsched-compile %examples/pingpong.mlir --target gfx950 --kernel pingpong_gfx950 --emit=llvm --no-verify | FileCheck %s --check-prefixes=CHECK,GFX950

// CHECK-LABEL: define amdgpu_kernel void @pingpong_gfx9{{42|50}}(
// CHECK-COUNT-8: call void @llvm.amdgcn.raw.ptr.buffer.load.lds(
// CHECK: call void @llvm.amdgcn.s.barrier()
// CHECK: call void @llvm.amdgcn.s.waitcnt(i32 3952)
// CHECK-NEXT: call void @llvm.amdgcn.sched.barrier(i32 0)
// CHECK-NEXT: call void @llvm.amdgcn.s.barrier()
// Kernel block 0: wait_lgkm 8, barrier, wait_lgkm 0, set_prio 1, the MFMAs, set_prio 0,
// barrier, sched_barrier(0); barriers and the MFMA group are pinned by sched.barrier(0).
// CHECK: call void @llvm.amdgcn.s.waitcnt(i32 51327)
// CHECK-NEXT: call void @llvm.amdgcn.sched.barrier(i32 0)
// CHECK-NEXT: call void @llvm.amdgcn.s.barrier()
// CHECK-NEXT: call void @llvm.amdgcn.sched.barrier(i32 0)
// CHECK-NEXT: call void @llvm.amdgcn.s.waitcnt(i32 49279)
// CHECK-NEXT: call void @llvm.amdgcn.s.setprio(i16 1)
// CHECK-NEXT: call void @llvm.amdgcn.sched.barrier(i32 0)
// GFX942-COUNT-16: call <4 x float> @llvm.amdgcn.mfma.f32.16x16x16bf16.1k(
// GFX950-COUNT-16: call <4 x float> @llvm.amdgcn.mfma.f32.16x16x32.bf16(
// CHECK-NEXT: call void @llvm.amdgcn.sched.barrier(i32 0)
// CHECK-NEXT: call void @llvm.amdgcn.s.setprio(i16 0)
// CHECK-NEXT: call void @llvm.amdgcn.sched.barrier(i32 0)
// CHECK-NEXT: call void @llvm.amdgcn.s.barrier()
// CHECK-NEXT: call void @llvm.amdgcn.sched.barrier(i32 0)
// CHECK-NEXT: call void @llvm.amdgcn.sched.barrier(i32 0)
// CHECK: call void @llvm.amdgcn.raw.ptr.buffer.store.f32(
