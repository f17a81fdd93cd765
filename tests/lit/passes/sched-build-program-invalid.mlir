// Every sched.build error, one case per chunk: the verifier's (family, parameters, knobs),
// each at the op.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics --sched-build-program
// RUN: not %warpsched-opt %s --split-input-file --sched-build-program 2>&1 | FileCheck %s

// ==== an unknown knob ====
// CHECK: sched-build-program-invalid.mlir:[[@LINE+2]]:1: error: 'sched.build' op ScheduleConfig.from_dict: unknown knob(s) auto_wait
// expected-error@+1 {{'sched.build' op ScheduleConfig.from_dict: unknown knob(s) auto_wait}}
sched.build @s pingpong {auto_wait = false} lgkm 4 4

// -----
// ==== a knob of the wrong type ====
// expected-error@+1 {{'sched.build' op ScheduleConfig.auto_waits must be a bool, got int 1}}
sched.build @s pingpong {auto_waits = 1} lgkm 4 4

// -----
// ==== a knob out of range ====
// expected-error@+1 {{'sched.build' op ScheduleConfig.wait_lgkm_first must be <= 255, got 256}}
sched.build @s pingpong {wait_lgkm_first = 256} lgkm 4 4

// -----
// ==== an unknown ordering strategy ====
// expected-error@+1 {{ScheduleConfig.scheduling: 'RANDOM' is not a SchedulingStrategy (IDENTITY, GREEDY, CSP)}}
sched.build @s pingpong {scheduling = RANDOM} lgkm 4 4

// -----
// ==== a knob the family forces ====
// expected-error@+1 {{'sched.build' op knob 'scheduling' = GREEDY is overridden by family 'four_wave' (it sets IDENTITY)}}
sched.build @s four_wave {scheduling = GREEDY}

// -----
// ==== ping-pong's lgkm_per_load_a/b come from its lgkm parameters ====
// expected-error@+1 {{knob 'lgkm_per_load_a' = 2 is overridden by family 'pingpong' (it sets 4)}}
sched.build @s pingpong {lgkm_per_load_a = 2} lgkm 4 4

// -----
// ==== an unknown family ====
// CHECK: sched-build-program-invalid.mlir:[[@LINE+2]]:1: error: 'sched.build' op unknown schedule family 'eight_wave' (families: pingpong, four_wave)
// expected-error@+1 {{'sched.build' op unknown schedule family 'eight_wave' (families: pingpong, four_wave)}}
sched.build @s eight_wave

// -----
// ==== missing and extra family parameters ====
// expected-error@+1 {{'sched.build' op family 'pingpong' takes parameters lgkm_a, lgkm_b, got none}}
sched.build @s pingpong {auto_waits = false}

// -----
// expected-error@+1 {{'sched.build' op family 'four_wave' takes no parameters, got lgkm_a, lgkm_b}}
sched.build @s four_wave lgkm 4 4

// -----
// ==== a duplicate knob (a syntax error, at the knob) ====
// expected-error@+1 {{duplicate knob 'auto_waits'}}
sched.build @s pingpong {auto_waits = false, auto_waits = true} lgkm 4 4

// -----
// ==== inside a program ====
sched.program kernel {
  // expected-error@+1 {{unexpected 'sched.build'}}
  sched.build @s four_wave
}

// -----
// ==== generic form: a knob that is no bool, integer or string ====
// expected-error@+1 {{'sched.build' op knob 'auto_waits' must be a bool, integer or string attribute, got [true]}}
"sched.build"() {sym_name = "s", family = "four_wave", config = {auto_waits = [true]}} : () -> ()

// -----
// ==== generic form: a missing config ====
// expected-error@+1 {{'sched.build' op attribute "config" is expected but not provided}}
"sched.build"() {sym_name = "s", family = "four_wave"} : () -> ()
