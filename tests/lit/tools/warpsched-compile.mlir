// warpsched-compile and warpsched-translate: reports, fidelity, and bad flags as diagnostics.
// The module builds golden S1, which races on its kernel (docs/verify.md, the S1 verdict): the
// compiles that test reports, LDS limits and output errors pass --no-verify; VERIFY and
// S1VERIFY check the verifier.
// RUN: %warpsched-compile %s --target gfx950 -o %t.hsaco --report --check-fidelity --no-verify | FileCheck %s --check-prefix=REPORT
// RUN: not %warpsched-compile %s --target gfx950 -o %t.raced.hsaco 2>&1 | FileCheck %s --check-prefix=S1VERIFY
// RUN: not %warpsched-compile %s --target gfx942 --emit=ptx 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not %warpsched-compile %s --target gfx950 -O5 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not %warpsched-compile %s --target sm_90a --check-fidelity 2>&1 | FileCheck %s --check-prefix=NVFIDELITY
// RUN: %warpsched-compile %examples/ws_gemm_sm100a.mlir --target sm_100a -o %t.sm100a.cubin --report | FileCheck %s --check-prefix=NVREPORT100
// RUN: %warpsched-compile %examples/ws_gemm_sm90a.mlir --target sm_90a --emit=ptx -o %t.sm90a.ptx --report | FileCheck %s --check-prefix=NVREPORT90
// RUN: not %warpsched-compile %s --target gfx1100 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: rm -f %t.942.hsaco
// RUN: not %warpsched-compile %s --target gfx942 -o %t.942.hsaco --no-verify 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not ls %t.942.hsaco
// RUN: not %warpsched-compile %s --target gfx950 -o %t.missing/out.hsaco --no-verify 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: not %warpsched-translate --mlir-to-llvmir %s 2>&1 | FileCheck %s --check-prefix=TRANSLATE
// RUN: not %warpsched-translate %s 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not %warpsched-compile %S/../verify/arrival-count.mlir --target sm_90a --emit=mlir 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: %warpsched-compile %S/../verify/arrival-count.mlir --target sm_90a --emit=mlir --no-verify -o %t.noverify.mlir
// Without -o a binary is a flag error, checked before anything compiles, and nothing is written
// into the current directory; text goes to stdout.
// RUN: rm -rf %t.cwd && mkdir %t.cwd && cd %t.cwd && not %warpsched-compile %s --target gfx950 --no-verify 2>&1 | FileCheck %s --check-prefix=NOOUT
// RUN: not ls %t.cwd/warpsched-compile.hsaco
// RUN: cd %t.cwd && not %warpsched-compile %examples/hopper_gemm.mlir --target sm_90a 2>&1 | FileCheck %s --check-prefix=NOOUTNV
// RUN: not ls %t.cwd/hopper_gemm.cubin
// RUN: cd %t.cwd && %warpsched-compile %examples/four_wave_strict.mlir --target gfx950 --kernel four_wave --emit=asm | FileCheck %s --check-prefix=ASM
// RUN: env COLUMNS=400 %warpsched-compile --help | FileCheck %s --check-prefix=HELP

// NOOUT: warpsched-compile: error: the default artefact, hsaco, is a binary: name it with -o (e.g. -o warpsched-compile.hsaco; -o - writes it to stdout), or --emit a text stage (mlir, llvm, asm) for stdout
// NOOUTNV: warpsched-compile: error: the default artefact, cubin, is a binary: name it with -o (e.g. -o hopper_gemm.cubin; -o - writes it to stdout), or --emit a text stage (mlir, llvm, ptx) for stdout
// ASM: .amdgcn_target "amdgcn-amd-amdhsa--gfx950"
// HELP: -o OUTPUT {{.*}}output file ('-': stdout); required for a binary
// HELP: --report {{.*}}print the kernel's resources: AMD VGPRs
// HELP-SAME: NVIDIA the data path and the SASS summary
// HELP: --no-verify {{.*}}skip sched-verify, the protocol model checker that
// HELP-SAME: otherwise checks the module on a thread beside the lowering
// REPORT: kernel           k
// REPORT: arch             gfx950
// REPORT: scratch bytes    0
// REPORT: workgroup size   512
// REPORT: schedule fidelity 105/105 (100.0%)
// EMIT: error: --emit=ptx is not available for gfx942 (choose mlir, llvm, asm, obj, hsaco)
// OPT: error: -O5: the optimisation level must be 0, 1, 2 or 3
// NVFIDELITY: error: --check-fidelity reads AMD code objects; not available for sm_90a
// NVREPORT100: data path: tcgen05.mma.cta_group::1.kind::f16 into TMEM, TMA loads (128-byte swizzle), tcgen05.ld.32x32b epilogue, C through swizzled shared memory and a TMA store
// NVREPORT100-NEXT: SASS: 4 UTC*MMA, 4 LDTM, 2 UTMALDG, 4 UTMASTG, 0 LDL/STL, {{[0-9]+}} registers
// NVREPORT90: data path: mma.sync m16n8k16, plain loads, accumulators in shared memory
// NVREPORT90-NEXT: SASS: {{[0-9]+}} HMMA, 0 UTMALDG, 0 UTMASTG, 0 LDL/STL, {{[0-9]+}} registers
// TARGET: argument --target: invalid choice: 'gfx1100'
// VERIFY: arrival-count.mlir:{{[0-9]+}}:{{[0-9]+}}: error: sched-verify: arrival-count: full[0] of @ab
// VERIFY-NEXT: note: counterexample (arrival-count
// S1VERIFY: warpsched-compile.mlir:{{[0-9]+}}:3: error: sched-verify: prefetch-overwrite: LOAD overwrites half tile A[stage 0, half 0] while wave group 0 may still read it (kernel[19] (iteration 1) MMA_LOAD_A[st=0,sub=1])
// S1VERIFY-NEXT: note: counterexample (prefetch-overwrite, 3 steps)
// LDS: warpsched-compile.mlir:[[@LINE+7]]:3: error: sched-to-rocdl: @k on gfx942: TileShape: 131072 bytes of LDS exceed the 65536 bytes of gfx942
// WRITE: warpsched-compile: error: cannot write '{{.*}}out.hsaco'
// TRANSLATE: warpsched-compile.mlir:[[@LINE+4]]:3: error: 'sched.build' is warpsched IR, not the llvm dialect; lower it first with warpsched-opt --sched-to-rocdl or --sched-to-nvvm
// MODE: the following arguments are required: --mlir-to-llvmir

module {
  sched.build @s pingpong {auto_waits = false} lgkm 4 4
  sched.kernel @k schedule @s
}
