"""``sched.nv_gemm``, the short form of the fast sm_90a GEMM: its attributes (``config``)."""
