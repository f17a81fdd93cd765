// sched.nv_stage_tile: the overlapped epilogue's op round-trips, and its rules.
// RUN: %warpsched-opt %S/../../data/fused/bias_gelu_coop_tma_ov4.mlir | FileCheck %s --check-prefix=ROUND
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics
//
// ROUND:      sched.nv_epilogue_bias
// ROUND-NEXT: sched.nv_stage_tile overlap 4
// ROUND-NEXT: sched.nv_epilogue_activation gelu_tanh
// ROUND-NEXT: sched.nv_store_tile tma

// ==== overlap spreads over at least one k-block ====
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @bias_gelu_coop_tma_ov4 layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
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
        // expected-error@+1 {{'sched.nv_stage_tile' op overlap 0 must be at least 1 (the k-blocks it spreads over)}}
        sched.nv_stage_tile overlap 0
        sched.nv_epilogue_activation gelu_tanh
        sched.nv_store_tile tma
      }
    }
  }
}

// -----
// ==== what stage_tile stages is stored by TMA ====
module attributes {sched.target = "sm_90a"} {
  // expected-error@+1 {{cannot take the TMA + wgmma data path: sched.nv_stage_tile must be followed by a sched.nv_store_tile tma that ends the loop body}}
  sched.nv_kernel @bias_gelu_coop_tma_ov4 layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
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
        sched.nv_store_tile registers
      }
    }
  }
}

// -----
// ==== the next work item finishes the tile, so work items are whole tiles ====
module attributes {sched.target = "sm_90a"} {
  // expected-error@+2 {{sched.nv_stage_tile must be followed by a sched.nv_store_tile tma that ends the loop body}}
  // expected-error@+1 {{sched.nv_stage_tile finishes a tile in the next work item's mainloop, so every work item must be a whole tile: decomposition data_parallel}}
  sched.nv_kernel @bias_gelu_coop_tma_ov4 layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 3 producer_count 1 consumer_count 2 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition stream_k
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
        sched.nv_stream_k_fixup {
          sched.nv_store_tile tma
        }
      }
    }
  }
}

// -----
// ==== the whole sub-tile is staged at once ====
module attributes {sched.target = "sm_90a"} {
  // expected-error@+1 {{sched.nv_stage_tile needs the whole sub-tile staged at once, but this ring leaves shared memory for 1/2 of it: use fewer stages}}
  sched.nv_kernel @bias_gelu_coop_tma_ov4 layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 4 producer_count 1 consumer_count 2 payload ab_tiles
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
