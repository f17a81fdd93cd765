// Ping-pong double-buffer GEMM schedule, built from the library's declarative body.
//
// Golden schedule S1 again, but written as what to build rather than what was built: the
// reference's DeclarativeSchedule[False,4,4] with ScheduleConfig(auto_waits=False).
// sched-build-program turns it into examples/pingpong.mlir (prologue, kernel, epilogue).
// Build and expand it:  warpsched-opt --sched-build-program --sched-expand-blocks examples/pingpong_body.mlir
module attributes {sched.target = "gfx950"} {
  sched.build @pingpong_256x256x64 pingpong {auto_waits = false} lgkm 4 4
}
