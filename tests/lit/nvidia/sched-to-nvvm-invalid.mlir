// sched-to-nvvm failures, each a diagnostic at the op that caused it.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics --sched-to-nvvm=target=sm_90a
// RUN: not %warpsched-opt %s --sched-to-nvvm=target=sm_80 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not %warpsched-opt %S/Inputs/no-target.mlir --sched-to-nvvm 2>&1 | FileCheck %s --check-prefix=TARGET

// OPTION: warpsched-opt: error: sched-to-nvvm: unknown NVIDIA target 'sm_80' (known: sm_90a, sm_100a)
// TARGET: no-target.mlir:1:1: error: sched-to-nvvm: unknown NVIDIA target '' (known: sm_90a, sm_100a); pass target=sm_90a or target=sm_100a, or set the module attribute sched.target

// ==== a module without a kernel ====
// expected-error@+1 {{sched-to-nvvm: found no sched.nv_kernel, sched.nv_gemm or sched.kernel to lower}}
module {
}

// -----
// ==== cta_group 2 needs a cluster of TMEM CTAs (sm_100a) ====
// expected-error@+1 {{sched-to-nvvm: cta_group=2 needs sm_100a, got target sm_90a}}
sched.nv_kernel @pair layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 2
}

// -----
// ==== two kernels in one module ====
sched.nv_kernel @first layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}
// expected-error@+1 {{sched-to-nvvm: lowers one kernel per module (the kernels would share one shared-memory global); pick one with kernel=NAME (@first, @second)}}
sched.nv_kernel @second layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}
