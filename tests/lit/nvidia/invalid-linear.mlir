// Linear use of pipeline stages: every acquired stage is released exactly once on every
// path, in the region that acquired it, by the role that acquired it.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== a linear stage that is never released ====
sched.nv_kernel @never_released layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_acquire_mma_linear' op acquires a stage of @acc that is never released in its region}}
    %s = sched.nv_acquire_mma_linear @acc
    sched.nv_store_accumulator @acc
  }
}

// -----
// ==== a linear stage released twice ====
sched.nv_kernel @released_twice layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    %s = sched.nv_acquire_mma_linear @acc
    sched.nv_release_stage %s
    // expected-error@+1 {{'sched.nv_release_stage' op releases a stage acquired at line 20 that is not held here (released twice, or before it is acquired)}}
    sched.nv_release_stage %s
  }
}

// -----
// ==== released by another role ====
sched.nv_kernel @other_role layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    %s = sched.nv_acquire_mma_linear @acc
  }
  sched.nv_role epilogue {
    // expected-error@+1 {{stage %s was acquired by role 'mma' (line 32); only that role may release it}}
    sched.nv_release_stage %s
  }
}

// -----
// ==== released inside a nested region (once per K iteration) ====
sched.nv_kernel @nested_release layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    %s = sched.nv_acquire_mma_linear @acc
    sched.nv_k_loop {
      // expected-error@+1 {{stage %s was acquired in another region (line 45); release it in the region that acquired it, so it is released exactly once on every path}}
      sched.nv_release_stage %s
    }
  }
}

// -----
// ==== an explicit acquire that is never released ====
sched.nv_kernel @explicit_never_released layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    sched.nv_k_loop {
      // expected-error@+1 {{'sched.nv_acquire_for_mma' op acquires a stage of @acc that is never released in its region}}
      sched.nv_acquire_for_mma @acc
    }
  }
}

// -----
// ==== an explicit release without an acquire ====
sched.nv_kernel @release_without_acquire layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_release_from_mma' op releases a stage of @acc that is not held here (acquire it with sched.nv_acquire_for_mma first)}}
    sched.nv_release_from_mma @acc
  }
}

// -----
// ==== an explicit release in a nested region of its acquire ====
sched.nv_kernel @explicit_nested_release layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    sched.nv_acquire_for_mma @acc
    sched.nv_k_loop {
      // expected-error@+1 {{'sched.nv_release_from_mma' op releases a stage of @acc acquired outside this region (line 80): it would not be released exactly once on every path}}
      sched.nv_release_from_mma @acc
    }
  }
}

// -----
// ==== a second acquire while a stage is held ====
sched.nv_kernel @double_acquire layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    sched.nv_output_produce @acc {
      // expected-error@+1 {{'sched.nv_acquire_mma_linear' op acquires a stage of @acc while line 93 still holds one (both would wait on the same stage)}}
      %s = sched.nv_acquire_mma_linear @acc
      sched.nv_release_stage %s
    }
  }
}

// -----
// ==== releasing the stage a region form holds ====
sched.nv_kernel @release_scoped layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    sched.nv_output_produce @acc {
      // expected-error@+1 {{'sched.nv_release_from_mma' op releases a stage of @acc held by sched.nv_output_produce (line 106), which releases it itself}}
      sched.nv_release_from_mma @acc
    }
  }
}

// -----
// ==== an epilogue stage released before the epilogue arrives on its empty barrier ====
sched.nv_kernel @no_arrive layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role epilogue {
    %e = sched.nv_acquire_epilogue_linear @acc
    sched.nv_drain_stage_to_c @acc
    // expected-error@+1 {{'sched.nv_release_stage' op releases a stage of @acc before any sched.nv_epilogue_arrive on it: the MMA warp would wait on its empty barrier forever}}
    sched.nv_release_stage %e
  }
}

// -----
// ==== the same, with the consumer region form ====
sched.nv_kernel @no_arrive_region layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role epilogue {
    // expected-error@+1 {{'sched.nv_output_consume' op releases a stage of @acc before any sched.nv_epilogue_arrive on it}}
    sched.nv_output_consume @acc {
      sched.nv_drain_stage_to_c @acc
    }
  }
}

// -----
// ==== two arrivals for one stage ====
sched.nv_kernel @arrive_twice layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role epilogue {
    sched.nv_output_consume @acc {
      sched.nv_epilogue_arrive @acc
      // expected-error@+1 {{'sched.nv_epilogue_arrive' op arrives twice on the empty barrier of one stage of @acc}}
      sched.nv_epilogue_arrive @acc
    }
  }
}

// -----
// ==== an arrival inside a per-K consumer, which arrives at exit ====
sched.nv_kernel @arrive_in_per_k layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role epilogue {
    sched.nv_per_k_consume @acc {
      // expected-error@+1 {{'sched.nv_epilogue_arrive' op arrives again: sched.nv_per_k_consume arrives on @acc's empty barrier at exit}}
      sched.nv_epilogue_arrive @acc
    }
  }
}

// -----
// ==== a data step without its stage ====
sched.nv_kernel @data_without_stage layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_store_accumulator' op needs a held producer stage of @acc}}
    sched.nv_store_accumulator @acc
  }
}

// -----
// ==== the consumer side acquired by the MMA role ====
sched.nv_kernel @wrong_role layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_acquire_for_epilogue' op runs in role 'mma', but belongs to role 'epilogue'}}
    sched.nv_acquire_for_epilogue @acc
  }
}
