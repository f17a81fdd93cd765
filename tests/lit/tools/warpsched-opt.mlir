// The tool's conventions, as mlir-opt's.
// RUN: %warpsched-opt --sched-expand-blocks %s | FileCheck %s --check-prefix=EXPAND
// RUN: %warpsched-opt < %s | FileCheck %s --check-prefix=STDIN
// RUN: %warpsched-opt %s --sched-expand-blocks -o %t && FileCheck %s --check-prefix=EXPAND --input-file=%t
// RUN: %warpsched-opt %s --sched-set-fence-mask=mask=0 --sched-expand-blocks --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: %warpsched-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: %warpsched-opt --help | FileCheck %s --check-prefix=HELP
// RUN: not %warpsched-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not %warpsched-opt %t.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %warpsched-opt %s --pass-pipeline='builtin.module(sched-frobnicate)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %warpsched-opt %s --pass-pipeline='func.func(sched-expand-blocks)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// EXPAND:      sched.program kernel {
// EXPAND-NEXT:   sched.entry kernel 0 #sched.op<barrier>
// STDIN:       sched.block mma = #sched.op<mma st 0 sub 0>
// DUMP:        // -----// IR Dump After SetFenceMask (sched-set-fence-mask) //----- //
// DUMP-NEXT:   sched.program kernel {
// DUMP-NEXT:     sched.block mma = #sched.op<mma st 0 sub 0>
// DUMP:        // -----// IR Dump After ExpandBlocks (sched-expand-blocks) //----- //
// DUMP-NEXT:   sched.program kernel {
// DUMP-NEXT:     sched.entry kernel 0 #sched.op<barrier>
// LIST:        sched-build-program
// LIST:        sched-expand-blocks
// LIST:        sched-strip-fences{classes=sched-barrier,set-prio,sched-group}
// LIST:        sched-set-fence-mask{mask=85}
// HELP:        --split-input-file
// HELP:        --sched-expand-blocks
// FLAG:        error: unrecognized arguments: --no-such-flag
// MISSING:     error: cannot read input: No such file or directory
// UNKNOWN:     warpsched-opt: error: unknown pass 'sched-frobnicate' (passes: convert-nvvm-to-llvm, sched-build-program, sched-expand-blocks, sched-expand-gemm, sched-strip-fences, sched-set-fence-mask,
// ANCHOR:      warpsched-opt: error: pipeline must be anchored on builtin.module: 'func.func(sched-expand-blocks)'
sched.program kernel {
  sched.block mma = #sched.op<mma st 0 sub 0>
}
