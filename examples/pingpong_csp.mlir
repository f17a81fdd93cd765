// Ping-pong double-buffer GEMM schedule S2: the reference's production schedule.
//
// Golden S2 (docs/golden-expansions.md): build_schedule[False,8,8]() on
// mi355x_target(), whose default config is CSP + auto waits.  A sched.build without knobs is
// the family's default, so the op below is exactly that call; the CSP solver
// (optimal_schedule_with_halves) orders the body, and it puts the B prefetch before the A
// prefetch of each stage (kernel entries 12/20 and 47/55, and the prologue) where S3 has A first.
// Build and expand it:  warpsched-opt --sched-build-program --sched-expand-blocks examples/pingpong_csp.mlir
// The GEMM it drives (sched.kernel): C[M,N] f32 = A[M,K] bf16 row-major x B[K,N] bf16 col-major,
// 256x256x64 on gfx950 and 256x256x32 on gfx942 (64 KiB of LDS).
// sched-verify rejects it in every mode (docs/verify.md, "The S2 verdict"): both prefetches the
// CSP placed in kernel blocks 1 and 2 refill half tiles that are still being read, and the
// derived wait_vm(12) retires the K_PREV load after its read.  The fixed variant is
// examples/pingpong_csp_fixed.mlir.  Compile the reference's schedule anyway:
//   warpsched-compile FILE --target gfx950 --kernel pingpong_gfx950 --no-verify --check-fidelity -o s2.hsaco
module attributes {sched.target = "gfx950"} {
  sched.build @pingpong_256x256x64 pingpong lgkm 8 8
  sched.kernel @pingpong_gfx950 schedule @pingpong_256x256x64 {a_layout = row, b_layout = col, in_dtype = bf16, out_dtype = f32}
  sched.kernel @pingpong_gfx942 schedule @pingpong_256x256x64 {bk = 32}
}
