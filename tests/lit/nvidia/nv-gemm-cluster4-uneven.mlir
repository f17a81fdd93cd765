// sched.nv_gemm with a 4x1 cluster whose K-major B (80 rows, ten 8-row swizzle atoms) does not
// cut into four equal parts of whole atoms: B arrives in one box of three atoms per rank, at
// atoms 0, 3, 6 and 7, so atoms 7 and 8 arrive twice (ptx/tma_boxes.py), and each full
// barrier expects A's 8 KiB and four boxes of 3 KiB.  The expansion reads back, verifies and
// compiles like the nv_gemm; each rank multicasts its one box under its own branch.
// RUN: %warpsched-opt --sched-expand-gemm %s -o %t.expanded.mlir
// RUN: FileCheck %s --check-prefix=IR --input-file %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %t.expanded.mlir --target sm_90a --emit=ptx -o %t.expanded.ptx
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o %t.ptx
// RUN: diff %t.ptx %t.expanded.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: FileCheck %s --check-prefix=TX --input-file %t.ptx

// IR: sched.nv_kernel @uneven layout warpgroups<consumers = 2> threads 384 block_m 64 block_n 80 block_k 64 cluster_m 4
// IR: sched.nv_input_produce @ab expect_tx 20480 {
// IR: sched.nv_tma_load @ab operand b multicast cluster

// CHECK: .visible .entry uneven(
// CHECK-COUNT-4: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK-NOT: .multicast::cluster
// CHECK: ret;

// TX: mov.b32 [[TX:%r[0-9]+]], 20480;
// TX-NEXT: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{.*}}], [[TX]];
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @uneven block_m 64 block_n 80 stages 8 consumers pingpong epilogue registers cluster_m 4 b_layout col
}
