// Ping-pong schedule S1, fixed for the kernel's LDS layout and for the strict (per-wave)
// visibility rule.
//
// examples/pingpong_fixed.mlir fixes golden S1's races between the two wave groups; under
// visibility=wave (each wave on its own, docs/crossvendor.md) it still has two: the A
// prefetch of kernel block 2 (block 6 for stage 1) refills the wave group's own A half tile
// right after the block's fragment load of the same half, so a faster wave of the group may
// overwrite rows a slower wave is still to read.  One change on top of pingpong_fixed.mlir:
//   * the A prefetches of blocks 2 and 6 move into blocks 3 and 7 (global_load, before the B
//     prefetch, global_load_1), after block 2's (6's) pre-MMA barrier, which follows a
//     wait_lgkm(0): every wave's reads of that half tile are then over.
// It passes sched-verify in every mode (visibility=group|wave, war=issue|lgkm,
// lds-geometry=kernel|schedule); warpsched-run --interpret computes C == A·B with no hazard
// under both rules (256x256x64, 512x256x640, and the gfx942 kernel with its 4-byte DMA lanes);
// it compiles at 109/109 fidelity for gfx950 and gfx942, and for sm_90a.
//   warpsched-compile examples/pingpong_strict.mlir --target gfx950 --kernel pingpong_gfx950 --check-fidelity -o pp.hsaco
module attributes {sched.target = "gfx950"} {
  sched.schedule @pingpong_256x256x64 stagger 4 {
    sched.program prologue {
      sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<load_a st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<wait_vm 0>, #sched.op<barrier>, #sched.op<load_a st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 1 k K1 vm 4 ch -1>, #sched.op<wait_vm 0>]
    }
    sched.program kernel {
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, pre_sync = #sched.op<wait_lgkm 0> flags [global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, global_load = #sched.op<load_b st 0 sub 0 k K0>, pre_sync = #sched.op<wait_lgkm 0> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, global_load = #sched.op<load_a st 0 sub 0 k K0>, global_load_1 = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 6> flags [!post_barrier_lgkm, global_load_prefetch]
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 0 sub 1 k K0>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, pre_sync = #sched.op<wait_lgkm 0> flags [global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>, global_load = #sched.op<load_b st 1 sub 0 k K1>, pre_sync = #sched.op<wait_lgkm 0> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, global_load = #sched.op<load_a st 1 sub 0 k K1>, global_load_1 = #sched.op<load_b st 1 sub 1 k K1>, pre_sync = #sched.op<wait_vm 6> flags [!post_barrier_lgkm, global_load_prefetch]
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
