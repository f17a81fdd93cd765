// A 4x1 cluster whose K-major B (80 rows, ten 8-row swizzle atoms) its four CTAs do not divide:
// each issues one box of three atoms, at atoms 0, 3, 6 and 7, so atoms 7 and 8 arrive twice and
// full[s] takes A's 8192 bytes and four boxes of 3072, 20480 in all.  Armed for the stage's
// 18432 bytes (what the program held before the boxes overlapped), the transaction count never
// settles.  The exploration runs two of the four CTAs, whose boxes (five atoms each) bring 2048
// bytes fewer, so its counterexample arms 16384, and the message says why.
// RUN: %warpsched-opt --sched-verify --verify-diagnostics %s -o /dev/null
// RUN: not %warpsched-opt --sched-verify %s 2>&1 | FileCheck %s
// CHECK: error: sched-verify: expect_tx: full barriers expect 18432 bytes per stage (expect_tx) but the stage's TMA boxes bring 20480 (the counterexample runs 2 of the cluster's 4 CTAs, whose boxes bring 2048 bytes fewer per stage: its expect_tx is moved by as much)
// CHECK-NEXT: note: counterexample (expect_tx,
// CHECK: arrive.expect_tx on full[0] of @ab.cta0 (1 arrival, 16384 bytes)

module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @uneven layout warpgroups<consumers = 2> threads 384 block_m 64 block_n 80 block_k 64 cluster_m 4 a_layout row b_layout col out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 8 producer_count 1 consumer_count 4 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
    sched.nv_role producer {
      sched.nv_set_max_registers 40
      sched.nv_single_thread {
        sched.nv_persistent_tile_loop @tiles {
          sched.nv_k_loop {
            // expected-error@+1 {{expect_tx: full barriers expect 18432 bytes per stage (expect_tx) but the stage's TMA boxes bring 20480}}
            sched.nv_input_produce @ab expect_tx 18432 {
              sched.nv_tma_load @ab operand a
              sched.nv_tma_load @ab operand b multicast cluster
            }
          }
        }
      }
    }
    sched.nv_role consumer {
      sched.nv_set_max_registers 232
      sched.nv_persistent_tile_loop @tiles split tiles {
        sched.nv_take_turns {
          sched.nv_zero_accumulator
          sched.nv_k_loop {
            sched.nv_input_consume @ab mmas_in_flight 1 {
              sched.nv_mma_tile_product @ab
            }
          }
        }
        sched.nv_store_tile registers
      }
    }
  }
}
