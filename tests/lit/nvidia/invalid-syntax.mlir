// Errors of the pretty syntax of the NVIDIA ops, each at the offending token.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== an unknown op ====
// expected-error@+1 {{unknown op 'sched.nv_bogus'}}
sched.nv_bogus @k

// -----
// ==== a missing keyword ====
// expected-error@+1 {{'sched.nv_kernel' needs 'block_k'}}
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 {
}

// -----
// ==== an unknown keyword ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  // expected-error@+1 {{unexpected argument of 'sched.nv_output_pipeline' (keywords: num_stages, stage_stride_cols, cta_group, producer_count, consumer_count)}}
  sched.nv_output_pipeline @acc num_stages 2 stride 32 cta_group 1
}

// -----
// ==== a duplicate keyword ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  // expected-error@+1 {{duplicate keyword 'num_stages'}}
  sched.nv_output_pipeline @acc num_stages 2 num_stages 3 stage_stride_cols 32 cta_group 1
}

// -----
// ==== a region op without its region ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  // expected-error@+1 {{'sched.nv_role' needs a region { ... }}}
  sched.nv_role mma
}

// -----
// ==== a leaf op with a region ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  sched.nv_role epilogue {
    // expected-error@+1 {{'sched.nv_sync_wait' takes no region}}
    sched.nv_sync_wait {
    }
  }
}

// -----
// ==== a linear acquire without a result name ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_acquire_mma_linear' produces a stage: write '%stage = sched.nv_acquire_mma_linear ...'}}
    sched.nv_acquire_mma_linear @acc
  }
}

// -----
// ==== a result name on an op without a result ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_acquire_for_mma' produces no value}}
    %s = sched.nv_acquire_for_mma @acc
  }
}

// -----
// ==== a release without a stage ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_release_stage' needs a stage value, e.g. %stage}}
    sched.nv_release_stage @acc
  }
}

// -----
// ==== a stage name defined twice ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  sched.nv_role mma {
    %s = sched.nv_acquire_mma_linear @acc
    // expected-error@+1 {{stage %s is already defined at line 76}}
    %s = sched.nv_acquire_mma_linear @acc
  }
}

// -----
// ==== a release of an unknown stage ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  sched.nv_role mma {
    // expected-error@+1 {{stage %t is not acquired before this use}}
    sched.nv_release_stage %t
  }
}

// -----
// ==== an unknown enum name ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  // expected-error@+1 {{'role' must be one of epilogue, load, mma, scheduler, sfb_tma_load, sfb_load, epilogue_load, producer, consumer, got 'writer'}}
  sched.nv_role writer {
  }
}

// -----
// ==== a symbol where an integer belongs ====
// expected-error@+1 {{'threads' of 'sched.nv_kernel' needs an integer}}
sched.nv_kernel @k layout warp_role_8warp threads @all block_m 32 block_n 32 block_k 32 {
}

// -----
// ==== a bad layout field value ====
// expected-error@+1 {{layout field 'has_sfb' needs true, false, an integer or a thread range [start, stop), got 'maybe'}}
sched.nv_kernel @k layout warp_role_1d1d<has_sfb = maybe> threads 224 block_m 32 block_n 32 block_k 32 {
}

// -----
// ==== an integer beyond 64 bits ====
// expected-error@+1 {{integer 99999999999999999999 is out of range}}
sched.nv_kernel @k layout warp_role_8warp threads 99999999999999999999 block_m 32 block_n 32 block_k 32 {
}

// -----
// ==== a missing closing brace ====
sched.nv_kernel @k layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
// expected-error@above {{unexpected end of input, expected '%stage =', '}', a sched.nv_* op}}
