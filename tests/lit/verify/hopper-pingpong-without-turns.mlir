// Ping-pong consumers that do not take turns: warpgroup 1 starts its mainloop at once, and on a
// two-stage ring its first wait (full[1], parity 1) passes on the fresh barrier: the parity of
// phase 0 matches the phase 2 it means, so it would read a stage the producer has not filled.
// RUN: %warpsched-opt --sched-verify --verify-diagnostics %s -o /dev/null
// RUN: not %warpsched-opt --sched-verify %s 2>&1 | FileCheck %s
// CHECK: error: sched-verify: phase-alias
// CHECK-NEXT: note: counterexample (phase-alias,
// CHECK-NEXT: note: step

module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @pp layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 128 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 1 consumer_count 1 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
    sched.nv_role producer {
      sched.nv_set_max_registers 40
      sched.nv_single_thread {
        sched.nv_persistent_tile_loop @tiles {
          sched.nv_k_loop {
            sched.nv_input_produce @ab expect_tx 32768 {
              sched.nv_tma_load @ab operand a
              sched.nv_tma_load @ab operand b
            }
          }
        }
      }
    }
    sched.nv_role consumer {
      sched.nv_set_max_registers 232
      sched.nv_persistent_tile_loop @tiles split tiles {
        sched.nv_zero_accumulator
        sched.nv_k_loop {
          // expected-error@+1 {{phase-alias: try_wait full[1] of @ab parity 1 passes after 0 completed phase(s) of full[1] of @ab, but consumer 1 waits for phase 2}}
          sched.nv_input_consume @ab mmas_in_flight 1 {
            sched.nv_mma_tile_product @ab
          }
        }
        sched.nv_store_tile tma
      }
    }
  }
}
