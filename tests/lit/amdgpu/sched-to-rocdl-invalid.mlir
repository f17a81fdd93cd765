// RUN: %warpsched-opt --split-input-file --verify-diagnostics --sched-build-program "--sched-to-rocdl=target=gfx942" %s

// expected-error@+1 {{sched-to-rocdl: no sched.kernel op: nothing to lower}}
module {
  sched.build @s pingpong lgkm 4 4
}

// -----

// expected-error@+1 {{2 kernels (@a, @b); pick one with kernel=NAME}}
module {
  sched.build @s pingpong lgkm 4 4
  sched.kernel @a schedule @s
  sched.kernel @b schedule @s {bk = 32}
}

// -----

module {
  sched.build @s pingpong lgkm 4 4
  // expected-error@+1 {{schedule @s still holds blocks; run sched-expand-blocks first}}
  sched.kernel @k schedule @s {bk = 32}
}

// -----

module {
  sched.build @s pingpong lgkm 4 4
  sched.build @other pingpong lgkm 4 4
  // expected-error@+1 {{'sched.kernel' op names no schedule and its module holds 2; write 'schedule @name'}}
  sched.kernel @k
}

// -----

module {
  sched.build @s pingpong lgkm 4 4
  // expected-error@+1 {{'sched.kernel' op schedule @missing is not in its module (schedules: @s)}}
  sched.kernel @k schedule @missing
}

// -----

module {
  sched.build @s pingpong lgkm 4 4
  // expected-error@+1 {{'sched.kernel' op unknown kernel knob 'tile_m'}}
  sched.kernel @k schedule @s {tile_m = 128}
}

// -----

module {
  sched.build @s pingpong lgkm 4 4
  // expected-error@+1 {{'sched.kernel' op kernel knob in_dtype must be bf16 or f16, got f32}}
  sched.kernel @k schedule @s {in_dtype = f32}
}

// -----

module {
  sched.build @s pingpong lgkm 4 4
  // expected-error@+1 {{'sched.kernel' op kernel knob structure: 'three_wave' is not one of pingpong, four_wave}}
  sched.kernel @k schedule @s {structure = three_wave}
}

// -----

module {
  sched.build @s pingpong lgkm 4 4
  // expected-error@+1 {{'sched.kernel' op kernel knob warps_m must be 2}}
  sched.kernel @k schedule @s {warps_m = 4}
}
