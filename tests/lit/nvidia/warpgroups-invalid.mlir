// The ops of warpgroup kernels (the TMA + wgmma data path): where they may stand and what they
// must name, and the data path's rules.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== setmaxnreg is the first op of a role body ====
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @hopper_gemm layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 3 producer_count 1 consumer_count 2 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
    sched.nv_role producer {
      sched.nv_single_thread {
        // expected-error@+1 {{'sched.nv_set_max_registers' op must be the first op of a role body}}
        sched.nv_set_max_registers 40
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

// -----
// ==== setmaxnreg counts registers in multiples of 8 ====
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
      // expected-error@+1 {{'sched.nv_set_max_registers' op count 230 must be a multiple of 8 in [24, 256] (setmaxnreg)}}
      sched.nv_set_max_registers 230
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

// -----
// ==== a TMA load outside an expect_tx produce ====
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @hopper_gemm layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 3 producer_count 1 consumer_count 2 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
    sched.nv_role producer {
      sched.nv_set_max_registers 40
      sched.nv_single_thread {
        sched.nv_persistent_tile_loop @tiles {
          sched.nv_k_loop {
            sched.nv_input_produce @ab {
              // expected-error@+1 {{'sched.nv_tma_load' op must be inside a sched.nv_input_produce with expect_tx: the TMA copy completes its bytes on the full barrier that expect_tx arms}}
              sched.nv_tma_load @ab operand a
              // expected-error@+1 {{'sched.nv_tma_load' op must be inside a sched.nv_input_produce with expect_tx: the TMA copy completes its bytes on the full barrier that expect_tx arms}}
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

// -----
// ==== multicast of B needs CTAs along M ====
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
              // expected-error@+1 {{'sched.nv_tma_load' op multicast cluster of operand b needs CTAs that share its tile: give the kernel cluster_m 2 or 4 (CTAs along M)}}
              sched.nv_tma_load @ab operand b multicast cluster
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

// -----
// ==== take_turns needs a split tiles loop ====
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
        // expected-error@+1 {{'sched.nv_take_turns' op must be directly inside a sched.nv_persistent_tile_loop with split tiles}}
        sched.nv_take_turns {
          sched.nv_zero_accumulator
          sched.nv_k_loop {
            sched.nv_input_consume @ab mmas_in_flight 1 {
              sched.nv_mma_tile_product @ab
            }
          }
        }
        sched.nv_store_tile tma
      }
    }
  }
}

// -----
// ==== an epilogue transform after the store it should feed ====
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
        // expected-error@+1 {{'sched.nv_epilogue_activation' op must come before the sched.nv_store_tile that writes its result}}
        sched.nv_epilogue_activation relu
      }
    }
  }
}

// -----
// ==== a warpgroup kernel keeps its accumulators in registers ====
module attributes {sched.target = "sm_90a"} {
  // expected-error@+1 {{'sched.nv_kernel' op keeps its accumulators in the consumer warpgroups' registers (layout 'warpgroups<consumers=2>'): it has no sched.nv_output_pipeline}}
  sched.nv_kernel @hopper_gemm layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
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

// -----
// ==== a ring deeper than shared memory ====
module attributes {sched.target = "sm_90a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the TMA + wgmma data path: stages = 9: 459920 bytes of shared memory (at most 232448) (the A/B pipeline's num_stages)}}
  sched.nv_kernel @hopper_gemm layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 9 producer_count 1 consumer_count 2 payload ab_tiles
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

// -----
// ==== a cluster height the kernel cannot launch ====
module attributes {sched.target = "sm_90a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cluster 3x1: cluster_m and cluster_n must each be 1, 2 or 4}}
  sched.nv_kernel @hopper_gemm layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 cluster_m 3 a_layout row b_layout row out_dtype bf16 {
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

// -----
// ==== a persistent tile loop names a tile scheduler ====
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
      // expected-error@+1 {{'sched.nv_persistent_tile_loop' op 'scheduler' must name a tile scheduler; @ab is an input pipeline of ab_tiles}}
      sched.nv_persistent_tile_loop @ab split rows {
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

// -----
// ==== multicast of A needs CTAs along N ====
module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @hopper_gemm layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 cluster_m 2 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 3 producer_count 1 consumer_count 4 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
    sched.nv_role producer {
      sched.nv_set_max_registers 40
      sched.nv_single_thread {
        sched.nv_persistent_tile_loop @tiles {
          sched.nv_k_loop {
            sched.nv_input_produce @ab expect_tx 49152 {
              // expected-error@+1 {{'sched.nv_tma_load' op multicast cluster of operand a needs CTAs that share its tile: give the kernel cluster_n 2 or 4 (CTAs along N)}}
              sched.nv_tma_load @ab operand a multicast cluster
              sched.nv_tma_load @ab operand b multicast cluster
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

// -----
// ==== CTAs along N share A's tile, so its loads must be multicast ====
module attributes {sched.target = "sm_90a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the TMA + wgmma data path: cluster_n 2: the CTAs of a cluster row share A's tile, each loading a part for all of them, so operand a's sched.nv_tma_load must be multicast cluster}}
  sched.nv_kernel @hopper_gemm layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 128 block_k 64 cluster_m 2 cluster_n 2 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 5 producer_count 1 consumer_count 6 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
    sched.nv_role producer {
      sched.nv_set_max_registers 40
      sched.nv_single_thread {
        sched.nv_persistent_tile_loop @tiles {
          sched.nv_k_loop {
            sched.nv_input_produce @ab expect_tx 32768 {
              sched.nv_tma_load @ab operand a
              sched.nv_tma_load @ab operand b multicast cluster
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

// -----
// ==== accumulator steps in the producer role, which holds no accumulators ====
// (a fuzzed input: the store once reached the lowering and ended in an internal error, and the
// zeroing was lowered into the producer and did nothing)
module attributes {sched.target = "sm_90a"} {
  // expected-error@+2 {{'sched.nv_kernel' op cannot take the TMA + wgmma data path: sched.nv_store_tile acts on the accumulators, which only the consumer role holds: move it out of the producer role (it issues the TMA loads)}}
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the TMA + wgmma data path: sched.nv_zero_accumulator acts on the accumulators, which only the consumer role holds}}
  sched.nv_kernel @hopper_gemm layout warpgroups<consumers = 2> threads 384 block_m 128 block_n 256 block_k 64 a_layout row b_layout row out_dtype bf16 {
    sched.nv_input_pipeline @ab num_stages 3 producer_count 1 consumer_count 2 payload ab_tiles
    sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel
    sched.nv_role producer {
      sched.nv_set_max_registers 40
      sched.nv_single_thread {
        sched.nv_persistent_tile_loop @tiles {
          sched.nv_zero_accumulator
          sched.nv_k_loop {
            sched.nv_input_produce @ab expect_tx 49152 {
              sched.nv_tma_load @ab operand a
              sched.nv_store_tile tma
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

// -----
// ==== a store before the mainloop has computed the accumulators, and one inside a k loop ====
// (fuzzed inputs: each reached the lowering and ended in an internal error)
module attributes {sched.target = "sm_90a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the TMA + wgmma data path: sched.nv_store_tile uses the accumulators: put it after the sched.nv_mma_tile_product that computes them, outside any k loop}}
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
        sched.nv_store_tile tma
        sched.nv_zero_accumulator
        sched.nv_k_loop {
          sched.nv_input_consume @ab mmas_in_flight 1 {
            sched.nv_mma_tile_product @ab
          }
        }
      }
    }
  }
}

// -----
module attributes {sched.target = "sm_90a"} {
  // expected-error@+1 {{'sched.nv_kernel' op cannot take the TMA + wgmma data path: sched.nv_epilogue_bias uses the accumulators: put it after the sched.nv_mma_tile_product that computes them, outside any k loop}}
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
          sched.nv_epilogue_bias
          sched.nv_input_consume @ab mmas_in_flight 1 {
            sched.nv_mma_tile_product @ab
          }
        }
        sched.nv_store_tile tma
      }
    }
  }
}
