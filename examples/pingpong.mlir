// Ping-pong double-buffer GEMM schedule (8 waves in two wave groups, 256x256x64 tile).
//
// The three phases of golden schedule S1 (docs/golden-expansions.md): the
// reference's DeclarativeSchedule[False,4,4] with ScheduleConfig(auto_waits=False).
//   prologue: the initial fill of both LDS stages, written as one explicit block;
//   kernel:   one K-loop iteration as eight MMA blocks (two halves x 2x2 quadrants);
//   epilogue: the kernel blocks without prefetches, drained and fused, plus a final barrier.
// Expand it:  warpsched-opt --sched-expand-blocks examples/pingpong.mlir
// The GEMM it drives (sched.kernel): C[M,N] f32 = A[M,K] bf16 row-major x B[K,N] bf16 col-major.
// gfx950 runs the reference's 256x256x64 tile; gfx942's 64 KiB of LDS holds two stages of
// 256x256x32 only, hence a second kernel with bk = 32.  sched-verify rejects it (docs/verify.md):
//   warpsched-compile FILE --target gfx950 --kernel pingpong_gfx950 --no-verify -o pingpong.gfx950.hsaco
module attributes {sched.target = "gfx950"} {
  sched.schedule @pingpong_256x256x64 stagger 4 {
    sched.program prologue {
      sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<load_a st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<wait_vm 0>, #sched.op<barrier>, #sched.op<load_a st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 1 k K1 vm 4 ch -1>, #sched.op<wait_vm 0>]
    }
    sched.program kernel {
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, global_load = #sched.op<load_a st 0 sub 0 k K0> flags [global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, global_load = #sched.op<load_b st 0 sub 0 k K0> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, global_load = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 6> flags [!post_barrier_lgkm, global_load_prefetch]
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 0 sub 1 k K0>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 0 k K1> flags [global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>, global_load = #sched.op<load_b st 1 sub 0 k K1> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, global_load = #sched.op<load_b st 1 sub 1 k K1>, pre_sync = #sched.op<wait_vm 6> flags [!post_barrier_lgkm, global_load_prefetch]
    }
    sched.program epilogue trailing_barrier {
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, entry_wait_lgkm = #sched.op<wait_lgkm 0>
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0>
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0>, fused_mma = #sched.op<mma st 1 sub 1 vgpr_def 4>
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0>
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0>
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, fused_mma = #sched.op<mma st 1 sub 1 vgpr_def 4>
    }
  }
  sched.kernel @pingpong_gfx950 schedule @pingpong_256x256x64 {a_layout = row, b_layout = col, in_dtype = bf16, out_dtype = f32}
  sched.kernel @pingpong_gfx942 schedule @pingpong_256x256x64 {bk = 32}
}
