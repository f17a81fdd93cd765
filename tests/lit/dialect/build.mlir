// Round-trip of sched.build, in the pretty form and through the generic form.
// RUN: %warpsched-opt %s | FileCheck %s
// RUN: %warpsched-opt %s | %warpsched-opt | FileCheck %s
// RUN: %warpsched-opt %s --mlir-print-op-generic | %warpsched-opt | FileCheck %s
// RUN: %warpsched-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Knobs print in name order; a hex mask prints in decimal; lgkm A B are ping-pong's
// lgkm_a and lgkm_b.
// CHECK-LABEL: module attributes {sched.target = "gfx950"} {
// CHECK-NEXT:    sched.build @s1 pingpong {auto_waits = false} lgkm 4 4
// CHECK-NEXT:    sched.build @greedy pingpong {sched_barrier_mask = 15, scheduling = GREEDY, wait_lgkm_first = 8} lgkm 8 8
// CHECK-NEXT:    sched.build @s4 four_wave
// CHECK-NEXT:    sched.build @s4_unfenced four_wave {sched_barrier_mask = 0, wrap_waits_with_sched_barrier = false}
// CHECK-NEXT:  }
// GENERIC: "sched.build"() {config = {auto_waits = false}, family = "pingpong", lgkm_a = 4 : i64, lgkm_b = 4 : i64, sym_name = "s1"} : () -> ()
// GENERIC: "sched.build"() {config = {sched_barrier_mask = 15 : i64, scheduling = "GREEDY", wait_lgkm_first = 8 : i64}, family = "pingpong", lgkm_a = 8 : i64, lgkm_b = 8 : i64, sym_name = "greedy"} : () -> ()
// GENERIC: "sched.build"() {config = {}, family = "four_wave", sym_name = "s4"} : () -> ()
module attributes {sched.target = "gfx950"} {
  sched.build @s1 pingpong {auto_waits = false} lgkm 4 4
  sched.build @greedy pingpong {wait_lgkm_first = 8, scheduling = GREEDY, sched_barrier_mask = 0xF} lgkm 8 8
  sched.build @s4 four_wave {}
  sched.build @s4_unfenced four_wave {wrap_waits_with_sched_barrier = false, sched_barrier_mask = 0}
}
