// Round trip of every NVIDIA op (sched.nv_*), in the pretty form and through the generic form.
// RUN: %warpsched-opt %s | FileCheck %s
// RUN: %warpsched-opt %s | %warpsched-opt | FileCheck %s
// RUN: %warpsched-opt %s --mlir-print-op-generic | %warpsched-opt | FileCheck %s
// RUN: %warpsched-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Region ops are builtin.module containers marked with a dictionary of their parameters;
// linear stages are values of !sched.nv_mma_stage / !sched.nv_epilogue_stage.
// GENERIC: "sched.nv_output_pipeline"() {consumer_count = 256 : i64, cta_group = 2 : i64, num_stages = 2 : i64, producer_count = 1 : i64, stage_stride_cols = 64 : i64, sym_name = "acc"} : () -> ()
// GENERIC: %[[MMA:.+]] = "sched.nv_acquire_mma_linear"() {pipeline = "acc"} : () -> !sched.nv_mma_stage
// GENERIC: "sched.nv_release_stage"(%[[MMA]]) : (!sched.nv_mma_stage) -> ()
// GENERIC: }) {sched.nv_tile_loop = {pipeline = "tiles", side = "consumer"}} : () -> ()
// GENERIC: }) {sched.nv_mma_context = {pipeline = "acc"}} : () -> ()
// GENERIC: }) {sched.nv_role = {role = "mma"}} : () -> ()
// GENERIC: %[[EPI:.+]] = "sched.nv_acquire_epilogue_linear"() {pipeline = "acc"} : () -> !sched.nv_epilogue_stage
// GENERIC: "sched.nv_release_stage"(%[[EPI]]) : (!sched.nv_epilogue_stage) -> ()
// GENERIC: }) {sched.nv_kernel = {block_k = 32 : i64, block_m = 32 : i64, block_n = 32 : i64, layout = {kind = "warp_role_8warp"}, sym_name = "explicit_and_linear", threads = 256 : i64}} : () -> ()
// GENERIC: }) {sched.nv_per_k_epilogue = {input_pipeline = "ab", pipeline = "acc"}} : () -> ()
// GENERIC: sched.nv_kernel = {block_k = 32 : i64, block_m = 32 : i64, block_n = 32 : i64, layout = {has_sfb = true, kind = "warp_role_1d1d", num_epi_warps = 4 : i64}, sym_name = "per_k", threads = 384 : i64}
// GENERIC: layout = {epilogue = [0, 64], kind = "custom", load = [64, 96], mma = [96, 128]}

// The module is sm_90a: on sm_100a these 32x32x32 tiles with A/B stages would break the tcgen05
// data path's rules (sm100a-data-path-invalid.mlir); the syntax round trip is target independent.
// CHECK-LABEL: module attributes {sched.target = "sm_90a"} {
// CHECK-NEXT:   sched.nv_kernel @explicit_and_linear layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
// CHECK-NEXT:     sched.nv_input_pipeline @ab num_stages 4 producer_count 1 consumer_count 1 payload ab_tiles
// CHECK-NEXT:     sched.nv_input_pipeline @tiles num_stages 2 producer_count 1 consumer_count 6 payload tile_id
// CHECK-NEXT:     sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 64 cta_group 2 producer_count 1 consumer_count 256
// CHECK-NEXT:     sched.nv_role scheduler {
// CHECK-NEXT:       sched.nv_tile_loop @tiles producer {
// CHECK-NEXT:         sched.nv_fetch_next_tile @tiles
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     sched.nv_role load {
// CHECK-NEXT:       sched.nv_tile_loop @tiles consumer {
// CHECK-NEXT:         sched.nv_k_loop {
// CHECK-NEXT:           sched.nv_input_produce @ab {
// CHECK-NEXT:             sched.nv_load_input_stage @ab
// CHECK-NEXT:           }
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     sched.nv_role mma {
// CHECK-NEXT:       sched.nv_mma_context @acc {
// CHECK-NEXT:         sched.nv_tile_loop @tiles consumer {
// CHECK-NEXT:           %0 = sched.nv_acquire_mma_linear @acc
// CHECK-NEXT:           sched.nv_zero_accumulator
// CHECK-NEXT:           sched.nv_k_loop {
// CHECK-NEXT:             sched.nv_input_consume @ab {
// CHECK-NEXT:               sched.nv_mma_tile_product @ab
// CHECK-NEXT:             }
// CHECK-NEXT:           }
// CHECK-NEXT:           sched.nv_store_accumulator @acc
// CHECK-NEXT:           sched.nv_release_stage %0
// CHECK-NEXT:           sched.nv_acquire_for_mma @acc
// CHECK-NEXT:           sched.nv_store_accumulator @acc
// CHECK-NEXT:           sched.nv_release_from_mma @acc
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     sched.nv_role epilogue {
// CHECK-NEXT:       sched.nv_sync_wait
// CHECK-NEXT:       sched.nv_epilogue_context @acc {
// CHECK-NEXT:         sched.nv_tile_loop @tiles consumer {
// CHECK-NEXT:           %1 = sched.nv_acquire_epilogue_linear @acc
// CHECK-NEXT:           sched.nv_drain_stage_to_c @acc
// CHECK-NEXT:           sched.nv_epilogue_arrive @acc
// CHECK-NEXT:           sched.nv_release_stage %1
// CHECK-NEXT:           sched.nv_acquire_for_epilogue @acc
// CHECK-NEXT:           sched.nv_drain_stage_to_c @acc
// CHECK-NEXT:           sched.nv_epilogue_arrive @acc
// CHECK-NEXT:           sched.nv_release_from_epilogue @acc
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.nv_kernel @per_k layout warp_role_1d1d<has_sfb = true, num_epi_warps = 4> threads 384 block_m 32 block_n 32 block_k 32 {
// CHECK-NEXT:     sched.nv_input_pipeline @ab num_stages 2 producer_count 1 consumer_count 5 payload ab_tiles
// CHECK-NEXT:     sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
// CHECK-NEXT:     sched.nv_role mma {
// CHECK-NEXT:       sched.nv_mma_context @acc {
// CHECK-NEXT:         sched.nv_k_loop {
// CHECK-NEXT:           sched.nv_per_k_produce @acc {
// CHECK-NEXT:             sched.nv_zero_accumulator
// CHECK-NEXT:             sched.nv_input_consume @ab {
// CHECK-NEXT:               sched.nv_mma_tile_product @ab
// CHECK-NEXT:             }
// CHECK-NEXT:             sched.nv_store_accumulator @acc
// CHECK-NEXT:           }
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     sched.nv_role epilogue {
// CHECK-NEXT:       sched.nv_sync_wait
// CHECK-NEXT:       sched.nv_epilogue_context @acc {
// CHECK-NEXT:         sched.nv_zero_epilogue_accumulator
// CHECK-NEXT:         sched.nv_k_loop {
// CHECK-NEXT:           sched.nv_per_k_epilogue @acc input_pipeline @ab {
// CHECK-NEXT:             sched.nv_accumulate_stage @acc
// CHECK-NEXT:             sched.nv_arrive_input @ab
// CHECK-NEXT:           }
// CHECK-NEXT:         }
// CHECK-NEXT:         sched.nv_store_c
// CHECK-NEXT:         sched.nv_per_k_consume @acc {
// CHECK-NEXT:           sched.nv_accumulate_stage @acc
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.nv_kernel @custom_layout layout custom<epilogue = [0, 64), load = [64, 96), mma = [96, 128)> threads 128 block_m 16 block_n 8 block_k 16 {
// CHECK-NEXT:     sched.nv_output_pipeline @acc num_stages 1 stage_stride_cols 512 cta_group 1
// CHECK-NEXT:     sched.nv_role mma {
// CHECK-NEXT:       sched.nv_output_produce @acc {
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     sched.nv_role epilogue {
// CHECK-NEXT:       sched.nv_output_consume @acc {
// CHECK-NEXT:         sched.nv_epilogue_arrive @acc
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }

module attributes {sched.target = "sm_90a"} {
  sched.nv_kernel @explicit_and_linear layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
    sched.nv_input_pipeline @ab num_stages 4 producer_count 1 consumer_count 1 payload ab_tiles
    sched.nv_input_pipeline @tiles num_stages 2 producer_count 1 consumer_count 6 payload tile_id
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 64 cta_group 2 producer_count 1 consumer_count 256
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
          %0 = sched.nv_acquire_mma_linear @acc
          sched.nv_zero_accumulator
          sched.nv_k_loop {
            sched.nv_input_consume @ab {
              sched.nv_mma_tile_product @ab
            }
          }
          sched.nv_store_accumulator @acc
          sched.nv_release_stage %0
          sched.nv_acquire_for_mma @acc
          sched.nv_store_accumulator @acc
          sched.nv_release_from_mma @acc
        }
      }
    }
    sched.nv_role epilogue {
      sched.nv_sync_wait
      sched.nv_epilogue_context @acc {
        sched.nv_tile_loop @tiles consumer {
          %1 = sched.nv_acquire_epilogue_linear @acc
          sched.nv_drain_stage_to_c @acc
          sched.nv_epilogue_arrive @acc
          sched.nv_release_stage %1
          sched.nv_acquire_for_epilogue @acc
          sched.nv_drain_stage_to_c @acc
          sched.nv_epilogue_arrive @acc
          sched.nv_release_from_epilogue @acc
        }
      }
    }
  }
  sched.nv_kernel @per_k layout warp_role_1d1d<has_sfb = true, num_epi_warps = 4> threads 384 block_m 32 block_n 32 block_k 32 {
    sched.nv_input_pipeline @ab num_stages 2 producer_count 1 consumer_count 5 payload ab_tiles
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
    sched.nv_role mma {
      sched.nv_mma_context @acc {
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
    sched.nv_role epilogue {
      sched.nv_sync_wait
      sched.nv_epilogue_context @acc {
        sched.nv_zero_epilogue_accumulator
        sched.nv_k_loop {
          sched.nv_per_k_epilogue @acc input_pipeline @ab {
            sched.nv_accumulate_stage @acc
            sched.nv_arrive_input @ab
          }
        }
        sched.nv_store_c
        sched.nv_per_k_consume @acc {
          sched.nv_accumulate_stage @acc
        }
      }
    }
  }
  sched.nv_kernel @custom_layout layout custom<epilogue = [0, 64), load = [64, 96), mma = [96, 128)> threads 128 block_m 16 block_n 8 block_k 16 {
    sched.nv_output_pipeline @acc num_stages 1 stage_stride_cols 512 cta_group 1
    sched.nv_role mma {
      sched.nv_output_produce @acc {
      }
    }
    sched.nv_role epilogue {
      sched.nv_output_consume @acc {
        sched.nv_epilogue_arrive @acc
      }
    }
  }
}
