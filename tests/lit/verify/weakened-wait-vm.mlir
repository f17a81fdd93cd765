// A weakened wait_vm: S1 kernel block 4 waits with wait_vm(12) instead of wait_vm(6), so the
// half tile kernel entry 54 reads is retired only at entry 64: a stale read.  Checked
// under the reference scheduler's buffer model (lds-geometry=schedule), where golden S1 itself
// passes, so the weakened wait is the only fault (under the kernel's layout S1 races anyway).
// RUN: %warpsched-opt --sched-verify=lds-geometry=schedule --verify-diagnostics %s -o /dev/null
// RUN: not %warpsched-opt --sched-verify=lds-geometry=schedule %s 2>&1 | FileCheck %s
// CHECK: error: sched-verify: dma-visibility: fragment load reads half tile A[stage 1, half 1] before wave group 0's DMA kernel[2] (iteration 1) LOAD_A[st=1,sub=1,k=K_PREV] is complete and visible: it is retired only by kernel[64] (iteration 1) wait_vm(6) in wave group 0
// CHECK-NEXT: note: counterexample (dma-visibility, 3 steps)
// CHECK-NEXT: note: step 1: wave group 0: kernel[2] (iteration 1) LOAD_A[st=1,sub=1,k=K_PREV] (after 2 barriers)
// CHECK-NEXT: note: step 2: wave group 0: kernel[54] (iteration 1) MMA_LOAD_A[st=1,sub=1] (after 14 barriers)
// CHECK-NEXT: note: step 3: wave group 0: kernel[64] (iteration 1) wait_vm(6) (after 16 barriers)

module attributes {sched.target = "gfx950"} {
  sched.schedule @pingpong_256x256x64 stagger 4 {
    sched.program prologue {
      sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<load_a st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<wait_vm 0>, #sched.op<barrier>, #sched.op<load_a st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 1 k K1 vm 4 ch -1>, #sched.op<wait_vm 0>]
    }
    sched.program kernel {
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, global_load = #sched.op<load_a st 0 sub 0 k K0> flags [global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, global_load = #sched.op<load_b st 0 sub 0 k K0> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, global_load = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 12> flags [!post_barrier_lgkm, global_load_prefetch]
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 0 sub 1 k K0>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 0 k K1> flags [global_load_prefetch]
      // expected-error@+1 {{dma-visibility: fragment load reads half tile A[stage 1, half 1] before wave group 0's DMA kernel[2] (iteration 1) LOAD_A[st=1,sub=1,k=K_PREV] is complete and visible}}
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
