// sched.nv_gemm with a 4x1 cluster whose K-major B (80 rows, ten 8-row swizzle atoms) does not
// cut into four equal parts of whole atoms: B arrives in ten 8-row boxes dealt round-robin,
// three to ranks 0 and 1, two to ranks 2 and 3 (operands.k_major_box_rows).  The expansion
// reads back, verifies and compiles like the nv_gemm; each producer multicasts its boxes in a
// loop from its rank's box, stepping by 4 below 10 (unrolled, the boxes' coordinates would
// spill the producer's registers).
// RUN: %warpsched-opt --sched-expand-gemm %s -o %t.expanded.mlir
// RUN: FileCheck %s --check-prefix=IR --input-file %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %t.expanded.mlir --target sm_90a --emit=ptx -o %t.expanded.ptx
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o %t.ptx
// RUN: diff %t.ptx %t.expanded.ptx
// RUN: FileCheck %s --input-file %t.ptx

// IR: sched.nv_kernel @uneven layout warpgroups<consumers = 2> threads 384 block_m 64 block_n 80 block_k 64 cluster_m 4
// IR: sched.nv_tma_load @ab operand b multicast cluster

// CHECK: .visible .entry uneven(
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK-NEXT: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 4;
// CHECK: @{{%p[0-9]+}} bra {{\$L__BB[0-9_]+}};
// CHECK-NOT: .multicast::cluster
// CHECK: ret;
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @uneven block_m 64 block_n 80 stages 8 consumers pingpong epilogue registers cluster_m 4 b_layout col
}
