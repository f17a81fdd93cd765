// sched.nv_gemm attributes that make no legal kernel: one error per broken rule, at the op.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics
// RUN: not %warpsched-compile %S/Inputs/nv-gemm-sm100a.mlir --target sm_100a -o %t.cubin 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not ls %t.cubin
// RUN: not %warpsched-opt %S/Inputs/nv-gemm-bad-enum.mlir 2>&1 | FileCheck %s --check-prefix=ENUM

// TARGET: nv-gemm-sm100a.mlir:2:3: error: sched-to-nvvm: kernel '{{.+}}' keeps its accumulators in registers, which only the TMA + wgmma data path of sm_90a does; sm_100a kernels pass them through a sched.nv_output_pipeline (TMEM on sm_100a)
// ENUM: nv-gemm-bad-enum.mlir:2:33: error: 'consumers' must be one of cooperative, pingpong, got 'sideways'

// ==== block_k other than one 128-byte swizzle row ====
// expected-error@+1 {{'sched.nv_gemm' op block_k = 32: must be 64 (one 128-byte swizzle row of bf16)}}
sched.nv_gemm @bad_block_k block_k 32

// -----
// ==== a cooperative tile whose consumers would not each own m64 rows ====
// expected-error@+1 {{'sched.nv_gemm' op block_m = 64: must be 128 or 256 in cooperative mode (each consumer warpgroup issues m64 wgmma)}}
sched.nv_gemm @bad_block_m block_m 64 consumers cooperative

// -----
// ==== more accumulators than the consumers' registers hold ====
// expected-error@+1 {{'sched.nv_gemm' op block_m × block_n = 256×256: 256 f32 accumulators per consumer thread (at most 160)}}
sched.nv_gemm @too_many_accumulators block_m 256 block_n 256 epilogue registers stages 2

// -----
// ==== a ring deeper than shared memory, and an N tile wgmma has not: both are reported ====
// expected-error@+2 {{'sched.nv_gemm' op block_n = 100: must be a multiple of 8 from 8 to 512 (wgmma N)}}
// expected-error@+1 {{'sched.nv_gemm' op stages = 8: }}
sched.nv_gemm @too_deep stages 8 block_n 100

// -----
// ==== a tile wider than one wgmma: two of half its width, which split-K does not take ====
// expected-error@+1 {{'sched.nv_gemm' op block_n = 272: a tile wider than 256 takes no split-K (ptxas spills its reduction)}}
sched.nv_gemm @wide_split_k block_n 272 stages 4 decomposition split_k a_layout col b_layout col c_layout col

// -----
// ==== two wgmma side by side: halves of whole 16 columns, and a register epilogue up to 288 ====
// expected-error@+2 {{'sched.nv_gemm' op block_n = 264: wider than 256 it is two wgmma of half its width, so a multiple of 16}}
// expected-error@+2 {{'sched.nv_gemm' op block_n = 304: a tile wider than 256 stores C from registers only data-parallel and up to 288 columns (ptxas spills beyond); use epilogue = tma}}
sched.nv_gemm @wide_odd block_n 264 b_layout col epilogue registers
sched.nv_gemm @wide_registers block_n 304 b_layout col epilogue registers

// -----
// ==== a ring that leaves no room for even one box of f32 C per staging pass ====
// expected-error@+1 {{'sched.nv_gemm' op stages = 5: 263248 bytes of shared memory (at most 232448)}}
sched.nv_gemm @f32_staging out_dtype f32 stages 5

// -----
// ==== stream-K splits k-block runs across both consumer warpgroups: not ping-pong ====
// expected-error@+1 {{'sched.nv_gemm' op decomposition = stream_k: needs cooperative consumers (both warpgroups on every k-block run); ping-pong consumers take split_k with the serial reduction}}
sched.nv_gemm @stream_k_pingpong consumers pingpong block_n 128 decomposition stream_k

// -----
// ==== split-K's reduce-scatter likewise; and split-K takes one product ====
// expected-error@+3 {{'sched.nv_gemm' op decomposition = split_k: needs cooperative consumers (both warpgroups on every k-block run); ping-pong consumers take split_k with the serial reduction}}
// expected-error@+2 {{'sched.nv_gemm' op decomposition = split_k: takes one product (batch = single); its launch gives every split its own CTA}}
// expected-error@+1 {{'sched.nv_gemm' op split_reduction = scattered: every run stores its slice of the tile from registers (epilogue = registers)}}
sched.nv_gemm @split_k_pingpong_batched consumers pingpong block_m 64 block_n 128 batch strided decomposition split_k split_reduction scattered

// -----
// ==== a cluster of more CTAs than the portable size ====
// expected-error@+1 {{'sched.nv_gemm' op cluster 4x4: 16 CTAs, at most 8 (the portable cluster size)}}
sched.nv_gemm @cluster cluster_m 4 cluster_n 4

// -----
// ==== a cluster side the multicast masks do not split ====
// expected-error@+1 {{'sched.nv_gemm' op cluster 1x3: cluster_m and cluster_n must each be 1, 2 or 4}}
sched.nv_gemm @cluster cluster_n 3

// -----
// ==== a single-stage ring cannot overlap loads with MMA ====
// expected-error@+1 {{'sched.nv_gemm' op stages = 1: the ring needs at least 2 stages}}
sched.nv_gemm @one_stage stages 1

// -----
// ==== a width wgmma has but a row-major B's 64-column boxes do not ====
// expected-error@+1 {{'sched.nv_gemm' op block_n = 152: a row-major (N-contiguous) B needs a multiple of 64 (TMA boxes of 64 columns); read B column-major for other widths}}
sched.nv_gemm @row_major_b_width block_n 152 epilogue registers

// -----
// ==== split-K's reduce-scatter: only for split-K, and its runs store from registers ====
// expected-error@+2 {{'sched.nv_gemm' op split_reduction = scattered: sums a split-K tile's partials (decomposition = split_k, not stream_k)}}
// expected-error@+1 {{'sched.nv_gemm' op split_reduction = scattered: every run stores its slice of the tile from registers (epilogue = registers)}}
sched.nv_gemm @scattered_stream_k decomposition stream_k split_reduction scattered
