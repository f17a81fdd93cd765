// sched.nv_gemm with a 2x1 cluster: the two CTAs of a cluster compute vertically adjacent tiles
// and share B.  Each rank loads A itself and multicasts its half of B's boxes to both CTAs;
// releases arrive on the stage's empty barrier in both CTAs; barrier.cluster follows the
// barrier init and precedes the exit.  sched-verify (on by default) passes it.
// RUN: %warpsched-compile %s --target sm_90a --emit=ptx -o - | FileCheck %s

// CHECK: .visible .entry pair(
// CHECK: mbarrier.init.shared.b64
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: mov.u32 {{%r[0-9]+}}, %cluster_ctarank;
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// The consumer releases the stage here and in the peer CTA.
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared.b64
// CHECK: mapa.shared::cluster.u32 r, {{%r[0-9]+}}, {{%r[0-9]+}}; mbarrier.arrive.shared::cluster.b64 _, [r];
// The producer (its rank-1 branch is laid out first): each rank multicasts its B box to both
// CTAs (mask 3) after arming the stage for all 32 KiB and loading A into its own stage.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: mov.b16 [[MASK1:%rs[0-9]+]], 3;
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}], [[MASK1]];
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 32768;
// CHECK-NEXT: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{.+}}], [[BYTES]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// CHECK: mov.b16 [[MASK0:%rs[0-9]+]], 3;
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster {{.+}}, [[MASK0]];
// CHECK: barrier.cluster.arrive;
// CHECK-NEXT: barrier.cluster.wait;
// CHECK-NEXT: ret;
module attributes {sched.target = "sm_90a"} {
  sched.nv_gemm @pair block_m 128 block_n 128 stages 4 cluster_m 2
}
