// Round-trip of every sched op, in the pretty form and through the generic form.
// RUN: %warpsched-opt %s | FileCheck %s
// RUN: %warpsched-opt %s | %warpsched-opt | FileCheck %s
// RUN: %warpsched-opt %s --mlir-print-op-generic | %warpsched-opt | FileCheck %s
// RUN: %warpsched-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: module attributes {sched.target = "gfx942"} {
// GENERIC: "builtin.module"() ({
module attributes {sched.target = "gfx942"} {

// CHECK-NEXT:   sched.schedule @pingpong stagger 4 {
// GENERIC: "builtin.module"() <{sym_name = "pingpong"}> ({
sched.schedule @pingpong stagger 4 {
  // CHECK-NEXT:     sched.program prologue {
  // CHECK-NEXT:       sched.entry prologue 0 #sched.op<load_a st 0 sub 0 k K0 vm 4>
  // CHECK-NEXT:       sched.entry prologue 1 #sched.op<wait_vm 0>
  // CHECK-NEXT:       sched.entry prologue 2 #sched.op<barrier>
  // CHECK-NEXT:     }
  // GENERIC: "sched.entry"() {op = {{{.*}}tag = 0 : i64, vm_cost = 4 : i64}, phase = "prologue", time_slot = 0 : i64} : () -> ()
  sched.program prologue {
    sched.entry prologue 0 #sched.op<load_a st 0 sub 0 k K0 vm 4>
    sched.entry prologue 1 #sched.op<wait_vm 0>
    sched.entry prologue 2 #sched.op<barrier>
  }
  // CHECK-NEXT:     sched.program kernel trailing_barrier {
  // CHECK-NEXT:       sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier]
  // CHECK-NEXT:       sched.block mma = #sched.op<mma st 1 sub 1>, global_load = #sched.op<load_b st 0 sub 1 k K0>, pre_sync = #sched.op<wait_vm 6> flags [!post_barrier_lgkm, global_load_prefetch]
  // CHECK-NEXT:       sched.block mma = #sched.op<mma st 0 sub 0>, global_load_1 = #sched.op<load_b st 0 sub 0 k K1>, entry_wait = #sched.op<wait_vm 14>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, fused_mma = #sched.op<mma st 0 sub 1> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, post_barrier_sched, global_load_1_prefetch, drain_lgkm_before_loads, global_before_frag, barrier_before_pre_ops, wrap_waits_with_sched_barrier]
  // CHECK-NEXT:       sched.explicit_block [#sched.op<sched_barrier>, #sched.op<set_prio 1>, #sched.op<sched_group_barrier mask 0x100 count 2>, #sched.op<none>, #sched.op<tag 42 st 1 role VALU_COMPUTE>, #sched.op<mma st 1 sub 0>]
  // CHECK-NEXT:     }
  // GENERIC: "sched.block"() {global_load = {channel = 0 : i64, k_offset = "K_PREV"
  // GENERIC: "sched.explicit_block"() {ops = [{resource = "SCALAR", role = "FENCE", tag = 132 : i64}
  sched.program kernel trailing_barrier {
    sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier]
    sched.block global_load = #sched.op<load_b st 0 sub 1 k K0>, mma = #sched.op<mma st 1 sub 1>, pre_sync = #sched.op<wait_vm 6> flags [global_load_prefetch, !post_barrier_lgkm]
    sched.block mma = #sched.op<mma st 0 sub 0>, global_load_1 = #sched.op<load_b st 0 sub 0 k K1>, entry_wait = #sched.op<wait_vm 14>, entry_wait_lgkm = #sched.op<wait_lgkm 0>, fused_mma = #sched.op<mma st 0 sub 1> flags [!pre_mma_barrier, !pre_mma_set_prio, !post_mma_barrier, !post_mma_set_prio, post_barrier_sched, global_load_1_prefetch, drain_lgkm_before_loads, global_before_frag, barrier_before_pre_ops, wrap_waits_with_sched_barrier]
    sched.explicit_block [#sched.op<sched_barrier>, #sched.op<set_prio 1>, #sched.op<sched_group_barrier mask 0x100 count 2>, #sched.op<none>, #sched.op<tag 42 st 1 role VALU_COMPUTE>, #sched.op<mma st 1 sub 0>]
  }
  // CHECK-NEXT:     sched.program epilogue {
  // CHECK-NEXT:       sched.entry epilogue 0 #sched.op<mma st 1 sub 1 lat 32 ch 3 vgpr_def 4 vgpr_kill 2> prefetch
  // CHECK-NEXT:       sched.entry epilogue 1 #sched.op<load_b st 1 sub 0 k K1 vm 4 lgkm 8 res LDS>
  // CHECK-NEXT:     }
  // CHECK-NEXT:   }
  sched.program epilogue {
    sched.entry epilogue 0 #sched.op<mma st 1 sub 1 lat 32 ch 3 vgpr_def 4 vgpr_kill 2> prefetch
    sched.entry epilogue 1 #sched.op<load_b st 1 sub 0 k K1 vm 4 lgkm 8 res LDS>
  }
}

// A program can stand on its own, outside a schedule.
// CHECK-NEXT:   sched.program kernel {
// CHECK-NEXT:     sched.block mma = #sched.op<none>
// CHECK-NEXT:   }
// CHECK-NEXT: }
sched.program kernel {
  sched.block mma = #sched.op<none>
}
}
