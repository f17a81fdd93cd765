// Negative integers parse wherever integers do, so each value's rule (its verifier's) is the
// message, the same for -3 as for 0; two concatenated modules are an error at the second.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== a negative ring depth: the rule, as for 0 ====
module {
  // expected-error@+1 {{'sched.nv_gemm' op stages = -3: must be a positive integer}}
  sched.nv_gemm @g block_m 128 block_n 256 block_k 64 stages -3
}

// -----
// ==== a zero ring depth ====
module {
  // expected-error@+1 {{'sched.nv_gemm' op stages = 0: must be a positive integer}}
  sched.nv_gemm @g block_m 128 block_n 256 block_k 64 stages 0
}

// -----
// ==== a negative tile knob: >= 1, as for 0 ====
module {
  sched.build @s pingpong lgkm 4 4
  // expected-error@+1 {{'sched.kernel' op kernel knob bk must be >= 1, got -32}}
  sched.kernel @k schedule @s {bk = -32}
}

// -----
// ==== a zero tile knob ====
module {
  sched.build @s pingpong lgkm 4 4
  // expected-error@+1 {{'sched.kernel' op kernel knob bk must be >= 1, got 0}}
  sched.kernel @k schedule @s {bk = 0}
}

// -----
// ==== a negative stagger ====
// expected-error@+1 {{'sched.schedule' op stagger must be >= 0, got -4}}
sched.schedule @s stagger -4 {
  sched.program kernel {
    sched.block mma = #sched.op<mma st 0 sub 0>
  }
}

// -----
// ==== a negative wait count ====
sched.program kernel {
  // expected-error@+1 {{OpDesc.wait_value must be >= 0, got -1}}
  sched.explicit_block [#sched.op<wait_vm -1>]
}

// -----
// ==== two concatenated modules ====
module {
  sched.build @s pingpong lgkm 4 4
}
// expected-error@+1 {{the input holds more than one top-level module; a tool reads one (warpsched-opt --split-input-file reads several, separated by '// -----')}}
module {
  sched.kernel @k schedule @s
}

// -----
// ==== an op beside the top-level module ====
module {
  sched.build @s pingpong lgkm 4 4
}
// expected-error@+1 {{an op outside the top-level module; move it into the module}}
sched.kernel @k schedule @s

// -----
// ==== a negative time slot ====
sched.program kernel {
  // expected-error@+1 {{ScheduleEntry.time_slot must be >= 0, got -1}}
  sched.entry kernel -1 #sched.op<barrier>
}
