// A fused epilogue written into the expanded Hopper GEMM:  C = gelu(A·B + bias)
//
// This is examples/hopper_gemm_expanded.mlir (what warpsched-opt --sched-expand-gemm prints for
// examples/hopper_gemm.mlir) with two ops added before the consumers' store_tile:
//
//   sched.nv_epilogue_bias                  x += bias[column]   (bias: N elements of C's type)
//   sched.nv_epilogue_activation gelu_tanh  x := 0.5 x (1 + tanh(√(2/π)(x + 0.044715 x³)))
//
// Every f32 accumulator element goes through them, in order, on its way to C (through the
// swizzled staging buffer and the TMA store here).  The kernel then takes a bias pointer after
// the GEMM's own arguments.  sched.nv_epilogue_scale (x *= alpha), activation relu and
// sched.nv_epilogue_residual (x += residual[row, column]) compose the same way.
//
//   warpsched-compile examples/hopper_gemm_bias_gelu.mlir --target sm_90a -o fused.cubin --report
//
// From Python (torch tensors on an H100):
//   kernel = warpsched.runtime.GemmKernel.from_mlir("examples/hopper_gemm_bias_gelu.mlir")
//   c = kernel(a, b, bias=bias)           # a: M×K bf16, b: K×N bf16, bias: N bf16
// docs/benchmarks.md measures it against cuBLASLt's own bias + GELU epilogue.
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @hopper_gemm_bias_gelu layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 3 producer_count 1 consumer_count 2 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
    sched.nv_role producer {
      sched.nv_set_max_registers 40
      sched.nv_single_thread {
        sched.nv_persistent_tile_loop @tiles {
          sched.nv_k_loop {
            sched.nv_input_produce @ab expect_tx 49152 {
              sched.nv_tma_load @ab operand a
              sched.nv_tma_load @ab operand b
            }
          }
        }
      }
    }
    sched.nv_role consumer {
      sched.nv_set_max_registers 232
      sched.nv_persistent_tile_loop @tiles split rows {
        sched.nv_zero_accumulator
        sched.nv_k_loop {
          sched.nv_input_consume @ab mmas_in_flight 1 {
            sched.nv_mma_tile_product @ab
          }
        }
        sched.nv_epilogue_bias
        sched.nv_epilogue_activation gelu_tanh
        sched.nv_store_tile tma
      }
    }
  }
}
