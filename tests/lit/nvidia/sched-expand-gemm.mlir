// sched-expand-gemm: a sched.nv_gemm becomes the sched.nv_kernel its attributes describe, at
// its location; the kernel prints, round-trips, verifies and compiles like any other.
// RUN: %warpsched-opt --split-input-file --sched-expand-gemm %s | FileCheck %s
// RUN: %warpsched-opt --sched-expand-gemm %examples/hopper_gemm.mlir -o %t.expanded.mlir
// RUN: %warpsched-opt %examples/hopper_gemm_expanded.mlir -o %t.shipped.mlir
// RUN: diff %t.expanded.mlir %t.shipped.mlir
// RUN: %warpsched-opt %t.expanded.mlir | %warpsched-opt --mlir-print-op-generic | %warpsched-opt | diff - %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %t.expanded.mlir --target sm_90a --emit=ptx -o - | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: sched.nv_kernel @coop layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
// CHECK-NEXT:    sched.nv_input_pipeline @ab num_stages 4 producer_count 1 consumer_count 2 payload ab_tiles
// CHECK-NEXT:    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
// CHECK-NEXT:    sched.nv_role producer {
// CHECK-NEXT:      sched.nv_set_max_registers 40
// CHECK-NEXT:      sched.nv_single_thread {
// CHECK-NEXT:        sched.nv_persistent_tile_loop @tiles {
// CHECK-NEXT:          sched.nv_k_loop {
// CHECK-NEXT:            sched.nv_input_produce @ab expect_tx 49152 {
// CHECK-NEXT:              sched.nv_tma_load @ab operand a
// CHECK-NEXT:              sched.nv_tma_load @ab operand b
// CHECK:         sched.nv_role consumer {
// CHECK-NEXT:      sched.nv_set_max_registers 232
// CHECK-NEXT:      sched.nv_persistent_tile_loop @tiles split rows {
// CHECK-NEXT:        sched.nv_zero_accumulator
// CHECK-NEXT:        sched.nv_k_loop {
// CHECK-NEXT:          sched.nv_input_consume @ab mmas_in_flight 1 {
// CHECK-NEXT:            sched.nv_mma_tile_product @ab
// CHECK:             sched.nv_store_tile tma
// CHECK-NOT:     sched.nv_gemm
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @coop stages 4
}

// -----
// Ping-pong: alternate work items per warpgroup, the mainloops in turn; one release a stage.
// CHECK-LABEL: sched.nv_kernel @pingpong layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 128
// CHECK:         sched.nv_input_pipeline @ab num_stages 5 producer_count 1 consumer_count 1 payload ab_tiles
// CHECK:         sched.nv_persistent_tile_loop @tiles split tiles {
// CHECK-NEXT:      sched.nv_take_turns {
// CHECK-NEXT:        sched.nv_zero_accumulator
// CHECK-NEXT:        sched.nv_k_loop {
// CHECK:           sched.nv_store_tile registers
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @pingpong block_m 128 block_n 128 consumers pingpong stages 5 epilogue registers
}

// -----
// Stream-K: the store of a work item that finishes its tile; the scheduler's decomposition.
// CHECK-LABEL: sched.nv_kernel @split
// CHECK:         sched.nv_tile_scheduler @tiles raster along_n group 16 decomposition stream_k
// CHECK:           sched.nv_stream_k_fixup {
// CHECK-NEXT:        sched.nv_store_tile tma
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @split raster along_n group 16 decomposition stream_k
}

// -----
// 2x1 clusters: B multicast to both CTAs, releases from both CTAs' two warpgroups.
// CHECK-LABEL: sched.nv_kernel @pair layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 cluster_m 2 a_layout col b_layout col out_dtype f32 {
// CHECK-NEXT:    sched.nv_input_pipeline @ab num_stages 3 producer_count 1 consumer_count 4 payload ab_tiles
// CHECK:             sched.nv_tma_load @ab operand a
// CHECK-NEXT:        sched.nv_tma_load @ab operand b multicast cluster
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @pair cluster_m 2 a_layout col b_layout col out_dtype f32 epilogue registers
}

// PTX: .visible .entry hopper_gemm(
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX: cp.async.bulk.tensor.2d.global.shared::cta

// -----
// f16 operands: the kernel states in_dtype (bf16, the default, is left out) and its wgmma
// multiplies f16; C may be f16 too.
// CHECK-LABEL: sched.nv_kernel @half layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout col in_dtype f16 out_dtype f16 {
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @half b_layout col in_dtype f16 out_dtype f16
}

// -----
// A strided batch: the tile scheduler walks every entry's tiles (batch strided; single, the
// default, is left out).
// CHECK-LABEL: sched.nv_kernel @batched layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout col out_dtype bf16 {
// CHECK:         sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel batch strided
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @batched b_layout col batch strided
}

// -----
// Split-K: the store waits in a stream_k_fixup (the tile's last run sums the others'), and the
// kernel takes the split count after the workspace.
// CHECK-LABEL: sched.nv_kernel @split
// CHECK:         sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition split_k
// CHECK:         sched.nv_stream_k_fixup {
// CHECK-NEXT:      sched.nv_store_tile
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @split block_n 128 decomposition split_k
}
