module {
  sched.nv_gemm @gemm consumers sideways
}
