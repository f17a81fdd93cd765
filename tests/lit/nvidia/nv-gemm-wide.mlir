// sched.nv_gemm with a tile wider than one wgmma: 272 columns (cuBLAS's 128x272 tile for
// 2992x1496x3000, swap-AB here).  Each consumer issues two m64n136k16 wgmmas per k16 step, the
// second on B's half 136 rows down (17 whole swizzle atoms: 17408 bytes, descriptor + 1088),
// 8 per k-block, and the k-block that starts from zero is emitted apart: 16 in all.  The
// expansion reads back, verifies and compiles like the nv_gemm.
// RUN: %warpsched-opt --sched-expand-gemm %s -o %t.expanded.mlir
// RUN: FileCheck %s --check-prefix=IR --input-file %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %t.expanded.mlir --target sm_90a --emit=ptx -o %t.expanded.ptx
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o %t.ptx
// RUN: diff %t.ptx %t.expanded.ptx
// RUN: FileCheck %s --input-file %t.ptx

// IR: sched.nv_kernel @wide layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 272 block_k 64 a_layout col b_layout col out_dtype bf16 c_layout col
// IR: sched.nv_input_produce @ab expect_tx 51200

// CHECK: .visible .entry wide(
// CHECK: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 1088;
// CHECK-COUNT-16: wgmma.mma_async.sync.aligned.m64n136k16.f32.bf16.bf16
// CHECK-NOT: wgmma.mma_async
// CHECK: ret;
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @wide block_n 272 stages 4 a_layout col b_layout col c_layout col
}
