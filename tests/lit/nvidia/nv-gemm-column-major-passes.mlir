// c_layout col with a ring too deep for the whole column-major sub-tile beside it: the TMA
// epilogue stages it in passes of 128-byte column lines (docs/hopper-gemm.md). 128x104 with 7
// stages leaves room for 56 of the 104 columns, so two passes: columns 0-55, then 48-103 (the
// last pass ends at the tile's end and stores columns 48-55 again, the same values).
// RUN: %warpsched-opt --sched-expand-gemm %s -o %t.expanded.mlir
// RUN: FileCheck %s --input-file %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o - | FileCheck %s --check-prefix=PTX

// CHECK: sched.nv_kernel @swap_ab_passes layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 104 block_k 64 a_layout col b_layout col out_dtype bf16 c_layout col {
// CHECK:   sched.nv_input_pipeline @ab num_stages 7
// CHECK:   sched.nv_store_tile tma

// Each pass: wait until the previous pass's store has read the buffer, stage the pass's 56
// columns (7 groups of 8: three four-matrix transposing stores and a two-matrix one), hand them
// to the async proxy, store one box.
// PTX: .visible .entry swap_ab_passes(
// PTX: wgmma.mma_async.sync.aligned.m64n104k16.f32.bf16.bf16
// PTX: cp.async.bulk.wait_group.read 0
// PTX-COUNT-3: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// PTX-NOT: stmatrix
// PTX: fence.proxy.async.shared::cta
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-NEXT: cp.async.bulk.commit_group
// PTX: cp.async.bulk.wait_group.read 0
// PTX-COUNT-3: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// PTX-NOT: stmatrix
// PTX: fence.proxy.async.shared::cta
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-NOT: cp.async.bulk.tensor.2d.global.shared::cta

module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @swap_ab_passes block_n 104 stages 7 a_layout col b_layout col c_layout col
}
