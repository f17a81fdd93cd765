// The runtime-proof kernel of examples/: it round-trips, and sched-to-nvvm lowers its four
// roles (WarpRole1D1D thread ranges) with mma.sync on sm_90a.
// RUN: %warpsched-opt %examples/ws_gemm_sm90a.mlir | %warpsched-opt --mlir-print-op-generic | %warpsched-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: %warpsched-opt %examples/ws_gemm_sm90a.mlir --sched-to-nvvm | FileCheck %s

// ROUNDTRIP: sched.nv_kernel @ws_gemm_sm_90a_per_tile_s2 layout warp_role_1d1d<has_sfb = false, num_epi_warps = 4> threads 224 block_m 32 block_n 32 block_k 32 {
// ROUNDTRIP: sched.nv_role scheduler {
// ROUNDTRIP: sched.nv_role load {
// ROUNDTRIP: sched.nv_role mma {
// ROUNDTRIP: sched.nv_role epilogue {

// CHECK-LABEL: module attributes {sched.target = "sm_90a"} {
// CHECK: llvm.func @ws_gemm_sm_90a_per_tile_s2(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 224, 1, 1>}
// CHECK-DAG: %[[C0:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[C128:.+]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-DAG: %[[C160:.+]] = llvm.mlir.constant(160 : i32) : i32
// CHECK-DAG: %[[C192:.+]] = llvm.mlir.constant(192 : i32) : i32
// CHECK-DAG: %[[C224:.+]] = llvm.mlir.constant(224 : i32) : i32
// CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: nvvm.fence.mbarrier.init
// The roles in the order of their bodies: scheduler, load, MMA, epilogue.
// CHECK: llvm.icmp "sge" %[[TID]], %[[C192]] : i32
// CHECK-NEXT: llvm.icmp "slt" %[[TID]], %[[C224]] : i32
// CHECK: nvvm.read.ptx.sreg.nctaid.x
// CHECK: llvm.icmp "sge" %[[TID]], %[[C128]] : i32
// CHECK-NEXT: llvm.icmp "slt" %[[TID]], %[[C160]] : i32
// CHECK: llvm.icmp "sge" %[[TID]], %[[C160]] : i32
// CHECK-NEXT: llvm.icmp "slt" %[[TID]], %[[C192]] : i32
// CHECK: "bar.arrive 1, 160;"
// CHECK: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK: llvm.icmp "sge" %[[TID]], %[[C0]] : i32
// CHECK-NEXT: llvm.icmp "slt" %[[TID]], %[[C128]] : i32
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %[[C160]]
// CHECK: llvm.return
