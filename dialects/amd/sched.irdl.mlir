// The `sched` dialect, declared in IRDL and loaded into an upstream MLIR 22 context.
//
// IRDL checks the presence and kind of each required attribute; the Python verifiers in
// dialects/amd/verify.py check the semantics (roles per slot, wait ranges, flags, slots).
//
// An op descriptor (`OpDesc`) is a dictionary attribute holding `tag` and every field
// that differs from its default: {tag = 5 : i64, stage = 1 : i64, role = "COMPUTE", ...}.
// Schedules and programs are `builtin.module` containers carrying `sched.schedule` /
// `sched.phase` attributes (IRDL cannot declare NoTerminator regions in MLIR 22).
irdl.dialect @sched {
  // One MMABlockSpec: `mma` is required; the other op slots and the flags that differ
  // from their defaults are optional attributes of the same names.
  irdl.operation @block {
    %op = irdl.base "#builtin.dictionary"
    irdl.attributes { "mma" = %op }
  }
  // An explicit block: its ops, emitted verbatim.
  irdl.operation @explicit_block {
    %ops = irdl.base "#builtin.array"
    irdl.attributes { "ops" = %ops }
  }
  // One expanded schedule entry; `prefetch` (unit) marks is_prefetch.
  irdl.operation @entry {
    %op = irdl.base "#builtin.dictionary"
    %slot = irdl.base "#builtin.integer"
    %phase = irdl.base "#builtin.string"
    irdl.attributes { "op" = %op, "time_slot" = %slot, "phase" = %phase }
  }
  // A whole schedule to build (sched-build-program): its name, its family (pingpong,
  // four_wave) and a dictionary of ScheduleConfig knobs; the family's integer parameters
  // (lgkm_a, lgkm_b for pingpong) are optional attributes of the same names.
  irdl.operation @build {
    %name = irdl.base "#builtin.string"
    %family = irdl.base "#builtin.string"
    %config = irdl.base "#builtin.dictionary"
    irdl.attributes { "sym_name" = %name, "family" = %family, "config" = %config }
  }
  // A GEMM kernel driven by a schedule (sched-to-rocdl): its symbol, the dictionary of
  // kernel knobs (warpsched.amdgpu.kernel_spec.KNOBS) and, optionally, `schedule`, the string
  // symbol of the sched.schedule / sched.build that drives it.
  irdl.operation @kernel {
    %name = irdl.base "#builtin.string"
    %spec = irdl.base "#builtin.dictionary"
    irdl.attributes { "sym_name" = %name, "spec" = %spec }
  }
}
