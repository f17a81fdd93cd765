// c_layout col: C stored column-major by the TMA epilogue (boxes of 128 bytes of a column x the
// tile's columns), with a K-major B of any wgmma width: the kernel of C^T = B^T A^T (swap-AB),
// whose tile along M may be any multiple of 8 (here 152).
// RUN: %warpsched-opt --sched-expand-gemm %s -o %t.expanded.mlir
// RUN: FileCheck %s --input-file %t.expanded.mlir
// RUN: %warpsched-opt %t.expanded.mlir | %warpsched-opt --mlir-print-op-generic | %warpsched-opt | diff - %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: not %warpsched-opt %S/Inputs/nv-gemm-column-major-registers.mlir 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: sed -e 's/ out_dtype bf16 {/ out_dtype bf16 c_layout col {/' %examples/hopper_gemm_bias_gelu.mlir > %t.fused.mlir
// RUN: not %warpsched-compile %t.fused.mlir --target sm_90a --emit=ptx -o %t.ptx 2>&1 | FileCheck %s --check-prefix=FUSED

// CHECK: sched.nv_kernel @swap_ab layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 152 block_k 64 a_layout col b_layout col out_dtype bf16 c_layout col {
// CHECK:   sched.nv_input_pipeline @ab num_stages 5
// CHECK:   sched.nv_store_tile tma

// PTX: .visible .entry swap_ab(
// PTX: wgmma.mma_async.sync.aligned.m64n152k16.f32.bf16.bf16
// The warpgroup stages its 19 column groups as 8x8 matrices stored transposed (a matrix's
// column is 16 bytes of a column line): 9 four-matrix stores, then the odd group's two; then
// the leader stores the warpgroup's one box.
// PTX-COUNT-9: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX: stmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// PTX-NOT: st.shared
// PTX: fence.proxy.async.shared::cta
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// REGS: nv-gemm-column-major-registers.mlir:2:3: error: 'sched.nv_gemm' op c_layout = col: a column-major C is stored by the TMA epilogue only (epilogue = tma)

// FUSED: error: 'sched.nv_kernel' op cannot take the TMA + wgmma data path: c_layout col: a column-major C is stored as it is computed, without epilogue transforms

module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @swap_ab block_n 152 stages 5 a_layout col b_layout col c_layout col
}
