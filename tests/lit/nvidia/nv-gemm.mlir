// sched.nv_gemm: the Hopper GEMM declared by its tuning attributes.  It round-trips in the
// pretty and generic forms, sched-to-nvvm lowers it to the warp-specialized TMA + wgmma kernel,
// and warpsched-compile's PTX holds the instructions it is built from.
// RUN: %warpsched-opt %examples/hopper_gemm.mlir | %warpsched-opt --mlir-print-op-generic | %warpsched-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: %warpsched-opt %examples/hopper_gemm.mlir --sched-expand-gemm --sched-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: not %warpsched-opt %examples/hopper_gemm.mlir --sched-to-nvvm 2>&1 | FileCheck %s --check-prefix=SUGAR
// RUN: %warpsched-compile %examples/hopper_gemm.mlir --target sm_90a --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o - | FileCheck %s --check-prefix=PINGPONG

// ROUNDTRIP: sched.nv_gemm @hopper_gemm block_m 128 block_n 256 block_k 64 stages 3 consumers cooperative epilogue tma cluster_m 1 cluster_n 1 raster along_m group 8 a_layout row b_layout row out_dtype bf16

// SUGAR: hopper_gemm.mlir:9:3: error: sched-to-nvvm: sched.nv_gemm is the short form of a sched.nv_kernel: run sched-expand-gemm first (warpsched-compile does)

// NVVM-LABEL: module attributes {sched.target = "sm_90a"} {
// NVVM: llvm.mlir.global external @warpsched_gemm_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// NVVM: llvm.func @hopper_gemm(%{{.+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.+}}: !llvm.ptr {{.+}}, %{{.+}}: !llvm.ptr {{.+}}, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: !llvm.ptr<1>)
// NVVM-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32
// NVVM: nvvm.setmaxregister decrease 40
// NVVM: nvvm.mbarrier.arrive.expect_tx
// NVVM: nvvm.cp.async.bulk.tensor.shared.cluster.global
// NVVM: nvvm.setmaxregister increase 232
// NVVM: nvvm.wgmma.fence.aligned
// NVVM: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <zero>, <wrapped>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// NVVM: nvvm.wgmma.commit.group.sync.aligned
// NVVM: nvvm.wgmma.wait.group.sync.aligned 1
// NVVM: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// NVVM: nvvm.cp.async.bulk.tensor.global.shared.cta

// PTX: .visible .entry hopper_gemm(
// PTX-NEXT: .param .align 64 .b8 hopper_gemm_param_0[128],
// PTX-NEXT: .param .align 64 .b8 hopper_gemm_param_1[128],
// PTX-NEXT: .param .align 64 .b8 hopper_gemm_param_2[128],
// PTX: .maxntid 384, 1, 1
// PTX-NEXT: .minnctapersm 1
// The consumer's mainloop, in order: wait for the stage, fence, four k16 steps, commit,
// keep one group in flight, release the previous stage.
// PTX: setmaxnreg.inc.sync.aligned.u32 232;
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: wgmma.fence.sync.aligned;
// PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.wait_group.sync.aligned 1;
// PTX: mbarrier.arrive.shared.b64
// The TMA epilogue: staging buffer free, fragments written, async-proxy fence, four TMA stores.
// PTX: cp.async.bulk.wait_group.read 0;
// PTX: fence.proxy.async.shared::cta;
// PTX-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.commit_group;
// PTX: cp.async.bulk.wait_group 0;
// The producer: one thread arms the stage's full barrier and issues A's box and B's four.
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: mbarrier.try_wait.parity.shared.b64
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX-COUNT-5: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes

// Ping-pong consumers with column-major A: the mainloops take turns on named barriers 1 and 2,
// A is M-major (wgmma's transposed A) and 64-wide M chunks are loaded one box at a time.
// PINGPONG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PINGPONG-SAME: p, 1, 1, 1, 1;
// PINGPONG: bar.arrive 1, 256;
// PINGPONG: bar.arrive 2, 256;
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @pingpong block_m 128 block_n 128 stages 4 consumers pingpong a_layout col
}
