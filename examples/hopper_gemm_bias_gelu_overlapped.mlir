// The fused epilogue of examples/hopper_gemm_bias_gelu.mlir, overlapped with the next tile's MMAs:
//
//   C = gelu(A·B + bias), with one more op in the consumers' tile loop:
//
//   sched.nv_epilogue_bias                  x += bias[column]        (on the f32 accumulators)
//   sched.nv_stage_tile overlap 4           round to bf16 into the TMA staging buffer, and go on
//   sched.nv_epilogue_activation gelu_tanh  run later, on the staged values, during the
//   sched.nv_store_tile tma                 next tile's first 4 k-blocks (then the TMA store)
//
// In examples/hopper_gemm_bias_gelu.mlir both consumer warpgroups compute GELU (128 tanh.approx
// per thread and tile) while the tensor cores wait.  Here the ops after stage_tile are cut into
// 4 parts, part j issued right after the MMAs of the next work item's k-block j (each thread
// reads back the pairs it staged itself), so they run while the tensor cores compute; after a
// warpgroup's last tile they run before it exits.  GELU now sees the pre-activation rounded to
// bf16 (one more rounding than the plain fused kernel: C = bf16(gelu(bf16(A·B + bias)))).
//
//   warpsched-compile examples/hopper_gemm_bias_gelu_overlapped.mlir --target sm_90a -o fused.cubin --report
//
// From Python (torch tensors on an H100):
//   kernel = warpsched.runtime.GemmKernel.from_mlir("examples/hopper_gemm_bias_gelu_overlapped.mlir")
//   c = kernel(a, b, bias=bias)
// docs/hopper-gemm.md says when the overlap pays off (long K) and when it does not.
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @hopper_gemm_bias_gelu_overlapped layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
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
        sched.nv_stage_tile overlap 4
        sched.nv_epilogue_activation gelu_tanh
        sched.nv_store_tile tma
      }
    }
  }
}
