// sched.nv_gemm with split-K's reduce-scatter in 1x2 clusters: every run of a tile stores its
// partial, the leader of each warpgroup counts the run in on the tile's counter (red.add),
// waits until all runs are in (ld.acquire), counts itself out (atom.add) and, last out, lowers
// the counter; then every run sums its slice of the tile over all the partials and stores it
// from registers.  It expands into a stream_k_fixup with reduction scattered, reads back,
// verifies and compiles like the nv_gemm.
// RUN: %warpsched-opt --sched-expand-gemm %s -o %t.expanded.mlir
// RUN: FileCheck %s --check-prefix=IR --input-file %t.expanded.mlir
// RUN: %warpsched-opt %t.expanded.mlir | %warpsched-opt --mlir-print-op-generic | %warpsched-opt | diff - %t.expanded.mlir
// RUN: %warpsched-opt --sched-verify %t.expanded.mlir -o /dev/null
// RUN: %warpsched-compile %t.expanded.mlir --target sm_90a --emit=ptx -o %t.expanded.ptx
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o %t.ptx
// RUN: diff %t.ptx %t.expanded.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: sed -e 's/store_tile registers/store_tile tma/' %t.expanded.mlir > %t.tma.mlir
// RUN: not %warpsched-compile %t.tma.mlir --target sm_90a --emit=ptx -o %t.tma.ptx 2>&1 | FileCheck %s --check-prefix=TMA
// RUN: sed -e 's/decomposition split_k/decomposition stream_k/' %t.expanded.mlir > %t.sk.mlir
// RUN: not %warpsched-compile %t.sk.mlir --target sm_90a --emit=ptx -o %t.sk.ptx 2>&1 | FileCheck %s --check-prefix=STREAMK

// IR: sched.nv_tile_scheduler @tiles raster along_m group 8 decomposition split_k
// IR: sched.nv_stream_k_fixup reduction scattered {
// IR-NEXT: sched.nv_store_tile registers

// Every run stores its partial first, then the meeting on the counter, then the sums.
// CHECK: .visible .entry scattered(
// CHECK: fence.acq_rel.gpu; red.relaxed.gpu.global.add.u32 [{{%rd[0-9]+}}], 1;
// CHECK: ld.acquire.gpu.global.u32
// CHECK: atom.relaxed.gpu.global.add.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}], 1;
// CHECK: st.relaxed.gpu.global.u32 [{{%rd[0-9]+}}], 0;

// TMA: error: 'sched.nv_kernel' op cannot take the TMA + wgmma data path: split_reduction = scattered: every run stores its slice of the tile from registers (epilogue = registers) (sched.nv_stream_k_fixup's reduction)
// STREAMK: error: 'sched.nv_kernel' op cannot take the TMA + wgmma data path: split_reduction = scattered: sums a split-K tile's partials (decomposition = split_k, not stream_k) (sched.nv_stream_k_fixup's reduction)
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @scattered block_n 64 stages 8 cluster_n 2 decomposition split_k split_reduction scattered epilogue registers
}
