// The proof kernel with one output stage per K block (proof_gemm Mode.PER_K): the epilogue
// sums the partial products and releases the input stage too (consumer_count: 32 MMA threads + one lane of each of the 4
// epilogue warps).
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @ws_gemm_sm_90a_per_k_s2 layout warp_role_1d1d<has_sfb = false, num_epi_warps = 4> threads 224 block_m 32 block_n 32 block_k 32 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 36 payload ab_tiles
    // Every thread of a role arrives: the load warp fills and the MMA warp drains each A/B stage;
    // the scheduler warp writes each tile id, the load, MMA and epilogue threads (192) read it.
    sched.nv_input_pipeline @tiles num_stages 2 producer_count 32 consumer_count 192 payload tile_id
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
    sched.nv_role scheduler {
      sched.nv_tile_loop @tiles producer {
        sched.nv_fetch_next_tile @tiles
      }
    }
    sched.nv_role load {
      sched.nv_tile_loop @tiles consumer {
        sched.nv_k_loop {
          sched.nv_input_produce @ab {
            sched.nv_load_input_stage @ab
          }
        }
      }
    }
    sched.nv_role mma {
      sched.nv_mma_context @acc {
        sched.nv_tile_loop @tiles consumer {
          sched.nv_k_loop {
            sched.nv_per_k_produce @acc {
              sched.nv_zero_accumulator
              sched.nv_input_consume @ab {
                sched.nv_mma_tile_product @ab
              }
              sched.nv_store_accumulator @acc
            }
          }
        }
      }
    }
    sched.nv_role epilogue {
      sched.nv_sync_wait
      sched.nv_epilogue_context @acc {
        sched.nv_tile_loop @tiles consumer {
          sched.nv_zero_epilogue_accumulator
          sched.nv_k_loop {
            sched.nv_per_k_epilogue @acc input_pipeline @ab {
              sched.nv_accumulate_stage @acc
              sched.nv_arrive_input @ab
            }
          }
          sched.nv_store_c
        }
      }
    }
  }
}
