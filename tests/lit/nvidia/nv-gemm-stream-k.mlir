// sched.nv_gemm with decomposition = stream_k: the last full wave and the partial one are cut
// into equal k-block runs, and a tile split between two CTAs is summed through the workspace
// (the ninth parameter): the head writes its partial sums and raises a flag with release
// semantics, the tail spins on an acquire load, resets the flag and adds the partial.
// RUN: %warpsched-opt %s | %warpsched-opt --mlir-print-op-generic | %warpsched-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o - | FileCheck %s --check-prefix=PTX

// ROUNDTRIP: sched.nv_gemm @stream_k_gemm stages 3 decomposition stream_k

// PTX: .visible .entry stream_k_gemm(
// PTX: .param .u64 .ptr .global .align 1 stream_k_gemm_param_8
// PTX: ld.param.b64 {{.*}}[stream_k_gemm_param_8];
// The head's partial sums (128 floats a thread, 16 bytes a store), then its warpgroup's barrier;
// PTX-COUNT-32: st.global.v4.b32
// PTX: bar.sync {{.*}}, 128;
// the mainloop; the tail's acquire spin, the flag's reset, the barrier and the partial's loads;
// PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX: ld.acquire.gpu.global.u32
// PTX: st.relaxed.gpu.global.u32 [%rd{{[0-9]+}}], 0;
// PTX: bar.sync {{.*}}, 128;
// PTX-COUNT-32: ld.global.v4.b32
// the TMA-store epilogue, and the head's release of its flag.
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: fence.acq_rel.gpu; st.relaxed.gpu.global.u32 [%rd{{[0-9]+}}], 1;

module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @stream_k_gemm stages 3 decomposition stream_k
}
