// sched.nv_gemm with a 4x1 cluster: four CTAs on vertically adjacent tiles share B.  Its
// expansion is a sched.nv_kernel with cluster_m 4 and a multicast B that reads back, verifies
// and compiles like the nv_gemm; each release arrives here and in the three other CTAs (rank
// xor 1, 2, 3); B's 64-wide chunk is rank 0's, multicast with mask 15.
// RUN: %warpsched-opt --sched-expand-gemm %s -o %t.expanded.mlir
// RUN: FileCheck %s --check-prefix=IR --input-file %t.expanded.mlir
// RUN: %warpsched-opt %t.expanded.mlir | %warpsched-opt --mlir-print-op-generic | %warpsched-opt | diff - %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %t.expanded.mlir --target sm_90a --emit=ptx -o %t.expanded.ptx
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o %t.ptx
// RUN: diff %t.ptx %t.expanded.ptx
// RUN: FileCheck %s --input-file %t.ptx

// IR: sched.nv_kernel @quad layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 64 block_k 64 cluster_m 4
// IR: sched.nv_input_pipeline @ab num_stages 8 producer_count 1 consumer_count 8 payload ab_tiles
// IR: sched.nv_tma_load @ab operand b multicast cluster

// CHECK: .visible .entry quad(
// CHECK: barrier.cluster.arrive.aligned;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared.b64
// CHECK-COUNT-3: mapa.shared::cluster.u32 r, {{%r[0-9]+}}, {{%r[0-9]+}}; mbarrier.arrive.shared::cluster.b64 _, [r];
// CHECK: mov.b16 [[MASK:%rs[0-9]+]], 15;
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster {{.+}}, [[MASK]];
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @quad block_n 64 stages 8 cluster_m 4
}
