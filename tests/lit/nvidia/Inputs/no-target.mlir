sched.nv_kernel @no_target layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
  sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
}
