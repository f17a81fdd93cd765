// Errors only the generic form can express: malformed containers and attributes, and
// stage values used out of order.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== a container marker that is not a dictionary ====
"builtin.module"() ({
  "sched.nv_output_pipeline"() {cta_group = 1 : i64, num_stages = 2 : i64, stage_stride_cols = 32 : i64, sym_name = "acc"} : () -> ()
  // expected-error@+1 {{'sched.nv_role' op 'sched.nv_role' marker must be a dictionary attribute, got "mma"}}
  "builtin.module"() ({
  ^bb0:
  }) {sched.nv_role = "mma"} : () -> ()
}) {sched.nv_kernel = {block_k = 32 : i64, block_m = 32 : i64, block_n = 32 : i64, layout = {kind = "warp_role_8warp"}, sym_name = "k", threads = 256 : i64}} : () -> ()

// -----
// ==== an unknown parameter ====
"builtin.module"() ({
  "sched.nv_output_pipeline"() {cta_group = 1 : i64, num_stages = 2 : i64, stage_stride_cols = 32 : i64, sym_name = "acc"} : () -> ()
  "builtin.module"() ({
    // expected-error@+1 {{'sched.nv_sync_wait' op unknown parameter 'count' (parameters: none)}}
    "sched.nv_sync_wait"() {count = 160 : i64} : () -> ()
  }) {sched.nv_role = {role = "epilogue"}} : () -> ()
}) {sched.nv_kernel = {block_k = 32 : i64, block_m = 32 : i64, block_n = 32 : i64, layout = {kind = "warp_role_8warp"}, sym_name = "k", threads = 256 : i64}} : () -> ()

// -----
// ==== a missing attribute (MLIR's IRDL verifier) ====
"builtin.module"() ({
  // expected-error@+1 {{attribute "pipeline" is expected but not provided}}
  "sched.nv_acquire_for_mma"() : () -> ()
}) : () -> ()

// -----
// ==== a bad enum value ====
"builtin.module"() ({
  "sched.nv_output_pipeline"() {cta_group = 1 : i64, num_stages = 2 : i64, stage_stride_cols = 32 : i64, sym_name = "acc"} : () -> ()
  "builtin.module"() ({
    // expected-error@+1 {{'sched.nv_tile_loop' op parameter 'side' must be one of producer, consumer, got 'middle'}}
    "builtin.module"() ({
    ^bb0:
    }) {sched.nv_tile_loop = {pipeline = "tiles", side = "middle"}} : () -> ()
  }) {sched.nv_role = {role = "mma"}} : () -> ()
}) {sched.nv_kernel = {block_k = 32 : i64, block_m = 32 : i64, block_n = 32 : i64, layout = {kind = "warp_role_8warp"}, sym_name = "k", threads = 256 : i64}} : () -> ()

// -----
// ==== a stage released before it is acquired (a container is a graph region) ====
"builtin.module"() ({
  "sched.nv_output_pipeline"() {cta_group = 1 : i64, num_stages = 2 : i64, stage_stride_cols = 32 : i64, sym_name = "acc"} : () -> ()
  "builtin.module"() ({
    // expected-error@+1 {{'sched.nv_release_stage' op releases a stage acquired at line 51 that is not held here (released twice, or before it is acquired)}}
    "sched.nv_release_stage"(%0) : (!sched.nv_mma_stage) -> ()
    // expected-error@+1 {{'sched.nv_acquire_mma_linear' op acquires a stage of @acc that is never released in its region}}
    %0 = "sched.nv_acquire_mma_linear"() {pipeline = "acc"} : () -> !sched.nv_mma_stage
  }) {sched.nv_role = {role = "mma"}} : () -> ()
}) {sched.nv_kernel = {block_k = 32 : i64, block_m = 32 : i64, block_n = 32 : i64, layout = {kind = "warp_role_8warp"}, sym_name = "k", threads = 256 : i64}} : () -> ()

// -----
// ==== a stage released in a nested region: containers are isolated from above ====
"builtin.module"() ({
  "sched.nv_output_pipeline"() {cta_group = 1 : i64, num_stages = 2 : i64, stage_stride_cols = 32 : i64, sym_name = "acc"} : () -> ()
  "builtin.module"() ({
    %0 = "sched.nv_acquire_mma_linear"() {pipeline = "acc"} : () -> !sched.nv_mma_stage
    "builtin.module"() ({
      // expected-error@+1 {{'sched.nv_release_stage' op using value defined outside the region}}
      "sched.nv_release_stage"(%0) : (!sched.nv_mma_stage) -> ()
    }) {sched.nv_k_loop = {}} : () -> ()
  }) {sched.nv_role = {role = "mma"}} : () -> ()
}) {sched.nv_kernel = {block_k = 32 : i64, block_m = 32 : i64, block_n = 32 : i64, layout = {kind = "warp_role_8warp"}, sym_name = "k", threads = 256 : i64}} : () -> ()

// -----
// ==== releasing a value that is not a stage ====
"builtin.module"() ({
  "sched.nv_output_pipeline"() {cta_group = 1 : i64, num_stages = 2 : i64, stage_stride_cols = 32 : i64, sym_name = "acc"} : () -> ()
  "builtin.module"() ({
    // expected-error@+1 {{'llvm.mlir.constant' op is not a step; only sched.nv_* steps may appear in a role}}
    %0 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
    // expected-error@+1 {{'sched.nv_release_stage' op releases i32, which is not a stage}}
    "sched.nv_release_stage"(%0) : (i32) -> ()
  }) {sched.nv_role = {role = "mma"}} : () -> ()
}) {sched.nv_kernel = {block_k = 32 : i64, block_m = 32 : i64, block_n = 32 : i64, layout = {kind = "warp_role_8warp"}, sym_name = "k", threads = 256 : i64}} : () -> ()

// -----
// ==== an integer wider than 64 bits (reading it would abort the process) ====
"builtin.module"() ({
  // expected-error@+1 {{'sched.nv_output_pipeline' op parameter 'num_stages' must be an integer of at most 64 bits, got i128}}
  "sched.nv_output_pipeline"() {cta_group = 1 : i64, num_stages = 100000000000000000000000 : i128, stage_stride_cols = 32 : i64, sym_name = "acc"} : () -> ()
}) {sched.nv_kernel = {block_k = 32 : i64, block_m = 32 : i64, block_n = 32 : i64, layout = {kind = "warp_role_8warp"}, sym_name = "k", threads = 256 : i64}} : () -> ()
