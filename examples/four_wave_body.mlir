// 4-wave GEMM schedule (BF16 128x128x64 tile, MFMA 16x16x32), built from the library's body.
//
// Golden schedule S4 again, with the 4-wave kernel's default config (sched_barrier_mask
// 0xFF, wrapped waits); sched-build-program turns it into examples/four_wave.mlir.
// Build and expand it:  warpsched-opt --sched-build-program --sched-expand-blocks examples/four_wave_body.mlir
// The GEMM it drives: the 4-wave kernel, bf16 in, f32 C; it relies on lock step (docs/verify.md):
//   warpsched-compile FILE --target gfx950 --visibility group -o four_wave.gfx950.hsaco --report
module attributes {sched.target = "gfx950"} {
  sched.build @four_wave_128x128x64 four_wave
  sched.kernel @four_wave schedule @four_wave_128x128x64 {structure = four_wave}
}
