// RUN: %warpsched-opt %s --split-input-file --sched-strip-fences=classes=trailing --sched-expand-blocks | FileCheck %s --check-prefix=TRAILING
// RUN: %warpsched-opt %s --split-input-file --sched-strip-fences=classes=set-prio --sched-expand-blocks | FileCheck %s --check-prefix=PRIO
// RUN: %warpsched-opt %s --split-input-file --pass-pipeline='builtin.module(sched-strip-fences{classes=wrap,post-barrier},sched-expand-blocks)' | FileCheck %s --check-prefix=WRAP
// RUN: %warpsched-opt %s --split-input-file --sched-expand-blocks --sched-strip-fences | FileCheck %s --check-prefix=ENTRIES

// TRAILING-LABEL: sched.program kernel {
// TRAILING-NEXT:    sched.entry kernel 0 #sched.op<sched_barrier>
// TRAILING:         sched.entry kernel 12 #sched.op<set_prio 0>
// TRAILING-NEXT:    sched.entry kernel 13 #sched.op<barrier>
// TRAILING-NEXT:  }
// PRIO-LABEL:   sched.program kernel {
// PRIO-NOT:       set_prio
// PRIO:           sched.entry kernel 10 #sched.op<mma st 0 sub 0>
// PRIO-NEXT:      sched.entry kernel 11 #sched.op<barrier>
// PRIO-NEXT:      sched.entry kernel 12 #sched.op<sched_barrier>
// PRIO-NEXT:    }
// WRAP-LABEL:   sched.program kernel {
// WRAP-NEXT:      sched.entry kernel 0 #sched.op<wait_vm 14>
// WRAP-NEXT:      sched.entry kernel 1 #sched.op<barrier>
// WRAP-NEXT:      sched.entry kernel 2 #sched.op<mma_load_b st 0 sub 0>
// WRAP-NEXT:      sched.entry kernel 3 #sched.op<barrier>
// WRAP-NEXT:      sched.entry kernel 4 #sched.op<wait_lgkm 0>
// WRAP-NEXT:      sched.entry kernel 5 #sched.op<set_prio 1>
// WRAP-NEXT:      sched.entry kernel 6 #sched.op<mma st 0 sub 0>
// WRAP-NEXT:      sched.entry kernel 7 #sched.op<set_prio 0>
// WRAP-NEXT:      sched.entry kernel 8 #sched.op<barrier>
// WRAP-NEXT:      sched.entry kernel 9 #sched.op<sched_barrier>
// WRAP-NEXT:    }
// ENTRIES-LABEL: sched.program kernel {
// ENTRIES-NEXT:    sched.entry kernel 0 #sched.op<wait_vm 14>
// ENTRIES-NEXT:    sched.entry kernel 1 #sched.op<barrier>
// ENTRIES-NEXT:    sched.entry kernel 2 #sched.op<mma_load_b st 0 sub 0>
// ENTRIES-NEXT:    sched.entry kernel 3 #sched.op<barrier>
// ENTRIES-NEXT:    sched.entry kernel 4 #sched.op<wait_lgkm 0>
// ENTRIES-NEXT:    sched.entry kernel 5 #sched.op<mma st 0 sub 0>
// ENTRIES-NEXT:    sched.entry kernel 6 #sched.op<barrier>
// ENTRIES-NEXT:  }
sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0>, entry_wait = #sched.op<wait_vm 14> flags [post_barrier_sched, trailing_sched_barrier, wrap_waits_with_sched_barrier]
}

// -----
// Explicit blocks lose the op-level classes.
// ENTRIES-LABEL: sched.program kernel {
// ENTRIES-NEXT:    sched.entry kernel 0 #sched.op<wait_vm 8>
// ENTRIES-NEXT:    sched.entry kernel 1 #sched.op<mma st 1 sub 1>
// ENTRIES-NEXT:  }
sched.program kernel {
  sched.explicit_block [#sched.op<sched_barrier>, #sched.op<wait_vm 8>, #sched.op<set_prio 1>, #sched.op<sched_group_barrier mask 0x8 count 1>, #sched.op<mma st 1 sub 1>]
}
