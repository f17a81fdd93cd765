// sched-build-program: golden schedules S1, S2, S3 and S4 from sched.build ops, built and then
// expanded; every entry below is the golden listing's (tests/golden/schedules/).
// RUN: %warpsched-opt %s --split-input-file --sched-build-program --sched-expand-blocks | FileCheck %s --check-prefixes=S1,S2,CSP,S3,S4
// RUN: %warpsched-opt %s --split-input-file --sched-build-program | FileCheck %s --check-prefix=BUILT

// Unexpanded, a build is the three programs of blocks (the prologue as one explicit block).
// BUILT-LABEL: sched.schedule @s1 stagger 4 {
// BUILT-NEXT:    sched.program prologue {
// BUILT-NEXT:      sched.explicit_block [#sched.op<load_a st 0 sub 0 k K0 vm 4 ch -1>,
// BUILT-NEXT:    }
// BUILT-NEXT:    sched.program kernel {
// BUILT-NEXT:      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, pre_sync = #sched.op<wait_lgkm 8> flags [trailing_sched_barrier]
// BUILT:         sched.program epilogue trailing_barrier {
// BUILT-NEXT:      sched.block mma = #sched.op<mma st 0 sub 0 vgpr_def 4>, pre_op_0 = #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>, pre_op_1 = #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>, global_load = #sched.op<load_a st 1 sub 1 k K_PREV>, entry_wait_lgkm = #sched.op<wait_lgkm 0>

// Golden S1, DeclarativeSchedule[False,4,4] with ScheduleConfig(auto_waits=False).
sched.build @s1 pingpong {auto_waits = false} lgkm 4 4
// S1-LABEL: sched.schedule @s1 stagger 4 {
// S1-NEXT:   sched.program prologue {
// S1-NEXT:     sched.entry prologue 0 #sched.op<load_a st 0 sub 0 k K0 vm 4 ch -1>
// S1-NEXT:     sched.entry prologue 1 #sched.op<load_b st 0 sub 0 k K0 vm 4 ch -1>
// S1-NEXT:     sched.entry prologue 2 #sched.op<load_b st 0 sub 1 k K0 vm 4 ch -1>
// S1-NEXT:     sched.entry prologue 3 #sched.op<load_a st 0 sub 1 k K0 vm 4 ch -1>
// S1-NEXT:     sched.entry prologue 4 #sched.op<wait_vm 0>
// S1-NEXT:     sched.entry prologue 5 #sched.op<barrier>
// S1-NEXT:     sched.entry prologue 6 #sched.op<load_a st 1 sub 0 k K1 vm 4 ch -1>
// S1-NEXT:     sched.entry prologue 7 #sched.op<load_b st 1 sub 0 k K1 vm 4 ch -1>
// S1-NEXT:     sched.entry prologue 8 #sched.op<load_b st 1 sub 1 k K1 vm 4 ch -1>
// S1-NEXT:     sched.entry prologue 9 #sched.op<wait_vm 0>
// S1-NEXT:   }
// S1-NEXT:   sched.program kernel {
// S1-NEXT:     sched.entry kernel 0 #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>
// S1-NEXT:     sched.entry kernel 1 #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>
// S1-NEXT:     sched.entry kernel 2 #sched.op<load_a st 1 sub 1 k K_PREV>
// S1-NEXT:     sched.entry kernel 3 #sched.op<wait_lgkm 8>
// S1-NEXT:     sched.entry kernel 4 #sched.op<barrier>
// S1-NEXT:     sched.entry kernel 5 #sched.op<wait_lgkm 0>
// S1-NEXT:     sched.entry kernel 6 #sched.op<set_prio 1>
// S1-NEXT:     sched.entry kernel 7 #sched.op<mma st 0 sub 0 vgpr_def 4>
// S1-NEXT:     sched.entry kernel 8 #sched.op<set_prio 0>
// S1-NEXT:     sched.entry kernel 9 #sched.op<barrier>
// S1-NEXT:     sched.entry kernel 10 #sched.op<sched_barrier>
// S1:          sched.entry kernel 28 #sched.op<load_b st 0 sub 1 k K0> prefetch
// S1-NEXT:     sched.entry kernel 29 #sched.op<wait_vm 6>
// S1-NEXT:     sched.entry kernel 30 #sched.op<barrier>
// S1-NEXT:     sched.entry kernel 31 #sched.op<set_prio 1>
// S1-NEXT:     sched.entry kernel 32 #sched.op<mma st 1 sub 1 vgpr_def 4>
// S1-NEXT:     sched.entry kernel 33 #sched.op<set_prio 0>
// S1-NEXT:     sched.entry kernel 34 #sched.op<barrier>
// S1:          sched.entry kernel 63 #sched.op<load_b st 1 sub 1 k K1> prefetch
// S1-NEXT:     sched.entry kernel 64 #sched.op<wait_vm 6>
// S1-NEXT:     sched.entry kernel 65 #sched.op<barrier>
// S1-NEXT:     sched.entry kernel 66 #sched.op<set_prio 1>
// S1-NEXT:     sched.entry kernel 67 #sched.op<mma st 1 sub 1 vgpr_def 4>
// S1-NEXT:     sched.entry kernel 68 #sched.op<set_prio 0>
// S1-NEXT:     sched.entry kernel 69 #sched.op<barrier>
// S1-NEXT:   }
// S1:        sched.program epilogue trailing_barrier {
// S1:          sched.entry epilogue 52 #sched.op<set_prio 1>
// S1-NEXT:     sched.entry epilogue 53 #sched.op<mma st 1 sub 0 vgpr_def 4>
// S1-NEXT:     sched.entry epilogue 54 #sched.op<mma st 1 sub 1 vgpr_def 4>
// S1-NEXT:     sched.entry epilogue 55 #sched.op<set_prio 0>
// S1-NEXT:     sched.entry epilogue 56 #sched.op<barrier>
// S1-NEXT:     sched.entry epilogue 57 #sched.op<barrier>
// S1-NEXT:   }
// S1-NEXT: }

// -----
// Golden S2, the ping-pong family's default (no knobs): the reference's build_schedule[False,8,8](),
// CSP + auto waits.  The CSP solver's order puts the B prefetch before the A prefetch in each
// stage: against S3, kernel entries 12/20 and 47/55 trade load_a and load_b, and so does the
// prologue.  Everything else is S3's (tests/golden/schedules/S2.*).
sched.build @s2 pingpong lgkm 8 8
// S2-LABEL: sched.schedule @s2 stagger 4 {
// S2-NEXT:   sched.program prologue {
// S2-NEXT:     sched.entry prologue 0 #sched.op<load_b st 0 sub 0 k K0 vm 4 ch -1>
// S2-NEXT:     sched.entry prologue 1 #sched.op<load_a st 0 sub 0 k K0 vm 4 ch -1>
// S2-NEXT:     sched.entry prologue 2 #sched.op<load_b st 0 sub 1 k K0 vm 4 ch -1>
// S2-NEXT:     sched.entry prologue 3 #sched.op<load_a st 0 sub 1 k K0 vm 4 ch -1>
// S2-NEXT:     sched.entry prologue 4 #sched.op<wait_vm 0>
// S2-NEXT:     sched.entry prologue 5 #sched.op<barrier>
// S2-NEXT:     sched.entry prologue 6 #sched.op<load_b st 1 sub 0 k K1 vm 4 ch -1>
// S2-NEXT:     sched.entry prologue 7 #sched.op<load_a st 1 sub 0 k K1 vm 4 ch -1>
// S2-NEXT:     sched.entry prologue 8 #sched.op<load_b st 1 sub 1 k K1 vm 4 ch -1>
// S2-NEXT:     sched.entry prologue 9 #sched.op<wait_vm 0>
// S2-NEXT:   }
// S2:          sched.entry kernel 11 #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>
// S2-NEXT:     sched.entry kernel 12 #sched.op<load_b st 0 sub 0 k K0> prefetch
// S2:          sched.entry kernel 19 #sched.op<mma_load_a st 0 sub 1 vgpr_def 8>
// S2-NEXT:     sched.entry kernel 20 #sched.op<load_a st 0 sub 0 k K0> prefetch
// S2:          sched.entry kernel 28 #sched.op<load_b st 0 sub 1 k K0> prefetch
// S2-NEXT:     sched.entry kernel 29 #sched.op<wait_vm 12>
// S2:          sched.entry kernel 46 #sched.op<mma_load_b st 1 sub 1 vgpr_def 8>
// S2-NEXT:     sched.entry kernel 47 #sched.op<load_b st 1 sub 0 k K1> prefetch
// S2:          sched.entry kernel 54 #sched.op<mma_load_a st 1 sub 1 vgpr_def 8>
// S2-NEXT:     sched.entry kernel 55 #sched.op<load_a st 1 sub 0 k K1> prefetch
// S2:          sched.entry kernel 63 #sched.op<load_b st 1 sub 1 k K1> prefetch
// S2-NEXT:     sched.entry kernel 64 #sched.op<wait_vm 12>

// -----
// The same with the knob written out (any case): scheduling = csp over ScheduleConfig().
sched.build @s2_knob pingpong {scheduling = csp} lgkm 8 8
// CSP-LABEL: sched.schedule @s2_knob stagger 4 {
// CSP:          sched.entry prologue 0 #sched.op<load_b st 0 sub 0 k K0 vm 4 ch -1>
// CSP:          sched.entry kernel 12 #sched.op<load_b st 0 sub 0 k K0> prefetch
// CSP:          sched.entry kernel 20 #sched.op<load_a st 0 sub 0 k K0> prefetch
// CSP:          sched.entry kernel 47 #sched.op<load_b st 1 sub 0 k K1> prefetch
// CSP:          sched.entry kernel 55 #sched.op<load_a st 1 sub 0 k K1> prefetch

// -----
// Golden S3, ScheduleConfig()'s defaults (IDENTITY, auto waits) with lgkm 8/8: the derived waits differ from S1
// only at kernel entries 29 and 64 (wait_vm 12 instead of 6).
sched.build @s3 pingpong {auto_waits = true} lgkm 8 8
// S3-LABEL: sched.schedule @s3 stagger 4 {
// S3-NEXT:   sched.program prologue {
// S3-NEXT:     sched.entry prologue 0 #sched.op<load_a st 0 sub 0 k K0 vm 4 ch -1>
// S3-NEXT:     sched.entry prologue 1 #sched.op<load_b st 0 sub 0 k K0 vm 4 ch -1>
// S3-NEXT:     sched.entry prologue 2 #sched.op<load_b st 0 sub 1 k K0 vm 4 ch -1>
// S3-NEXT:     sched.entry prologue 3 #sched.op<load_a st 0 sub 1 k K0 vm 4 ch -1>
// S3-NEXT:     sched.entry prologue 4 #sched.op<wait_vm 0>
// S3-NEXT:     sched.entry prologue 5 #sched.op<barrier>
// S3-NEXT:     sched.entry prologue 6 #sched.op<load_a st 1 sub 0 k K1 vm 4 ch -1>
// S3-NEXT:     sched.entry prologue 7 #sched.op<load_b st 1 sub 0 k K1 vm 4 ch -1>
// S3-NEXT:     sched.entry prologue 8 #sched.op<load_b st 1 sub 1 k K1 vm 4 ch -1>
// S3-NEXT:     sched.entry prologue 9 #sched.op<wait_vm 0>
// S3-NEXT:   }
// S3-NEXT:   sched.program kernel {
// S3-NEXT:     sched.entry kernel 0 #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>
// S3-NEXT:     sched.entry kernel 1 #sched.op<mma_load_a st 0 sub 0 vgpr_def 8>
// S3-NEXT:     sched.entry kernel 2 #sched.op<load_a st 1 sub 1 k K_PREV>
// S3-NEXT:     sched.entry kernel 3 #sched.op<wait_lgkm 8>
// S3-NEXT:     sched.entry kernel 4 #sched.op<barrier>
// S3-NEXT:     sched.entry kernel 5 #sched.op<wait_lgkm 0>
// S3-NEXT:     sched.entry kernel 6 #sched.op<set_prio 1>
// S3-NEXT:     sched.entry kernel 7 #sched.op<mma st 0 sub 0 vgpr_def 4>
// S3-NEXT:     sched.entry kernel 8 #sched.op<set_prio 0>
// S3-NEXT:     sched.entry kernel 9 #sched.op<barrier>
// S3-NEXT:     sched.entry kernel 10 #sched.op<sched_barrier>
// S3:          sched.entry kernel 28 #sched.op<load_b st 0 sub 1 k K0> prefetch
// S3-NEXT:     sched.entry kernel 29 #sched.op<wait_vm 12>
// S3-NEXT:     sched.entry kernel 30 #sched.op<barrier>
// S3-NEXT:     sched.entry kernel 31 #sched.op<set_prio 1>
// S3-NEXT:     sched.entry kernel 32 #sched.op<mma st 1 sub 1 vgpr_def 4>
// S3-NEXT:     sched.entry kernel 33 #sched.op<set_prio 0>
// S3-NEXT:     sched.entry kernel 34 #sched.op<barrier>
// S3:          sched.entry kernel 63 #sched.op<load_b st 1 sub 1 k K1> prefetch
// S3-NEXT:     sched.entry kernel 64 #sched.op<wait_vm 12>
// S3-NEXT:     sched.entry kernel 65 #sched.op<barrier>
// S3-NEXT:     sched.entry kernel 66 #sched.op<set_prio 1>
// S3-NEXT:     sched.entry kernel 67 #sched.op<mma st 1 sub 1 vgpr_def 4>
// S3-NEXT:     sched.entry kernel 68 #sched.op<set_prio 0>
// S3-NEXT:     sched.entry kernel 69 #sched.op<barrier>
// S3-NEXT:   }
// S3:        sched.program epilogue trailing_barrier {
// S3:          sched.entry epilogue 52 #sched.op<set_prio 1>
// S3-NEXT:     sched.entry epilogue 53 #sched.op<mma st 1 sub 0 vgpr_def 4>
// S3-NEXT:     sched.entry epilogue 54 #sched.op<mma st 1 sub 1 vgpr_def 4>
// S3-NEXT:     sched.entry epilogue 55 #sched.op<set_prio 0>
// S3-NEXT:     sched.entry epilogue 56 #sched.op<barrier>
// S3-NEXT:     sched.entry epilogue 57 #sched.op<barrier>
// S3-NEXT:   }
// S3-NEXT: }

// -----
// Golden S4, the 4-wave kernel's default config, inside a module wrapper that the pass keeps.
module attributes {sched.target = "gfx950"} {
  sched.build @s4 four_wave
}
// S4-LABEL: module attributes {sched.target = "gfx950"} {
// S4-NEXT:   sched.schedule @s4 stagger 15 {
// S4-NEXT:     sched.program prologue {
// S4-NEXT:       sched.entry prologue 0 #sched.op<load_a st 0 sub 0 k K0 vm 2 ch -1>
// S4-NEXT:       sched.entry prologue 1 #sched.op<load_b st 0 sub 0 k K0 vm 2 ch -1>
// S4-NEXT:       sched.entry prologue 2 #sched.op<load_b st 0 sub 1 k K0 vm 2 ch -1>
// S4-NEXT:       sched.entry prologue 3 #sched.op<load_a st 0 sub 1 k K0 vm 2 ch -1>
// S4-NEXT:       sched.entry prologue 4 #sched.op<load_a st 1 sub 0 k K1 vm 2 ch -1>
// S4-NEXT:       sched.entry prologue 5 #sched.op<load_b st 1 sub 0 k K1 vm 2 ch -1>
// S4-NEXT:       sched.entry prologue 6 #sched.op<load_b st 1 sub 1 k K1 vm 2 ch -1>
// S4-NEXT:       sched.entry prologue 7 #sched.op<load_a st 1 sub 1 k K1 vm 2 ch -1>
// S4-NEXT:       sched.entry prologue 8 #sched.op<wait_vm 14>
// S4-NEXT:       sched.entry prologue 9 #sched.op<barrier>
// S4-NEXT:       sched.entry prologue 10 #sched.op<mma_load_a st 0 sub 0 res NONE lat 0>
// S4-NEXT:       sched.entry prologue 11 #sched.op<wait_vm 12>
// S4-NEXT:       sched.entry prologue 12 #sched.op<barrier>
// S4-NEXT:       sched.entry prologue 13 #sched.op<mma_load_b st 0 sub 0 res NONE lat 0>
// S4-NEXT:     }
// S4-NEXT:     sched.program kernel {
// S4-NEXT:       sched.entry kernel 0 #sched.op<sched_barrier>
// S4-NEXT:       sched.entry kernel 1 #sched.op<wait_vm 8>
// S4-NEXT:       sched.entry kernel 2 #sched.op<wait_lgkm 4>
// S4-NEXT:       sched.entry kernel 3 #sched.op<barrier>
// S4-NEXT:       sched.entry kernel 4 #sched.op<sched_barrier>
// S4-NEXT:       sched.entry kernel 5 #sched.op<mma_load_b st 0 sub 1 vgpr_def 8>
// S4-NEXT:       sched.entry kernel 6 #sched.op<sched_barrier>
// S4-NEXT:       sched.entry kernel 7 #sched.op<load_a st 0 sub 0 k K0>
// S4-NEXT:       sched.entry kernel 8 #sched.op<mma st 0 sub 0 vgpr_def 4>
// S4:            sched.entry kernel 56 #sched.op<mma st 1 sub 0 vgpr_def 4>
// S4-NEXT:       sched.entry kernel 57 #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>
// S4-NEXT:       sched.entry kernel 58 #sched.op<sched_barrier>
// S4-NEXT:       sched.entry kernel 59 #sched.op<load_a st 1 sub 1 k K1>
// S4-NEXT:       sched.entry kernel 60 #sched.op<sched_barrier>
// S4-NEXT:       sched.entry kernel 61 #sched.op<wait_vm 8>
// S4-NEXT:       sched.entry kernel 62 #sched.op<sched_barrier>
// S4-NEXT:       sched.entry kernel 63 #sched.op<mma st 1 sub 1 vgpr_def 4>
// S4-NEXT:     }
// S4:          sched.program epilogue trailing_barrier {
// S4:            sched.entry epilogue 26 #sched.op<wait_vm 0>
// S4-NEXT:       sched.entry epilogue 27 #sched.op<mma st 1 sub 0 vgpr_def 4>
// S4-NEXT:       sched.entry epilogue 28 #sched.op<wait_lgkm 0>
// S4-NEXT:       sched.entry epilogue 29 #sched.op<mma_load_b st 0 sub 0 vgpr_def 8>
// S4-NEXT:       sched.entry epilogue 30 #sched.op<mma st 1 sub 1 vgpr_def 4>
// S4-NEXT:       sched.entry epilogue 31 #sched.op<barrier>
// S4-NEXT:     }
// S4-NEXT:   }
// S4-NEXT: }
