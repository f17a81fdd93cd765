// Fused epilogue bias_gelu_coop_128x192_s4_ov16: bias → stage 16 → gelu_tanh before the store of
// the expanded Hopper GEMM {'block_n': 192, 'stages': 4}.
// Written by tests/fused_variants.py.
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @bias_gelu_coop_128x192_s4_ov16 layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 192 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 4 producer_count 1 consumer_count 2 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
    sched.nv_role producer {
      sched.nv_set_max_registers 40
      sched.nv_single_thread {
        sched.nv_persistent_tile_loop @tiles {
          sched.nv_k_loop {
            sched.nv_input_produce @ab expect_tx 40960 {
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
        sched.nv_stage_tile overlap 16
        sched.nv_epilogue_activation gelu_tanh
        sched.nv_store_tile tma
      }
    }
  }
}
