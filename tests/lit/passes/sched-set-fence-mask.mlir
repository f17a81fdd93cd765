// RUN: %warpsched-opt %s --sched-set-fence-mask=mask=0b101 | FileCheck %s
// RUN: %warpsched-opt %s --sched-set-fence-mask | FileCheck %s --check-prefix=DEFAULT
// RUN: not %warpsched-opt %s --sched-expand-blocks --sched-set-fence-mask 2>&1 | FileCheck %s --check-prefix=EXPANDED
// RUN: not %warpsched-opt %s --sched-set-fence-mask=mask=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not %warpsched-opt %s --sched-set-fence-mask=colour=1 2>&1 | FileCheck %s --check-prefix=OPTION

// CHECK:      sched.block mma = #sched.op<mma st 0 sub 0> flags [trailing_sched_barrier]
// CHECK-NEXT: sched.block mma = #sched.op<mma st 0 sub 1>
// CHECK-NEXT: sched.block mma = #sched.op<mma st 1 sub 0> flags [trailing_sched_barrier]
// DEFAULT:      sched.block mma = #sched.op<mma st 0 sub 0> flags [trailing_sched_barrier]
// DEFAULT-NEXT: sched.block mma = #sched.op<mma st 0 sub 1>{{$}}
// DEFAULT-NEXT: sched.block mma = #sched.op<mma st 1 sub 0> flags [trailing_sched_barrier]
// EXPANDED: error: sched-set-fence-mask: needs unexpanded blocks; run it before sched-expand-blocks
// NEGATIVE: warpsched-opt: error: sched-set-fence-mask: mask must be non-negative, got -1
// OPTION: warpsched-opt: error: sched-set-fence-mask: unknown option 'colour' (options: mask)
sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>
  sched.block mma = #sched.op<mma st 0 sub 1> flags [trailing_sched_barrier]
  sched.block mma = #sched.op<mma st 1 sub 0>
}
