// Level 1: sched-to-rocdl emits the schedule's ops in declared order (the built S1 schedule).
// Golden S1 races on the kernel it drives (docs/verify.md, the S1 verdict), so these compiles of
// its code pass --no-verify; examples/pingpong_fixed.mlir is the schedule to run.
// RUN: %warpsched-opt --sched-build-program --sched-expand-blocks "--sched-to-rocdl=kernel=pingpong_gfx950 target=gfx950" %examples/pingpong_body.mlir | FileCheck %s
// RUN: %warpsched-compile %examples/pingpong_body.mlir --target gfx950 --kernel pingpong_gfx950 --emit=mlir --no-verify | FileCheck %s

// The sched ops and attributes are gone; one kernel with 8 waves and 128 KiB of LDS remains.
// CHECK-NOT: sched.
// CHECK: llvm.mlir.global internal @__warpsched_lds() {{.*}} : !llvm.array<131072 x i8>
// CHECK-LABEL: llvm.func @pingpong_gfx950(
// CHECK-SAME: rocdl.flat_work_group_size = "512,512"

// Prologue entries 0-3 (stagger 4): four LOADs of stage 0, two DMA copies each.
// CHECK-COUNT-8: rocdl.raw.ptr.buffer.load.lds
// Wave group 1's extra barrier, then the rest of the prologue (wait_vm 0 = 0x0F70, barrier).
// Every s_barrier and MMA group is pinned by sched.barrier 0 on both sides (pin_order).
// CHECK: llvm.cond_br %{{.*}}, ^[[STAGGER:bb[0-9]+]], ^[[DONE:bb[0-9]+]]
// CHECK: ^[[STAGGER]]:
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK: ^[[DONE]]:
// CHECK-NEXT: rocdl.s.waitcnt 3952
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-COUNT-6: rocdl.raw.ptr.buffer.load.lds
// CHECK-NEXT: rocdl.s.waitcnt 3952
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: rocdl.sched.barrier 0
// The K loop; kernel block 0: fragment reads, the prefetch, wait_lgkm 8 (0xC87F), barrier,
// wait_lgkm 0 (0xC07F), set_prio 1, sixteen MFMAs, set_prio 0, barrier, sched_barrier 0.
// CHECK: llvm.cond_br %{{.*}}, ^[[BODY:bb[0-9]+]], ^[[EPILOGUE:bb[0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK-COUNT-12: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-COUNT-2: rocdl.raw.ptr.buffer.load.lds
// CHECK-NEXT: rocdl.s.waitcnt 51327
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.waitcnt 49279
// CHECK-NEXT: rocdl.s.setprio 1
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-COUNT-16: rocdl.mfma.f32.16x16x32.bf16
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.setprio 0
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.sched.barrier 0
// The epilogue ends with wave group 0's balancing barrier before the C store.
// CHECK: ^[[EPILOGUE]]:
// CHECK: llvm.cond_br %{{.*}}, ^[[BALANCE:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK: ^[[BALANCE]]:
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.barrier
// CHECK: rocdl.raw.ptr.buffer.store {{.*}} : f32
// CHECK: llvm.return
