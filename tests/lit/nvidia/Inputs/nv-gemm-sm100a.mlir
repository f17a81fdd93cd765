module attributes {sched.target = "sm_100a"} {
  sched.nv_gemm @gemm
}
