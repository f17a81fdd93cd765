// dma-visibility, a DMA issued only after the read: S1 strict (examples/pingpong_strict.mlir)
// with kernel block 0's global load LOAD_A[st=1,sub=1,k=K_PREV] moved into block 6, after that
// block's fragment load.  The prologue loads only sub 0 of A[stage 1], so in the first K-loop
// iteration wave group 1's MMA_LOAD_A[st=1,sub=0] (kernel entry 37) reads its half tile
// A[stage 1, half 1] before any DMA of wave group 0 has written it.  sched-verify reports the
// DMA as issued only after the read; before it learned that case it reported nothing.  The
// interpreter names the same read: it holds LDS no DMA has written, where its MMA computes
// K block 1.
// RUN: %warpsched-opt --sched-verify --verify-diagnostics %s -o /dev/null
// RUN: not %warpsched-opt --sched-verify %s 2>&1 | FileCheck %s
// RUN: not %warpsched-opt --sched-verify=visibility=group,war=lgkm %s 2>&1 | FileCheck %s
// RUN: not %PYTHON -m warpsched.tools.run --interpret %s --kernel pingpong_gfx950 2>&1 | FileCheck %s --check-prefix=INTERPRET
// CHECK: error: sched-verify: dma-visibility: fragment load reads half tile A[stage 1, half 1] before wave group 0's DMA kernel[57] (iteration 1) LOAD_A[st=1,sub=1,k=K_PREV] is complete and visible: it is issued only after the read, and no earlier DMA of that group writes it, as @pingpong_gfx950 runs it
// CHECK-NEXT: note: counterexample (dma-visibility, 2 steps)
// CHECK-NEXT: note: step 1: wave group 1: kernel[37] (iteration 1) MMA_LOAD_A[st=1,sub=0] (after 11 barriers)
// CHECK-NEXT: note: step 2: wave group 0: kernel[57] (iteration 1) LOAD_A[st=1,sub=1,k=K_PREV] (after 14 barriers)
// INTERPRET: error: read of the wrong K block: kernel[37] (iteration 1) MMA_LOAD_A[st=1,sub=0] by waves 4, 5, 6, 7 (wave group 1) feeds kernel[43] (iteration 1) MMA[st=0,sub=0], which computes K block 1, but reads LDS that no DMA has written yet; the data it needs is loaded by kernel[57] (iteration 1) LOAD_A[st=1,sub=1,k=K_PREV] of waves 0, 1, 2, 3 (wave group 0), which is not ordered before the read
// INTERPRET-NEXT: note: the load: kernel[57] (iteration 1) LOAD_A[st=1,sub=1,k=K_PREV] (wave group 0)
// INTERPRET: error: pingpong_gfx950: {{.*}} 3 hazard(s), C != A·B (32768 elements differ)

module attributes {sched.target = "gfx950"} {
  sched.schedule @pingpong_256x256x64 stagger 4 {
    sched.program prologue {
      sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 0 k K0 vm 4 ch -1>, #sched.op<load_b st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<load_a st 0 sub 1 k K0 vm 4 ch -1>, #sched.op<wait_vm 0>, #sched.op<barrier>, #sched.op<load_a st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 0 k K1 vm 4 ch -1>, #sched.op<load_b st 1 sub 1 k K1 vm 4 ch -1>, #sched.op<wait_vm 0>]
    }
    sched.program kernel {
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>, pre_sync = #sched.op<wait_lgkm 0> flags [global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>, global_load = #sched.op<load_b st 0 sub 0 k K0>, pre_sync = #sched.op<wait_lgkm 0> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 1 vgpr_def 4>, global_load = #sched.op<load_a st 0 sub 0 k K0>, global_load_1 = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 6> flags [!post_barrier_lgkm, global_load_prefetch]
      // expected-error@+1 {{dma-visibility: fragment load reads half tile A[stage 1, half 1] before wave group 0's DMA kernel[57] (iteration 1) LOAD_A[st=1,sub=1,k=K_PREV] is complete and visible: it is issued only after the read, and no earlier DMA of that group writes it}}
      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 1 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 0 sub 1 k K0>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier, global_load_prefetch]
      sched.block mma = #sched.op<mma st 0 sub 1 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>, pre_sync = #sched.op<wait_lgkm 0> flags [global_load_prefetch]
      sched.block mma = #sched.op<mma st 1 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>, global_load = #sched.op<load_b st 1 sub 0 k K1>, global_load_1 = #sched.op<load_a st 1 sub 1 k K_PREV>, pre_sync = #sched.op<wait_lgkm 0> flags [trailing_sched_barrier, global_load_prefetch]
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
