// Ping-pong double-buffer GEMM schedule, built from the library's declarative body.
//
// Golden schedule S1 again, but written as what to build rather than what was built: the
// reference's DeclarativeSchedule[False,4,4] with ScheduleConfig(auto_waits=False).
// sched-build-program turns it into examples/pingpong.mlir (prologue, kernel, epilogue).
// Build and expand it:  warpsched-opt --sched-build-program --sched-expand-blocks examples/pingpong_body.mlir
// The GEMM it drives (sched.kernel): C[M,N] f32 = A[M,K] bf16 row-major x B[K,N] bf16 col-major.
// gfx950 runs the reference's 256x256x64 tile; gfx942's 64 KiB of LDS holds two stages of
// 256x256x32 only, hence a second kernel with bk = 32.  sched-verify rejects it (docs/verify.md):
//   warpsched-compile FILE --target gfx950 --kernel pingpong_gfx950 --no-verify -o pingpong.gfx950.hsaco
module attributes {sched.target = "gfx950"} {
  sched.build @pingpong_256x256x64 pingpong {auto_waits = false} lgkm 4 4
  sched.kernel @pingpong_gfx950 schedule @pingpong_256x256x64 {a_layout = row, b_layout = col, in_dtype = bf16, out_dtype = f32}
  sched.kernel @pingpong_gfx942 schedule @pingpong_256x256x64 {bk = 32}
}
