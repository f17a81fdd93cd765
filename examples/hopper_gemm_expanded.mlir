// The Hopper GEMM of hopper_gemm.mlir written out in the pipeline ops: what
//   warpsched-opt --sched-expand-gemm examples/hopper_gemm.mlir
// prints, and the program sched-verify checks, warpsched-viz draws and warpsched-compile lowers
// for that sched.nv_gemm.  Edit it and compile it as it is:
//
//   warpsched-compile examples/hopper_gemm_expanded.mlir --target sm_90a -o gemm.cubin --report
//
// Warpgroup 0 (role producer) gives back registers (setmaxnreg 40); its first thread walks the
// work items of the persistent tile scheduler @tiles and, per k-block, waits for a free stage of
// the @ab ring, arms its full barrier with the stage's 49152 bytes (expect_tx) and issues the
// TMA loads of A and B.  Warpgroups 1 and 2 (role consumer) claim registers (setmaxnreg 232)
// and split every tile's 128 rows (split rows): per k-block they wait for the stage, issue
// wgmma m64n256k16 from it into register accumulators, and release it once the next k-block's
// MMAs are issued (mmas_in_flight 1: one arrival per warpgroup, consumer_count 2); then they
// store their rows of C through shared memory and TMA (store_tile tma).
// tests/test_nv_gemm_expansion.py checks that this program lowers to exactly the kernel that
// docs/benchmarks.md measures.
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @hopper_gemm layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
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
        sched.nv_store_tile tma
      }
    }
  }
}
