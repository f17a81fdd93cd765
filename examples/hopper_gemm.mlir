// A bf16 GEMM C = A·B (f32 accumulate, bf16 C) for the H100: TMA loads into a 3-stage ring,
// two cooperative consumer warpgroups on wgmma m64n256k16, setmaxnreg, a persistent grouped
// tile scheduler and a TMA-store epilogue (docs/hopper-gemm.md).  Every attribute is optional
// (HopperGemmConfig's defaults); `warpsched-tune` searches them per shape.
//
//   warpsched-compile examples/hopper_gemm.mlir --target sm_90a -o gemm.cubin
//   python -c "import warpsched.runtime as rt; ..."   (see README: warpsched.runtime)
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @hopper_gemm block_m 128 block_n 256 block_k 64 stages 3 consumers cooperative epilogue tma cluster_m 1 cluster_n 1 raster along_m group 8 a_layout row b_layout row out_dtype bf16
}
