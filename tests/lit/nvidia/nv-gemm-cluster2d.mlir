// sched.nv_gemm with a 2x2 cluster: the CTAs of a cluster column (rank r and r xor 1) compute
// vertically adjacent tiles and share B; those of a row (r and r xor 2) share A.  Its expansion
// multicasts both operands and counts three writers per stage (its own producer, the column
// peer's B part, the row peer's A part: consumer_count 2 x 3); it reads back, verifies and
// compiles like the nv_gemm.  Each release arrives here and in CTAs rank xor 1 and xor 2; A's
// mask is 5 (ranks 0 and 2) shifted by the CTA's row, B's is 3 shifted by twice its column.
// RUN: %warpsched-opt --sched-expand-gemm %s -o %t.expanded.mlir
// RUN: FileCheck %s --check-prefix=IR --input-file %t.expanded.mlir
// RUN: %warpsched-opt %t.expanded.mlir | %warpsched-opt --mlir-print-op-generic | %warpsched-opt | diff - %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %t.expanded.mlir --target sm_90a --emit=ptx -o %t.expanded.ptx
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o %t.ptx
// RUN: diff %t.ptx %t.expanded.ptx
// RUN: FileCheck %s --input-file %t.ptx

// IR: sched.nv_kernel @grid2x2 layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 128 block_k 64 cluster_m 2 cluster_n 2
// IR: sched.nv_input_pipeline @ab num_stages 5 producer_count 1 consumer_count 6 payload ab_tiles
// IR: sched.nv_tma_load @ab operand a multicast cluster
// IR-NEXT: sched.nv_tma_load @ab operand b multicast cluster

// CHECK: .visible .entry grid2x2(
// CHECK: mov.u32 {{%r[0-9]+}}, %cluster_ctarank;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared.b64
// CHECK-COUNT-2: mapa.shared::cluster.u32 r, {{%r[0-9]+}}, {{%r[0-9]+}}; mbarrier.arrive.shared::cluster.b64 _, [r];
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: mov.b16 [[A_GROUP:%rs[0-9]+]], 5;
// CHECK-NEXT: shl.b16 {{%rs[0-9]+}}, [[A_GROUP]], {{%r[0-9]+}};
// CHECK-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK: barrier.cluster.arrive;
// CHECK-NEXT: barrier.cluster.wait;
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @grid2x2 block_m 128 block_n 128 stages 5 cluster_m 2 cluster_n 2
}
