// A sched_group_barrier with count 0: the mask is legal (0x8, MFMA), but LLVM needs a
// positive count (the number of instructions the group holds). The second case has count 1
// and passes: only the count differs.
// RUN: %warpsched-opt --sched-verify --split-input-file --verify-diagnostics %s -o /dev/null
// RUN: not %warpsched-opt --sched-verify --split-input-file %s 2>&1 | FileCheck %s
// CHECK: error: sched-verify: fence-mask: sched_group_barrier mask 0x8 count 0 is not legal
// CHECK-NEXT: note: counterexample (fence-mask, 1 steps)
// CHECK-NEXT: note: step 1: wave group 0: prologue[1] sched_group_barrier(0x8, 0) (after 1 barriers)
// CHECK-NOT: error:

module attributes {sched.target = "gfx950"} {
  sched.schedule @count_zero {
    sched.program prologue {
      // expected-error@+1 {{fence-mask: sched_group_barrier mask 0x8 count 0 is not legal: the mask must be a non-empty subset of 0x7ff (LLVM SchedGroupMask), the count positive}}
      sched.explicit_block [#sched.op<barrier>, #sched.op<sched_group_barrier mask 0x8 count 0>]
    }
    sched.program kernel {
      sched.explicit_block [#sched.op<barrier>]
    }
    sched.program epilogue {
      sched.explicit_block [#sched.op<barrier>]
    }
  }
}

// -----

module attributes {sched.target = "gfx950"} {
  sched.schedule @count_one {
    sched.program prologue {
      sched.explicit_block [#sched.op<barrier>, #sched.op<sched_group_barrier mask 0x8 count 1>]
    }
    sched.program kernel {
      sched.explicit_block [#sched.op<barrier>]
    }
    sched.program epilogue {
      sched.explicit_block [#sched.op<barrier>]
    }
  }
}
