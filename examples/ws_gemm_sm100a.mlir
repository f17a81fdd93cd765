// The Blackwell (sm_100a) warp-specialized bf16 GEMM (f32 accumulate) on WarpRole1D1D.
//
//   C[M,N] = A[M,K] @ B[N,K]^T, one 128x128 output tile per tile id, K in 64-wide blocks.
//
// Roles (warp_role_1d1d<has_sfb = false, num_epi_warps = 4>, 224 threads):
//   scheduler (warp 6)    hands out tile ids (blockIdx.x + i*gridDim.x, then -1) through @tiles;
//   load (warp 4)         one lane issues the TMA loads (128-byte swizzle) of A and B into @ab;
//   mma (warp 5)          one lane issues tcgen05.mma (kind::f16) into the TMEM columns of
//                         the @acc output stage; tcgen05.commit releases @ab and fills @acc;
//   epilogue (warps 0-3)  tcgen05.ld.32x32b each stage (one row per thread), stage C in shared
//                         memory, TMA-store it, arrive.
//
// Compile it with:  warpsched-compile examples/ws_gemm_sm100a.mlir --target sm_100a --report
// The dialect spelling of proof_gemm's PER_TILE program on sm_100a (docs/blackwell.md).
module attributes {sched.target = "sm_100a"} {
  sched.nv_kernel @ws_gemm_sm_100a_per_tile_s2 layout warp_role_1d1d<has_sfb = false, num_epi_warps = 4> threads 224 block_m 128 block_n 128 block_k 64 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
    // Every thread of a role arrives: the load warp fills and the MMA warp drains each A/B stage;
    // the scheduler warp writes each tile id, the load, MMA and epilogue threads (192) read it.
    sched.nv_input_pipeline @tiles num_stages 2 producer_count 32 consumer_count 192 payload tile_id
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 128 cta_group 1
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
          sched.nv_output_produce @acc {
            sched.nv_zero_accumulator
            sched.nv_k_loop {
              sched.nv_input_consume @ab {
                sched.nv_mma_tile_product @ab
              }
            }
            sched.nv_store_accumulator @acc
          }
        }
      }
    }
    sched.nv_role epilogue {
      sched.nv_sync_wait
      sched.nv_epilogue_context @acc {
        sched.nv_tile_loop @tiles consumer {
          sched.nv_output_consume @acc {
            sched.nv_drain_stage_to_c @acc
            sched.nv_epilogue_arrive @acc
          }
        }
      }
    }
  }
}
