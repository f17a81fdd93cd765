// Failures of the lowering itself: the target's LDS, an s_waitcnt field, an unknown target.
// RUN: %warpsched-opt --split-input-file --verify-diagnostics --sched-expand-blocks "--sched-to-rocdl=target=gfx942" %s

module {
  sched.schedule @s stagger 0 {
    sched.program kernel {
      sched.block mma = #sched.op<mma st 0 sub 0>
    }
  }
  // expected-error@+1 {{@k on gfx942: TileShape: 131072 bytes of LDS exceed the 65536 bytes of gfx942; reduce bk, bm or bn}}
  sched.kernel @k schedule @s
}
