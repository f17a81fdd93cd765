// Where each op may appear, pipeline declarations and references.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== a step outside a kernel ====
// expected-error@+1 {{'sched.nv_k_loop' op must be inside a sched.nv_kernel}}
sched.nv_k_loop {
}

// -----
// ==== a step directly in the kernel ====
sched.nv_kernel @step_in_kernel layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  // expected-error@+1 {{'sched.nv_sync_wait' op is not allowed in a sched.nv_kernel (only pipelines, tile schedulers and sched.nv_role)}}
  sched.nv_sync_wait
}

// -----
// ==== a pipeline declared inside a role ====
sched.nv_kernel @pipeline_in_role layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_input_pipeline' op must be directly inside a sched.nv_kernel}}
    sched.nv_input_pipeline @ab num_stages 2 producer_count 1 consumer_count 1 payload ab_tiles
  }
}

// -----
// ==== no output pipeline ====
// expected-error@+1 {{'sched.nv_kernel' op needs one sched.nv_output_pipeline}}
sched.nv_kernel @no_output layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
}

// -----
// ==== two output pipelines ====
sched.nv_kernel @two_outputs layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  // expected-error@+1 {{'sched.nv_output_pipeline' op is a second output pipeline; a kernel has one}}
  sched.nv_output_pipeline @acc2 num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== a pipeline name used twice (the kernel is a symbol table: MLIR's own verifier) ====
sched.nv_kernel @redeclared layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  // expected-error@+1 {{redefinition of symbol named 'acc'}}
  sched.nv_input_pipeline @acc num_stages 2 producer_count 1 consumer_count 1 payload ab_tiles
}

// -----
// ==== an output pipeline that does not fit the 512 TMEM columns ====
sched.nv_kernel @too_wide layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  // expected-error@+1 {{'sched.nv_output_pipeline' op num_stages * stage_stride_cols must fit the 512 TMEM columns, got 4 * 256}}
  sched.nv_output_pipeline @acc num_stages 4 stage_stride_cols 256 cta_group 1
}

// -----
// ==== cta_group 3 ====
sched.nv_kernel @cta_group_3 layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  // expected-error@+1 {{'sched.nv_output_pipeline' op cta_group must be 1 or 2, got 3}}
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 3
}

// -----
// ==== only one of the two init counts ====
sched.nv_kernel @half_counts layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  // expected-error@+1 {{'sched.nv_output_pipeline' op give both producer_count and consumer_count, or neither}}
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1 producer_count 1
}

// -----
// ==== a zero arrival count ====
sched.nv_kernel @zero_count layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  // expected-error@+1 {{'sched.nv_input_pipeline' op consumer arrival count must be a positive integer, got 0}}
  sched.nv_input_pipeline @ab num_stages 2 producer_count 1 consumer_count 0 payload ab_tiles
}

// -----
// ==== a tile that mma.sync cannot cover ====
// expected-error@+1 {{'sched.nv_kernel' op block_k must be a positive multiple of 16, got 24}}
sched.nv_kernel @bad_tile layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 24 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== a layout without the epilogue role ====
// expected-error@+1 {{'sched.nv_kernel' op layout 'custom' has no 'epilogue' role, which the output pipeline connects}}
sched.nv_kernel @no_epilogue layout custom<load = [0, 32), mma = [32, 64)> threads 64 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== an undeclared pipeline ====
sched.nv_kernel @undeclared layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_output_produce' op 'pipeline' must name the output pipeline; @accum is undeclared}}
    sched.nv_output_produce @accum {
    }
  }
}

// -----
// ==== an input-pipeline op on the output pipeline ====
sched.nv_kernel @input_op_on_output layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_input_consume' op 'pipeline' must name an input pipeline of ab_tiles; @acc is the output pipeline}}
    sched.nv_input_consume @acc {
    }
  }
}

// -----
// ==== a tile loop over A/B stages ====
sched.nv_kernel @tile_loop_on_ab layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_input_pipeline @ab num_stages 2 producer_count 1 consumer_count 1 payload ab_tiles
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
    // expected-error@+1 {{'sched.nv_tile_loop' op 'pipeline' must name an input pipeline of tile_id; @ab is an input pipeline of ab_tiles}}
    sched.nv_tile_loop @ab consumer {
    }
  }
}

// -----
// ==== fetching a tile id outside the producer side of a tile loop ====
sched.nv_kernel @fetch_outside layout custom<epilogue = [0, 128), mma = [128, 160), scheduler = [160, 192)> threads 192 block_m 32 block_n 32 block_k 32 {
  sched.nv_input_pipeline @tiles num_stages 2 producer_count 1 consumer_count 5 payload tile_id
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role scheduler {
    sched.nv_tile_loop @tiles consumer {
      // expected-error@+1 {{'sched.nv_fetch_next_tile' op must be inside the producer side of a sched.nv_tile_loop on @tiles}}
      sched.nv_fetch_next_tile @tiles
    }
  }
}

// -----
// ==== releasing an input stage outside a per-K epilogue ====
sched.nv_kernel @arrive_input_outside layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_input_pipeline @ab num_stages 2 producer_count 1 consumer_count 5 payload ab_tiles
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role epilogue {
    // expected-error@+1 {{'sched.nv_arrive_input' op must be inside a sched.nv_per_k_epilogue on @ab}}
    sched.nv_arrive_input @ab
  }
}
