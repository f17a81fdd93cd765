// Every verifier and syntax error of the pretty form, one case per chunk.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== missing mma ====
sched.program kernel {
  // expected-error@+1 {{'sched.block' needs an 'mma' slot}}
  sched.block pre_op_0 = #sched.op<mma_load_a st 0 sub 0>
}

// -----
// ==== a global load in a fragment slot ====
sched.program kernel {
  // expected-error@+1 {{'sched.block' op slot 'pre_op_0' must hold a FRAGMENT_LOAD op, got tag 0 with role GLOBAL_LOAD}}
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_0 = #sched.op<load_a st 0 sub 0 k K0>
}

// -----
// ==== a fragment load in a global slot ====
sched.program kernel {
  // expected-error@+1 {{slot 'global_load' must hold a GLOBAL_LOAD op}}
  sched.block mma = #sched.op<mma st 0 sub 0>, global_load = #sched.op<mma_load_b st 0 sub 0>
}

// -----
// ==== a barrier as pre_sync ====
sched.program kernel {
  // expected-error@+1 {{slot 'pre_sync' must hold a wait_vm or wait_lgkm, got tag 128}}
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_sync = #sched.op<barrier>
}

// -----
// ==== wait_lgkm in entry_wait ====
sched.program kernel {
  // expected-error@+1 {{slot 'entry_wait' must hold a wait_vm}}
  sched.block mma = #sched.op<mma st 0 sub 0>, entry_wait = #sched.op<wait_lgkm 0>
}

// -----
// ==== a load as the MMA ====
sched.program kernel {
  // expected-error@+1 {{slot 'mma' must hold a COMPUTE op}}
  sched.block mma = #sched.op<load_b st 0 sub 0>
}

// -----
// ==== unknown flag ====
sched.program kernel {
  // expected-error@+1 {{unknown flag 'prefetch_everything'}}
  sched.block mma = #sched.op<mma st 0 sub 0> flags [prefetch_everything]
}

// -----
// ==== unknown op kind ====
sched.program kernel {
  // expected-error@+1 {{unknown op kind 'wait_all'}}
  sched.block mma = #sched.op<wait_all 0>
}

// -----
// ==== unknown slot ====
sched.program kernel {
  // expected-error@+1 {{unknown op slot 'pre_op_2'}}
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_op_2 = #sched.op<mma_load_a st 0 sub 0>
}

// -----
// ==== unknown op field keyword ====
sched.program kernel {
  // expected-error@+1 {{expected a field keyword, got 'colour'}}
  sched.block mma = #sched.op<mma st 0 sub 0 colour 3>
}

// -----
// ==== unknown enum value ====
sched.program kernel {
  // expected-error@+1 {{OpDesc.k_offset: 'K2' is not a KOffsetKind}}
  sched.block mma = #sched.op<mma st 0 sub 0>, global_load = #sched.op<load_a st 0 sub 0 k K2>
}

// -----
// ==== unknown phase ====
// expected-error@+1 {{unknown phase 'mainloop'}}
sched.program mainloop {
}

// -----
// ==== wait_lgkm out of range ====
sched.program kernel {
  // expected-error@+1 {{slot 'pre_sync': wait_lgkm value 16 is out of range [0, 15]}}
  sched.block mma = #sched.op<mma st 0 sub 0>, pre_sync = #sched.op<wait_lgkm 16>
}

// -----
// ==== wait_vm out of range ====
sched.program kernel {
  // expected-error@+1 {{slot 'entry_wait': wait_vm value 64 is out of range [0, 63]}}
  sched.block mma = #sched.op<mma st 0 sub 0>, entry_wait = #sched.op<wait_vm 64>
}

// -----
// ==== set_prio out of range ====
sched.program kernel {
  // expected-error@+1 {{'sched.explicit_block' op set_prio value 4 is out of range [0, 3]}}
  sched.explicit_block [#sched.op<set_prio 4>, #sched.op<mma st 0 sub 0>]
}

// -----
// ==== sched_group_barrier mask out of range ====
sched.program kernel {
  // expected-error@+1 {{sched_group_barrier mask 0x1000 has bits above 0xfff}}
  sched.entry kernel 0 #sched.op<sched_group_barrier mask 0x1000 count 1>
}

// -----
// ==== a barrier with a value ====
sched.program kernel {
  // expected-error@+1 {{barrier takes no value, got 3}}
  sched.entry kernel 0 #sched.op<barrier wait 3>
}

// -----
// ==== a negative value ====
sched.program kernel {
  // expected-error@+1 {{OpDesc.stage must be >= 0, got -1}}
  sched.entry kernel 0 #sched.op<mma st -1 sub 0>
}

// -----
// ==== duplicate slot ====
sched.program kernel {
  // expected-error@+1 {{duplicate field 'mma'}}
  sched.block mma = #sched.op<mma st 0 sub 0>, mma = #sched.op<mma st 0 sub 1>
}

// -----
// ==== duplicate flag ====
sched.program kernel {
  // expected-error@+1 {{duplicate field 'global_before_frag'}}
  sched.block mma = #sched.op<mma st 0 sub 0> flags [global_before_frag, global_before_frag]
}

// -----
// ==== duplicate op field ====
sched.program kernel {
  // expected-error@+1 {{duplicate field 'st'}}
  sched.block mma = #sched.op<mma st 0 st 1>
}

// -----
// ==== time_slot disagrees with position ====
sched.program kernel {
  sched.entry kernel 0 #sched.op<barrier>
  // expected-error@+1 {{'sched.entry' op time_slot 2 disagrees with its position 1 in the program}}
  sched.entry kernel 2 #sched.op<barrier>
}

// -----
// ==== entry phase disagrees with its program ====
sched.program kernel {
  // expected-error@+1 {{'sched.entry' op phase epilogue disagrees with its kernel program}}
  sched.entry epilogue 0 #sched.op<barrier>
}

// -----
// ==== entries mixed with blocks ====
// expected-error@+1 {{'sched.program' op mixes expanded entries with blocks}}
sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>
  sched.entry kernel 1 #sched.op<barrier>
}

// -----
// ==== two programs for one phase ====
sched.schedule @twice {
  sched.program kernel {
  }
  // expected-error@+1 {{schedule has two 'kernel' programs}}
  sched.program kernel {
  }
}

// -----
// ==== truncated input ====
sched.program kernel {
  // expected-error@+1 {{unexpected end of input, expected '>'}}
  sched.block mma = #sched.op<mma st 0 sub 0
