// 4-wave GEMM schedule S4, fixed for the strict (per-wave) visibility rule.
//
// Golden S4 (examples/four_wave.mlir) treats its four waves as one stream: a wave reads the
// other waves' DMA parts right after its own wait_vm, and refills a half tile right after a
// barrier that other waves may pass with fragment reads still in flight (wait_lgkm 4).  No
// hardware runs the waves in lock step; under visibility=wave sched-verify finds a
// prefetch-overwrite and the interpreter 12 hazards, and on the H100 compute-sanitizer's
// racecheck reports cross-warp hazards in S4 (docs/crossvendor.md).  Three changes:
//   * the kernel blocks' pre-barrier waits retire every fragment load (wait_lgkm 4 -> 0), so
//     no refill after the barrier meets another wave's outstanding read;
//   * the first epilogue block opens with a barrier (barrier_before_pre_ops), after the last
//     kernel block's wait_vm;
//   * every epilogue block keeps its pre-MMA barrier, after its wait_vm(0).
// It passes sched-verify in every mode (visibility=group|wave, war=issue|lgkm,
// lds-geometry=kernel|schedule); warpsched-run --interpret computes C == A·B with no hazard
// under both visibility rules; it compiles for gfx950 at 63/63 fidelity and for sm_90a.
//   warpsched-run --interpret examples/four_wave_strict.mlir
//   warpsched-compile examples/four_wave_strict.mlir --target sm_90a -o four_wave.sm_90a.cubin
module attributes {sched.target = "gfx950"} {
  sched.schedule @four_wave_128x128x64 stagger 15 {
    sched.program prologue {
      sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0 vm 2 ch -1>, #sched.op<load_b st 0 sub 0 k K0 vm 2 ch -1>, #sched.op<load_b st 0 sub 1 k K0 vm 2 ch -1>, #sched.op<load_a st 0 sub 1 k K0 vm 2 ch -1>, #sched.op<load_a st 1 sub 0 k K1 vm 2 ch -1>, #sched.op<load_b st 1 sub 0 k K1 vm 2 ch -1>, #sched.op<load_b st 1 sub 1 k K1 vm 2 ch -1>, #sched.op<load_a st 1 sub 1 k K1 vm 2 ch -1>, #sched.op<wait_vm 14>, #sched.op<barrier>, #sched.op<mma_load_a st 0 sub 0 res NONE lat 0>, #sched.op<wait_vm 12>, #sched.op<barrier>, #sched.op<mma_load_b st 0 sub 0 res NONE lat 0>]
    }
    sched.program kernel {
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<wait_lgkm 0>, #sched.op<barrier>, #sched.op<sched_barrier>, #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_a st 0 sub 0 k K0>, #sched.op<mma st 0 sub 0 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_lgkm 0>, #sched.op<sched_barrier>, #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_b st 0 sub 0 k K0>, #sched.op<mma st 0 sub 1 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<wait_lgkm 0>, #sched.op<barrier>, #sched.op<sched_barrier>, #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_b st 0 sub 1 k K0>, #sched.op<mma st 1 sub 0 vgpr_def 4>]
      sched.explicit_block [#sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_a st 0 sub 1 k K0>, #sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<sched_barrier>, #sched.op<mma st 1 sub 1 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<wait_lgkm 0>, #sched.op<barrier>, #sched.op<sched_barrier>, #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_a st 1 sub 0 k K1>, #sched.op<mma st 0 sub 0 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_lgkm 0>, #sched.op<sched_barrier>, #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_b st 1 sub 0 k K1>, #sched.op<mma st 0 sub 1 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<wait_lgkm 0>, #sched.op<barrier>, #sched.op<sched_barrier>, #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_b st 1 sub 1 k K1>, #sched.op<mma st 1 sub 0 vgpr_def 4>]
      sched.explicit_block [#sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_a st 1 sub 1 k K1>, #sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<sched_barrier>, #sched.op<mma st 1 sub 1 vgpr_def 4>]
    }
    sched.program epilogue trailing_barrier {
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [barrier_before_pre_ops, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0> flags [!pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
    }
  }
  sched.kernel @four_wave schedule @four_wave_128x128x64 {structure = four_wave}
}
