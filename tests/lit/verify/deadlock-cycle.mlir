// Deadlock, a cycle of waits: the load warp waits for @back before it fills @ab, and the MMA warp
// fills @back only after it has drained @ab. No role can move; the counterexample is the
// interleaving that leads there.
// RUN: %warpsched-opt --sched-verify --verify-diagnostics %s -o /dev/null
// RUN: not %warpsched-opt --sched-verify %s 2>&1 | FileCheck %s
// CHECK: error: sched-verify: deadlock: no role can move: load (try_wait full[0] of @back parity 0), mma (try_wait full[0] of @ab parity 0), epilogue (try_wait full[0] of @acc parity 0)
// CHECK-NEXT: note: counterexample (deadlock, 15 steps, last 12 shown)
// CHECK: note: step 10: role mma: try_wait empty[0] of @acc parity 1
// CHECK: note: step 15:

module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @ws_gemm_sm_90a_per_tile_s2 layout warp_role_1d1d<has_sfb = false, num_epi_warps = 4> threads 224 block_m 32 block_n 32 block_k 32 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
    // Every thread of a role arrives: the load warp fills and the MMA warp drains each A/B stage;
    // the scheduler warp writes each tile id, the load, MMA and epilogue threads (192) read it.
    sched.nv_input_pipeline @tiles num_stages 2 producer_count 32 consumer_count 192 payload tile_id
    sched.nv_input_pipeline @back num_stages 2 producer_count 32 consumer_count 32 payload ab_tiles
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
    sched.nv_role scheduler {
      sched.nv_tile_loop @tiles producer {
        sched.nv_fetch_next_tile @tiles
      }
    }
    sched.nv_role load {
      sched.nv_tile_loop @tiles consumer {
        sched.nv_k_loop {
          // expected-error@+1 {{deadlock: no role can move: load (try_wait full[0] of @back parity 0), mma (try_wait full[0] of @ab parity 0)}}
          sched.nv_input_consume @back {
          }
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
              sched.nv_input_produce @back {
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
