// sched.nv_gemm with split-K in a 2x2 cluster: every run of a unit has its own cluster, the
// four CTAs of which multicast A along their row and B along their column as a data-parallel
// 2x2 kernel does, and keep their partial sums in their own workspace slots (run x 4 + rank).
// The tile's last run waits for the flags of the earlier runs' same-rank slots.  It expands,
// reads back, verifies and compiles like the nv_gemm.
// RUN: %warpsched-opt --sched-expand-gemm %s -o %t.expanded.mlir
// RUN: FileCheck %s --check-prefix=IR --input-file %t.expanded.mlir
// RUN: %warpsched-opt %t.expanded.mlir | %warpsched-opt --mlir-print-op-generic | %warpsched-opt | diff - %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %t.expanded.mlir --target sm_90a --emit=ptx -o %t.expanded.ptx
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o %t.ptx
// RUN: diff %t.ptx %t.expanded.ptx
// RUN: FileCheck %s --input-file %t.ptx

// IR: sched.nv_kernel @split2x2 layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 64 block_k 64 cluster_m 2 cluster_n 2
// IR: sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition split_k
// IR: sched.nv_tma_load @ab operand a multicast cluster
// IR-NEXT: sched.nv_tma_load @ab operand b multicast cluster
// IR: sched.nv_stream_k_fixup

// The consumers come first: the last run's waits on the earlier runs' flags, the partial and
// flag of a run that does not end the tile, then the producer's three multicast loads (A's
// part, B's two).  Which slot each CTA uses is checked by running the kernel on the ISA model
// (tests/test_isa_model_split_k.py, with a mutant that leaves the rank out).
// CHECK: .visible .entry split2x2(
// CHECK: mov.u32 {{%r[0-9]+}}, %cluster_ctarank;
// CHECK: ld.acquire.gpu.global.u32
// CHECK: fence.acq_rel.gpu; st.relaxed.gpu.global.u32 [{{%rd[0-9]+}}], 1;
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @split2x2 block_n 64 stages 8 cluster_m 2 cluster_n 2 decomposition split_k
}
