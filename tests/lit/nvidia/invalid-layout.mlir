// Warp-role layouts and the launch: roles must not overlap, the launch must run every
// role's threads, and no launched thread may be without a role.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== overlapping roles ====
// expected-error@+1 {{'sched.nv_kernel' op layout 'custom': role 'load' threads [96, 160) overlap role 'mma' threads [128, 192)}}
sched.nv_kernel @overlap layout custom<epilogue = [0, 96), load = [96, 160), mma = [128, 192)> threads 192 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== a role whose threads are never launched (WarpRole1D1D without the scheduler warp) ====
// expected-error@+1 {{'sched.nv_kernel' op launch threads=192 never launches threads [192, 224) of role 'scheduler' in layout 'warp_role_1d1d<has_sfb=false, num_epi_warps=4>' (needs 224)}}
sched.nv_kernel @scheduler_never_launched layout warp_role_1d1d<has_sfb = false, num_epi_warps = 4> threads 192 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== the SFB extended layout needs 384 threads ====
// expected-error@+1 {{'sched.nv_kernel' op launch threads=224 never launches threads [224, 352) of role 'sfb_load'}}
sched.nv_kernel @sfb_short layout warp_role_1d1d<has_sfb = true, num_epi_warps = 4> threads 224 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== launched threads without a role ====
// expected-error@+1 {{'sched.nv_kernel' op launch threads [256, 288) have no role in layout 'warp_role_8warp' (launch threads=288, layout needs 256)}}
sched.nv_kernel @too_many_threads layout warp_role_8warp threads 288 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== a gap in a custom layout ====
// expected-error@+1 {{'sched.nv_kernel' op launch threads [128, 160) have no role in layout 'custom'}}
sched.nv_kernel @gap layout custom<epilogue = [0, 128), mma = [160, 192)> threads 192 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== a range that is not warp-aligned ====
// expected-error@+1 {{'sched.nv_kernel' op role 'mma' stop must be a multiple of 32 above start 128, got 150}}
sched.nv_kernel @unaligned layout custom<epilogue = [0, 128), mma = [128, 150)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== a body for a role the layout does not have ====
sched.nv_kernel @role_not_in_layout layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  // expected-error@+1 {{'sched.nv_role' op role 'scheduler' is not in layout 'custom' (roles: epilogue, mma)}}
  sched.nv_role scheduler {
  }
}

// -----
// ==== two bodies for one role ====
sched.nv_kernel @role_twice layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  sched.nv_role mma {
  }
  // expected-error@+1 {{'sched.nv_role' op repeats role 'mma'; a kernel has one body per role}}
  sched.nv_role mma {
  }
}

// -----
// ==== an unknown layout ====
// expected-error@+1 {{'sched.nv_kernel' op unknown layout 'warp_role_2d' (layouts: warp_role_1d1d, warp_role_8warp, warpgroups, custom)}}
sched.nv_kernel @unknown_layout layout warp_role_2d threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== an unknown field of WarpRole1D1D ====
// expected-error@+1 {{'sched.nv_kernel' op warp_role_1d1d has no field 'num_mma_warps' (fields: has_sfb, num_epi_warps)}}
sched.nv_kernel @unknown_field layout warp_role_1d1d<num_mma_warps = 2> threads 224 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== an unknown role in a custom layout ====
// expected-error@+1 {{'sched.nv_kernel' op unknown role 'writer' (roles: epilogue, load, mma, scheduler, sfb_tma_load, sfb_load, epilogue_load, producer, consumer)}}
sched.nv_kernel @unknown_role layout custom<epilogue = [0, 128), writer = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== the operands' element type is a choice of the TMA + wgmma data path only ====
// expected-error@+1 {{'sched.nv_kernel' op 'in_dtype' is chosen only on the TMA + wgmma data path (layout warpgroups); this kernel's data path takes bf16 A row-major, B stored N×K and f32 C}}
sched.nv_kernel @half_on_mma_sync layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 in_dtype f16 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}

// -----
// ==== only the TMA + wgmma data path walks a strided batch ====
sched.nv_kernel @batch_on_mma_sync layout warp_role_8warp threads 256 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
  // expected-error@+1 {{'sched.nv_tile_scheduler' op 'batch strided' is walked only on the TMA + wgmma data path (layout warpgroups); this kernel's data path multiplies one product per launch}}
  sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition data_parallel batch strided
}
