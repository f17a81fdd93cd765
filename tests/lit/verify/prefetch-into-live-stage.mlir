// A prefetch into a live LDS stage: S4's kernel block 1 refills A stage 1 (load_a st 1 instead
// of st 0) while the same iteration still reads that stage at kernel entry 21.
// RUN: %warpsched-opt --sched-verify --verify-diagnostics %s -o /dev/null
// RUN: not %warpsched-opt --sched-verify %s 2>&1 | FileCheck %s
// CHECK: error: sched-verify: prefetch-overwrite: LOAD overwrites half tile A[stage 1, half 0] while wave group 0 may still read it (kernel[21] (iteration 1) MMA_LOAD_A[st=1,sub=0])
// CHECK-NEXT: note: counterexample (prefetch-overwrite, 3 steps)
// CHECK-NEXT: note: step 1: wave group 0: kernel[7] (iteration 1) LOAD_A[st=1,sub=0,k=K0] (after 3 barriers)
// CHECK-NEXT: note: step 2: wave group 0: kernel[21] (iteration 1) MMA_LOAD_A[st=1,sub=0] (after 4 barriers)
// CHECK-NEXT: note: step 3: wave group 0: kernel[49] (iteration 1) wait_vm(8) (after 5 barriers)

module attributes {sched.target = "gfx950"} {
  sched.schedule @four_wave_128x128x64 stagger 15 {
    sched.program prologue {
      sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0 vm 2 ch -1>, #sched.op<load_b st 0 sub 0 k K0 vm 2 ch -1>, #sched.op<load_b st 0 sub 1 k K0 vm 2 ch -1>, #sched.op<load_a st 0 sub 1 k K0 vm 2 ch -1>, #sched.op<load_a st 1 sub 0 k K1 vm 2 ch -1>, #sched.op<load_b st 1 sub 0 k K1 vm 2 ch -1>, #sched.op<load_b st 1 sub 1 k K1 vm 2 ch -1>, #sched.op<load_a st 1 sub 1 k K1 vm 2 ch -1>, #sched.op<wait_vm 14>, #sched.op<barrier>, #sched.op<mma_load_a st 0 sub 0 res NONE lat 0>, #sched.op<wait_vm 12>, #sched.op<barrier>, #sched.op<mma_load_b st 0 sub 0 res NONE lat 0>]
    }
    sched.program kernel {
      // expected-error@+1 {{prefetch-overwrite: LOAD overwrites half tile A[stage 1, half 0] while wave group 0 may still read it (kernel[21] (iteration 1) MMA_LOAD_A[st=1,sub=0])}}
      sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<wait_lgkm 4>, #sched.op<barrier>, #sched.op<sched_barrier>, #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, #sched.op<sched_barrier>, #sched.op<load_a st 1 sub 0 k K0>, #sched.op<mma st 0 sub 0 vgpr_def 4>]
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
