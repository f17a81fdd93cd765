// cta_group 2 on sm_100a: a 2-CTA cluster kernel. The lowered function carries the cluster shape,
// the PTX requires it (.reqnctapercluster) and uses the cta_group::2 forms; the SASS has the
// 2-CTA MMA (UTCHMMA.2CTA), TMEM loads (LDTM), the TMA loads and stores, and no spills.
// RUN: %warpsched-opt %examples/ws_gemm_sm100a_2cta.mlir --sched-to-nvvm | FileCheck %s --check-prefix=MLIR
// RUN: %warpsched-compile %examples/ws_gemm_sm100a_2cta.mlir --target sm_100a --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: %warpsched-compile %examples/ws_gemm_sm100a_2cta.mlir --target sm_100a -o %t.cubin --report | FileCheck %s --check-prefix=REPORT

// MLIR: llvm.func @ws_gemm_sm_100a_per_tile_s2_cg2(%arg0: !llvm.ptr {{{.*}}nvvm.grid_constant}, %arg1: !llvm.ptr {{{.*}}nvvm.grid_constant}, %arg2: !llvm.ptr {{{.*}}nvvm.grid_constant}, %arg3: i32, %arg4: i32, %arg5: i32)
// MLIR-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// MLIR: nvvm.cluster.arrive {aligned}
// MLIR-NEXT: nvvm.cluster.wait {aligned}

// PTX: .explicitcluster
// PTX-NEXT: .reqnctapercluster 2, 1, 1
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX: mov.u32 {{.*}}, %clusterid.x;
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2
// PTX: tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32
// PTX: tcgen05.dealloc.cta_group::2.sync.aligned.b32
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32
// PTX: tcgen05.wait::ld.sync.aligned;
// PTX: fence.proxy.async.shared::cta;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.commit_group;
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX: tcgen05.mma.cta_group::2.kind::f16
// PTX: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64

// REPORT: data path: tcgen05.mma.cta_group::2.kind::f16 (M = 256) from the leader CTA of a 2-CTA cluster
// REPORT-NEXT: SASS: 4 UTC*MMA (4 .2CTA), 4 LDTM, 2 UTMALDG, 4 UTMASTG, 0 LDL/STL, {{[0-9]+}} registers
