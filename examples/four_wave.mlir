// 4-wave GEMM schedule (one wave per SIMD, BF16 128x128x64 tile, MFMA 16x16x32).
//
// The three phases of golden schedule S4 (docs/golden-expansions.md):
// minimal barriers, no set_prio, inter-block lgkm drains and a partially drained prologue;
// the kernel blocks are explicit blocks from emit_minimal_barrier_block, so each block
// carries a sched_barrier between its fragment and global loads.
// Expand it:  warpsched-opt --sched-expand-blocks examples/four_wave.mlir
// The GEMM it drives: the 4-wave kernel, bf16 in, f32 C; it relies on lock step (docs/verify.md):
//   warpsched-compile FILE --target gfx950 --visibility group -o four_wave.gfx950.hsaco --report
module attributes {sched.target = "gfx950"} {
  sched.schedule @four_wave_128x128x64 stagger 15 {
    sched.program prologue {
      sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0 vm 2 ch -1>, #sched.op<load_b st 0 sub 0 k K0 vm 2 ch -1>, #sched.op<load_b st 0 sub 1 k K0 vm 2 ch -1>, #sched.op<load_a st 0 sub 1 k K0 vm 2 ch -1>, #sched.op<load_a st 1 sub 0 k K1 vm 2 ch -1>, #sched.op<load_b st 1 sub 0 k K1 vm 2 ch -1>, #sched.op<load_b st 1 sub 1 k K1 vm 2 ch -1>, #sched.op<load_a st 1 sub 1 k K1 vm 2 ch -1>, #sched.op<wait_vm 14>, #sched.op<barrier>, #sched.op<mma_load_a st 0 sub 0 res NONE lat 0>, #sched.op<wait_vm 12>, #sched.op<barrier>, #sched.op<mma_load_b st 0 sub 0 res NONE lat 0>]
    }
    sched.program kernel {
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<wait_lgkm 4>, #sched.op<barrier>, #sched.op<sched_barrier>, #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_a st 0 sub 0 k K0>, #sched.op<mma st 0 sub 0 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_lgkm 0>, #sched.op<sched_barrier>, #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_b st 0 sub 0 k K0>, #sched.op<mma st 0 sub 1 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<wait_lgkm 0>, #sched.op<barrier>, #sched.op<sched_barrier>, #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_b st 0 sub 1 k K0>, #sched.op<mma st 1 sub 0 vgpr_def 4>]
      sched.explicit_block [#sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_a st 0 sub 1 k K0>, #sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<sched_barrier>, #sched.op<mma st 1 sub 1 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<wait_lgkm 4>, #sched.op<barrier>, #sched.op<sched_barrier>, #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_a st 1 sub 0 k K1>, #sched.op<mma st 0 sub 0 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_lgkm 0>, #sched.op<sched_barrier>, #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_b st 1 sub 0 k K1>, #sched.op<mma st 0 sub 1 vgpr_def 4>]
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<wait_lgkm 0>, #sched.op<barrier>, #sched.op<sched_barrier>, #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_b st 1 sub 1 k K1>, #sched.op<mma st 1 sub 0 vgpr_def 4>]
      sched.explicit_block [#sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_a st 1 sub 1 k K1>, #sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<sched_barrier>, #sched.op<mma st 1 sub 1 vgpr_def 4>]
    }
    sched.program epilogue trailing_barrier {
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, pre_sync = #sched.op<wait_vm 0> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, entry_wait_lgkm = #sched.op<wait_lgkm 0> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, !post_barrier_lgkm]
    }
  }
  sched.kernel @four_wave schedule @four_wave_128x128x64 {structure = four_wave}
}
