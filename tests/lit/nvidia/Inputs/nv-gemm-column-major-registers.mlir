module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @bad c_layout col epilogue registers
}
