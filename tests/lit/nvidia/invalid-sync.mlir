// The Sync wait (bar.sync 1) and the pairing of the two warp contexts.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== an epilogue context not preceded by the Sync wait ====
sched.nv_kernel @no_sync_wait layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    sched.nv_mma_context @acc {
    }
  }
  sched.nv_role epilogue {
    // expected-error@+1 {{'sched.nv_epilogue_context' op is not preceded by the Sync wait: put sched.nv_sync_wait (bar.sync 1) right before it, so the TMEM address the MMA warp published is visible}}
    sched.nv_epilogue_context @acc {
    }
  }
}

// -----
// ==== the Sync wait with work between it and the epilogue context ====
sched.nv_kernel @sync_wait_too_early layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    sched.nv_mma_context @acc {
    }
  }
  sched.nv_role epilogue {
    // expected-error@+1 {{'sched.nv_sync_wait' op must come right before the sched.nv_epilogue_context that relies on it}}
    sched.nv_sync_wait
    sched.nv_zero_epilogue_accumulator
    // expected-error@+1 {{'sched.nv_epilogue_context' op is not preceded by the Sync wait}}
    sched.nv_epilogue_context @acc {
    }
  }
}

// -----
// ==== the Sync wait in the MMA role ====
sched.nv_kernel @sync_wait_in_mma layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_sync_wait' op runs in role 'mma', but belongs to role 'epilogue'}}
    sched.nv_sync_wait
  }
}

// -----
// ==== an epilogue context with no MMA context to arrive on named barrier 1 ====
sched.nv_kernel @no_mma_context layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role epilogue {
    sched.nv_sync_wait
    // expected-error@+1 {{'sched.nv_epilogue_context' op waits on named barrier 1, but no sched.nv_mma_context (role mma) arrives on it}}
    sched.nv_epilogue_context @acc {
    }
  }
}

// -----
// ==== an MMA context whose dealloc barrier nobody signals ====
sched.nv_kernel @no_epilogue_context layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_mma_context' op waits on the TMEM dealloc barrier, but no sched.nv_epilogue_context (role epilogue) signals it}}
    sched.nv_mma_context @acc {
    }
  }
}

// -----
// ==== two MMA contexts ====
sched.nv_kernel @two_mma_contexts layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    sched.nv_mma_context @acc {
    }
    // expected-error@+1 {{'sched.nv_mma_context' op appears twice; a kernel has one of each warp context}}
    sched.nv_mma_context @acc {
    }
  }
  sched.nv_role epilogue {
    sched.nv_sync_wait
    sched.nv_epilogue_context @acc {
    }
  }
}
