// The runtime-proof kernel: a warp-specialized bf16 GEMM (f32 accumulate) on WarpRole1D1D.
//
//   C[M,N] = A[M,K] @ B[N,K]^T, one 32x32 output tile per tile id, K in 32-wide blocks.
//
// Roles (warp_role_1d1d<has_sfb = false, num_epi_warps = 4>, 224 threads):
//   scheduler (warp 6)    hands out tile ids (blockIdx.x + i*gridDim.x, then -1) through @tiles;
//   load (warp 4)         fills the @ab input stages with this tile's k-slices of A and B;
//   mma (warp 5)          multiplies each input stage into its accumulator and stores it in
//                         an accumulator stage of the @acc output pipeline (one per tile);
//   epilogue (warps 0-3)  drain each accumulator stage to C and arrive on its empty barrier.
//
// Lower it with:  warpsched-opt --sched-to-nvvm=target=sm_90a examples/ws_gemm_sm90a.mlir
// This is the dialect spelling of proof_gemm's PER_TILE program.
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @ws_gemm_sm_90a_per_tile_s2 layout warp_role_1d1d<has_sfb = false, num_epi_warps = 4> threads 224 block_m 32 block_n 32 block_k 32 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
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
