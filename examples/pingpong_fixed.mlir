// Ping-pong double-buffer GEMM schedule S1, fixed for the ping-pong kernel's LDS layout.
//
// Golden S1 (examples/pingpong.mlir, the reference's DeclarativeSchedule[False,4,4]) races on
// the kernel it drives: there a fragment load MMA_LOAD_A[st, sub] reads the wave group's own A
// half tile, and both halves of B (amd_ping_pong_matmul.mojo), so the A prefetch of kernel block
// 1 (block 5 for stage 1) refills a half tile that block 2 (block 6) still reads, and fragment
// reads left in flight by wait_lgkm(8) across a barrier overlap the other group's refills
// (docs/verify.md, "The S1 verdict"; the CPU interpreter finds 4 hazards and C != A·B).
// Two changes, nothing else:
//   * the A prefetches move from kernel blocks 1 and 5 into blocks 2 and 6, after the fragment
//     load of the same half tile (global_load, before the block's own B prefetch, global_load_1);
//   * kernel blocks 1, 2, 5 and 6 retire their fragment loads before the pre-MMA barrier
//     (pre_sync = wait_lgkm(0)), so no refill that follows the barrier meets an outstanding read.
// It passes sched-verify{visibility=group} (lds-geometry=schedule|kernel, war=issue|lgkm), but
// races across the waves of a group under the default rule: see pingpong_strict.mlir.  Compile:
//   warpsched-compile FILE --target gfx950 --kernel pingpong_gfx950 --visibility group -o pp.hsaco
module attributes {sched.target = "gfx950"} {
  sched.schedule @pingpong_256x256x64 stagger 4 {
    sched.program prologue {
      sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<load_a st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<wait_vm 0>, #sched.op<barrier>, #sched.op<load_a st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 1 k K1 vm 4 ch -1>, #sched.op<wait_vm 0>]
    }
    sched.program kernel {
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, pre_sync = #sched.op<wait_lgkm 0> flags [global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, global_load = #sched.op<load_a st 0 sub 0 k K0>, global_load_1 = #sched.op<load_b st 0 sub 0 k K0>, pre_sync = #sched.op<wait_lgkm 0> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, global_load = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 6> flags [!post_barrier_lgkm, global_load_prefetch]
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 0 sub 1 k K0>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, pre_sync = #sched.op<wait_lgkm 0> flags [global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 0 k K1>, global_load_1 = #sched.op<load_b st 1 sub 0 k K1>, pre_sync = #sched.op<wait_lgkm 0> flags [trailing_sched_barrier, global_load_prefetch]
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
