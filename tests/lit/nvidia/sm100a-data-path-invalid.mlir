// The sm_100a (tcgen05) data path's rules: each a diagnostic at the kernel (dialect verifier),
// and the same rules when the target comes from the sched-to-nvvm option instead.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics
// RUN: not %warpsched-opt %S/Inputs/ws_gemm_per_k.mlir --sched-to-nvvm=target=sm_100a 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not %warpsched-compile %examples/hopper_gemm_expanded.mlir --target sm_100a -o %t.cubin 2>&1 | FileCheck %s --check-prefix=WGMMA

// OPTION: ws_gemm_per_k.mlir:{{[0-9]+}}:{{[0-9]+}}: error: sched-to-nvvm: kernel '{{.*}}' (sm_100a data path): M = 32 is not a tcgen05.mma.cta_group::1 shape (M in (64, 128))

// The expanded Hopper GEMM (register accumulators, wgmma) asked for sm_100a: the compile's
// sched-verify leaves it to the lowering, which names what it lacks.
// WGMMA: hopper_gemm_expanded.mlir:{{[0-9]+}}:3: error: sched-to-nvvm: kernel 'hopper_gemm' keeps its accumulators in registers, which only the TMA + wgmma data path of sm_90a does; sm_100a kernels pass them through a sched.nv_output_pipeline (TMEM on sm_100a)
// WGMMA-NOT: internal error

// ==== a tile tcgen05.mma.cta_group::1.kind::f16 has no shape for ====
module attributes {sched.target = "sm_100a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the sm_100a tcgen05 data path: N = 288 is not a tcgen05.mma.cta_group::1 shape (N a multiple of 8 in [8, 256])}}
  sched.nv_kernel @bad_shape layout custom<epilogue = [0, 128), mma = [128, 160), load = [160, 192)> threads 192 block_m 128 block_n 288 block_k 64 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
    sched.nv_output_pipeline @acc num_stages 1 stage_stride_cols 288 cta_group 1
  }
}

// -----
// ==== an N tcgen05.mma has, but not a whole number of tcgen05.ld.32x32b.x32 chunks ====
module attributes {sched.target = "sm_100a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the sm_100a tcgen05 data path: block_n must be a multiple of 32 for tcgen05.ld.32x32b.x32, got 48}}
  sched.nv_kernel @bad_chunk layout custom<epilogue = [0, 128), mma = [128, 160), load = [160, 192)> threads 192 block_m 128 block_n 48 block_k 64 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 64 cta_group 1
  }
}

// -----
// ==== M other than 128 and K other than one 128-byte swizzle row ====
module attributes {sched.target = "sm_100a"} {
  // expected-error@+2 {{'sched.nv_kernel' op cannot take the sm_100a tcgen05 data path: M = 32 is not a tcgen05.mma.cta_group::1 shape (M in (64, 128))}}
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the sm_100a tcgen05 data path: block_k must be 64 (one 128-byte swizzle row of bf16), got 32}}
  sched.nv_kernel @bad_m_k layout custom<epilogue = [0, 128), mma = [128, 160), load = [160, 192)> threads 192 block_m 32 block_n 32 block_k 32 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  }
}

// -----
// ==== accumulator stages that overlap in TMEM ====
module attributes {sched.target = "sm_100a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the sm_100a tcgen05 data path: stage_stride_cols 64 is smaller than block_n 128: accumulator stages would overlap in TMEM}}
  sched.nv_kernel @overlap layout custom<epilogue = [0, 128), mma = [128, 160), load = [160, 192)> threads 192 block_m 128 block_n 128 block_k 64 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 64 cta_group 1
  }
}

// -----
// ==== cta_group 2: N over 256 for the pair's M = 256 MMA ====
module attributes {sched.target = "sm_100a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the sm_100a tcgen05 data path: N = 288 is not a tcgen05.mma.cta_group::2 shape (N a multiple of 16 in [16, 256])}}
  sched.nv_kernel @pair_wide layout custom<epilogue = [0, 128), mma = [128, 160), load = [160, 192)> threads 192 block_m 128 block_n 288 block_k 64 {
    sched.nv_input_pipeline @ab num_stages 1 producer_count 32 consumer_count 32 payload ab_tiles
    sched.nv_output_pipeline @acc num_stages 1 stage_stride_cols 288 cta_group 2
  }
}

// -----
// ==== cta_group 2 with block_m other than 128 per CTA ====
module attributes {sched.target = "sm_100a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the sm_100a tcgen05 data path: block_m must be 128 (one accumulator row per TMEM lane)}}
  sched.nv_kernel @pair_m64 layout custom<epilogue = [0, 128), mma = [128, 160), load = [160, 192)> threads 192 block_m 64 block_n 128 block_k 64 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 128 cta_group 2
  }
}

// -----
// ==== an epilogue that is not one warp per TMEM lane quarter ====
module attributes {sched.target = "sm_100a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the sm_100a tcgen05 data path: the epilogue must be 128 threads (4 warps, one per TMEM lane quarter), got 64}}
  sched.nv_kernel @small_epilogue layout custom<epilogue = [0, 64), mma = [64, 96), load = [96, 128)> threads 128 block_m 128 block_n 128 block_k 64 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 128 cta_group 1
  }
}
