// warpsched-run --interpret: the 4-wave schedule fixed for the per-wave rule computes A·B with no
// hazard; golden S4 does so only when a wave group's waves run as one stream (--visibility group),
// and has 12 cross-wave hazards under the default rule; S1 reports the entry-19 prefetch race.
// RUN: %PYTHON -m warpsched.tools.run --interpret %S/../../../examples/four_wave_strict.mlir | FileCheck %s --check-prefix=S4
// RUN: %PYTHON -m warpsched.tools.run --interpret %S/../../../examples/four_wave_body.mlir --visibility group | FileCheck %s --check-prefix=S4
// RUN: not %PYTHON -m warpsched.tools.run --interpret %S/../../../examples/four_wave_body.mlir 2>&1 | FileCheck %s --check-prefix=WAVE
// RUN: not %PYTHON -m warpsched.tools.run --interpret %S/../../../examples/pingpong_body.mlir --kernel pingpong_gfx950 2>&1 | FileCheck %s --check-prefix=S1
// RUN: not %PYTHON -m warpsched.tools.run --interpret %S/../../../examples/four_wave_body.mlir --k 100 2>&1 | FileCheck %s --check-prefix=SHAPE

// S4: four_wave: four_wave geometry, tile 128x128x64, 4 waves, gfx950 DMA 16 B/lane, K loop iterations 2, C 128x128: 0 hazard(s), C == A·B

// WAVE: four_wave_body.mlir:10:3: error: four_wave: {{.*}} 12 hazard(s), C != A·B (16384 elements differ)

// S1: pingpong_body.mlir:{{[0-9]+}}:{{[0-9]+}}: error: read of data whose producing load is not guaranteed complete and visible: kernel[19] (iteration 1) MMA_LOAD_A[st=0,sub=1] by waves 0, 1, 2, 3 (wave group 0) reads LDS written by kernel[12] (iteration 1) LOAD_A[st=0,sub=0,k=K0]
// S1: note: the load: kernel[12]
// S1: error: pingpong_gfx950: pingpong geometry, {{.*}} 4 hazard(s), C != A·B

// SHAPE: error: 'sched.kernel' op K must be a positive multiple of 2*BK = 128

// --target sets the DMA lanes: the fixed S1's bk = 32 kernel as sm_90a runs it (16-byte
// cp.async lanes) has no hazard; with gfx942's 4-byte lanes it races; sm_100a runs no AMD schedule.
// RUN: %PYTHON -m warpsched.tools.run --interpret %S/../../../examples/pingpong_fixed.mlir --kernel pingpong_gfx942 --target sm_90a | FileCheck %s --check-prefix=SM90
// RUN: not %PYTHON -m warpsched.tools.run --interpret %S/../../../examples/pingpong_fixed.mlir --kernel pingpong_gfx942 --target gfx942 2>&1 | FileCheck %s --check-prefix=GFX942
// RUN: not %PYTHON -m warpsched.tools.run --interpret %S/../../../examples/pingpong_fixed.mlir --kernel pingpong_gfx942 --target sm_100a 2>&1 | FileCheck %s --check-prefix=SM100
// SM90: pingpong_gfx942: pingpong geometry, tile 256x256x32, 8 waves, sm_90a DMA 16 B/lane, K loop iterations 2, C 256x256: 0 hazard(s), C == A·B
// GFX942: gfx942 DMA 4 B/lane, {{.*}} 2 hazard(s), C != A·B
// SM100: error: target 'sm_100a' runs no AMD schedule (gfx942, gfx950, sm_90a)
