// Errors of the generic form come from MLIR's parser and IRDL verifier, or the Python verifiers.
// RUN: %warpsched-opt %s --split-input-file --verify-diagnostics

// ==== missing mma ====
"builtin.module"() ({
  // expected-error@+1 {{'sched.block' op attribute "mma" is expected but not provided}}
  "sched.block"() {pre_op_0 = {tag = 3 : i64}} : () -> ()
}) {sched.phase = "kernel"} : () -> ()

// -----
// ==== wrong attribute type ====
"builtin.module"() ({
  // expected-error@+1 {{expected base attribute 'builtin.dictionary' but got 'builtin.integer'}}
  "sched.block"() {mma = 5 : i64} : () -> ()
}) {sched.phase = "kernel"} : () -> ()

// -----
// ==== unknown op ====
"builtin.module"() ({
  // expected-error@+1 {{unregistered operation 'sched.blok'}}
  "sched.blok"() {mma = {tag = 5 : i64}} : () -> ()
}) {sched.phase = "kernel"} : () -> ()

// -----
// ==== unknown attribute on a block ====
"builtin.module"() ({
  // expected-error@+1 {{'sched.block' op unknown attribute 'pre_op_9'}}
  "sched.block"() {mma = {tag = 5 : i64, role = "COMPUTE"}, pre_op_9 = {tag = 3 : i64}} : () -> ()
}) {sched.phase = "kernel"} : () -> ()

// -----
// ==== flag that is not a bool ====
"builtin.module"() ({
  // expected-error@+1 {{flag 'global_before_frag' must be a bool attribute}}
  "sched.block"() {mma = {tag = 5 : i64, role = "COMPUTE"}, global_before_frag = 1 : i64} : () -> ()
}) {sched.phase = "kernel"} : () -> ()

// -----
// ==== unknown op field ====
"builtin.module"() ({
  // expected-error@+1 {{slot 'mma': unknown op field 'colour'}}
  "sched.block"() {mma = {tag = 5 : i64, colour = 1 : i64}} : () -> ()
}) {sched.phase = "kernel"} : () -> ()

// -----
// ==== op outside a program ====
// expected-error@+1 {{'sched.entry' op must be inside a sched.program}}
"sched.entry"() {op = {tag = 128 : i64}, time_slot = 0 : i64, phase = "kernel"} : () -> ()

// -----
// ==== unknown phase ====
// expected-error@+1 {{'sched.program' op unknown phase 'main'}}
"builtin.module"() ({
  "sched.entry"() {op = {tag = 128 : i64}, time_slot = 0 : i64, phase = "kernel"} : () -> ()
}) {sched.phase = "main"} : () -> ()

// -----
// ==== generic syntax error ====
// expected-error@+1 {{expected '('}}
"sched.block" {mma = {tag = 5 : i64}} : () -> ()
