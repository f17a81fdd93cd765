// sched-to-nvvm: every protocol step of the output pipeline and the warp contexts
// (docs/mojo-semantics.md §B2-§B6), on a kernel with no data steps.  The target comes from the
// module attribute, or from the pass option, which overrides it.
// RUN: %warpsched-opt %s --sched-to-nvvm | FileCheck %s --check-prefixes=CHECK,SM100
// RUN: %warpsched-opt %s --pass-pipeline='builtin.module(sched-to-nvvm{target=sm_90a})' | FileCheck %s --check-prefixes=CHECK,SM90

// SM100-LABEL: module attributes {sched.target = "sm_100a"} {
// SM90-LABEL: module attributes {sched.target = "sm_90a"} {
// The barrier storage: full[0] @0, empty[0] @16, full[1] @8, empty[1] @24, dealloc @32.
// CHECK: llvm.mlir.global internal @__warpsched_smem() {addr_space = 3 : i32, alignment = 128 : i64}
// CHECK: llvm.func @protocol({{.*}}) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 160, 1, 1>}
// CHECK-DAG: %[[SMEM:.+]] = llvm.mlir.addressof @__warpsched_smem : !llvm.ptr<3>
// CHECK-DAG: %[[C0:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[C1:.+]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[C2:.+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG: %[[C8:.+]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-DAG: %[[C16:.+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-DAG: %[[C24:.+]] = llvm.mlir.constant(24 : i32) : i32
// CHECK-DAG: %[[C32:.+]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-DAG: %[[C128:.+]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-DAG: %[[C160:.+]] = llvm.mlir.constant(160 : i32) : i32
// SM100-DAG: %[[C512:.+]] = llvm.mlir.constant(512 : i32) : i32

// ---- one thread initialises every barrier -------------------------------------------------
// CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[T0:.+]] = llvm.icmp "eq" %[[TID]], %[[C0]] : i32
// CHECK-NEXT: llvm.cond_br %[[T0]]
// full[s]: one arrival, the MMA warp's tcgen05.commit (sm_100a) or each MMA lane (sm_90a).
// CHECK: %[[FULL0:.+]] = llvm.getelementptr %[[SMEM]][%[[C0]]]
// SM100-NEXT: nvvm.mbarrier.init %[[FULL0]], %[[C1]] : !llvm.ptr<3>, i32
// SM90-NEXT: nvvm.mbarrier.init %[[FULL0]], %[[C32]] : !llvm.ptr<3>, i32
// empty[s]: cta_group * 128 epilogue threads.
// CHECK-NEXT: %[[EMPTY0:.+]] = llvm.getelementptr %[[SMEM]][%[[C16]]]
// CHECK-NEXT: nvvm.mbarrier.init %[[EMPTY0]], %[[C128]] : !llvm.ptr<3>, i32
// CHECK-NEXT: %[[FULL1:.+]] = llvm.getelementptr %[[SMEM]][%[[C8]]]
// SM100-NEXT: nvvm.mbarrier.init %[[FULL1]], %[[C1]] : !llvm.ptr<3>, i32
// SM90-NEXT: nvvm.mbarrier.init %[[FULL1]], %[[C32]] : !llvm.ptr<3>, i32
// CHECK-NEXT: %[[EMPTY1:.+]] = llvm.getelementptr %[[SMEM]][%[[C24]]]
// CHECK-NEXT: nvvm.mbarrier.init %[[EMPTY1]], %[[C128]] : !llvm.ptr<3>, i32
// The TMEM dealloc barrier: every epilogue thread.
// CHECK-NEXT: %[[DEALLOC:.+]] = llvm.getelementptr %[[SMEM]][%[[C32]]]
// CHECK-NEXT: nvvm.mbarrier.init %[[DEALLOC]], %[[C128]] : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier0

// ---- role dispatch: the MMA role is threads [128, 160) -------------------------------------
// CHECK-NEXT: %[[GE:.+]] = llvm.icmp "sge" %[[TID]], %[[C128]] : i32
// CHECK-NEXT: %[[LT:.+]] = llvm.icmp "slt" %[[TID]], %[[C160]] : i32
// CHECK-NEXT: %[[IN:.+]] = llvm.and %[[GE]], %[[LT]] : i1
// CHECK-NEXT: llvm.cond_br %[[IN]]
// The producer end starts at stage 0, phase 1; the consumer end at stage 0, phase 0.
// CHECK: llvm.store %[[C0]], %[[PSTAGE:[0-9]+]] : i32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[C1]], %[[PPHASE:[0-9]+]] : i32, !llvm.ptr

// ---- MMA context entry: allocate TMEM, publish it on named barrier 1 -----------------------
// SM100: %[[SLOT:.+]] = llvm.getelementptr %[[SMEM]]
// SM100-NEXT: nvvm.tcgen05.alloc %[[SLOT]], %[[C512]] : !llvm.ptr<3>, i32
// SM100-NEXT: nvvm.bar.warp.sync
// SM100-NEXT: %[[TMEM:.+]] = llvm.load %[[SLOT]] : !llvm.ptr<3> -> i32
// SM100-NEXT: nvvm.tcgen05.fence <before>
// SM90-NOT: tcgen05
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "bar.arrive 1, 160;"

// ---- acquire_for_mma: spin on empty[ps] at the producer phase -------------------------------
// CHECK-NEXT: %[[PS:.+]] = llvm.load %[[PSTAGE]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[POFF:.+]] = llvm.mul %[[PS]], %[[C8]] : i32
// CHECK-NEXT: %[[EOFF:.+]] = llvm.add %[[C16]], %[[POFF]] : i32
// CHECK-NEXT: %[[EMPTY:.+]] = llvm.getelementptr %[[SMEM]][%[[EOFF]]]
// CHECK-NEXT: %[[PPH:.+]] = llvm.load %[[PPHASE]] : !llvm.ptr -> i32
// CHECK-NEXT: llvm.br ^[[SPIN1:bb[0-9]+]]
// CHECK-NEXT: ^[[SPIN1]]:
// CHECK-NEXT: %[[READY1:.+]] = nvvm.mbarrier.try_wait %[[EMPTY]], %[[PPH]] : !llvm.ptr<3>, i32 -> i1
// CHECK-NEXT: llvm.cond_br %[[READY1]], ^{{bb[0-9]+}}, ^[[SPIN1]]

// ---- release_from_mma: signal full[ps], then producer_step ----------------------------------
// CHECK: %[[PS2:.+]] = llvm.load %[[PSTAGE]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[FOFF:.+]] = llvm.mul %[[PS2]], %[[C8]] : i32
// CHECK-NEXT: %[[FULL:.+]] = llvm.getelementptr %[[SMEM]][%[[FOFF]]]
// SM100-NEXT: nvvm.bar.warp.sync
// SM100-NEXT: %[[ELECT:.+]] = nvvm.elect.sync -> i1
// SM100-NEXT: llvm.cond_br %[[ELECT]]
// SM100: nvvm.tcgen05.commit %[[FULL]] : !llvm.ptr<3>
// SM90-NEXT: nvvm.mbarrier.arrive %[[FULL]] : !llvm.ptr<3>
// CHECK: %[[PS3:.+]] = llvm.load %[[PSTAGE]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[NEXT:.+]] = llvm.add %[[PS3]], %[[C1]] : i32
// CHECK-NEXT: %[[WRAP:.+]] = llvm.icmp "eq" %[[NEXT]], %[[C2]] : i32
// CHECK-NEXT: %[[NS:.+]] = llvm.select %[[WRAP]], %[[C0]], %[[NEXT]] : i1, i32
// CHECK-NEXT: llvm.store %[[NS]], %[[PSTAGE]] : i32, !llvm.ptr
// CHECK-NEXT: %[[FLIP:.+]] = llvm.zext %[[WRAP]] : i1 to i32
// CHECK-NEXT: %[[OLDPH:.+]] = llvm.load %[[PPHASE]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[NEWPH:.+]] = llvm.xor %[[OLDPH]], %[[FLIP]] : i32
// CHECK-NEXT: llvm.store %[[NEWPH]], %[[PPHASE]] : i32, !llvm.ptr

// ---- MMA context exit: relinquish, wait for the epilogue (phase 0), dealloc -----------------
// SM100-NEXT: nvvm.tcgen05.relinquish_alloc_permit
// CHECK-NEXT: %[[DB:.+]] = llvm.getelementptr %[[SMEM]][%[[C32]]]
// CHECK-NEXT: llvm.br ^[[SPIN2:bb[0-9]+]]
// CHECK-NEXT: ^[[SPIN2]]:
// CHECK-NEXT: %[[READY2:.+]] = nvvm.mbarrier.try_wait %[[DB]], %[[C0]] : !llvm.ptr<3>, i32 -> i1
// CHECK-NEXT: llvm.cond_br %[[READY2]], ^{{bb[0-9]+}}, ^[[SPIN2]]
// SM100: %[[TPTR:.+]] = llvm.inttoptr %[[TMEM]] : i32 to !llvm.ptr<6>
// SM100-NEXT: nvvm.tcgen05.dealloc %[[TPTR]], %[[C512]] : !llvm.ptr<6>, i32

// ---- role dispatch: the epilogue role is threads [0, 128) ----------------------------------
// CHECK: llvm.icmp "sge" %[[TID]], %[[C0]] : i32
// CHECK-NEXT: llvm.icmp "slt" %[[TID]], %[[C128]] : i32
// CHECK: llvm.store %[[C0]], %{{[0-9]+}} : i32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[C1]], %{{[0-9]+}} : i32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[C0]], %[[CSTAGE:[0-9]+]] : i32, !llvm.ptr
// CHECK-NEXT: llvm.store %[[C0]], %[[CPHASE:[0-9]+]] : i32, !llvm.ptr

// ---- the Sync wait: bar.sync 1 over the 32 MMA + 128 epilogue threads ----------------------
// CHECK: nvvm.barrier id = %[[C1]] number_of_threads = %[[C160]]
// Order the MMA warp's TMEM allocation (fenced before its bar.arrive) before TMEM use.
// SM100-NEXT: nvvm.tcgen05.fence <after>

// ---- acquire_for_epilogue: spin on full[cs] at the consumer phase --------------------------
// CHECK-NEXT: %[[CS:.+]] = llvm.load %[[CSTAGE]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[COFF:.+]] = llvm.mul %[[CS]], %[[C8]] : i32
// CHECK-NEXT: %[[CFULL:.+]] = llvm.getelementptr %[[SMEM]][%[[COFF]]]
// CHECK-NEXT: %[[CPH:.+]] = llvm.load %[[CPHASE]] : !llvm.ptr -> i32
// CHECK-NEXT: llvm.br ^[[SPIN3:bb[0-9]+]]
// CHECK-NEXT: ^[[SPIN3]]:
// CHECK-NEXT: %[[READY3:.+]] = nvvm.mbarrier.try_wait %[[CFULL]], %[[CPH]] : !llvm.ptr<3>, i32 -> i1
// CHECK-NEXT: llvm.cond_br %[[READY3]], ^{{bb[0-9]+}}, ^[[SPIN3]]

// ---- epilogue_arrive: every epilogue thread arrives on empty[cs] ---------------------------
// CHECK: %[[CS2:.+]] = llvm.load %[[CSTAGE]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[COFF2:.+]] = llvm.mul %[[CS2]], %[[C8]] : i32
// CHECK-NEXT: %[[CEOFF:.+]] = llvm.add %[[C16]], %[[COFF2]] : i32
// CHECK-NEXT: %[[CEMPTY:.+]] = llvm.getelementptr %[[SMEM]][%[[CEOFF]]]
// CHECK-NEXT: nvvm.mbarrier.arrive %[[CEMPTY]] : !llvm.ptr<3>

// ---- release_from_epilogue: consumer_step only ---------------------------------------------
// CHECK-NEXT: %[[CS3:.+]] = llvm.load %[[CSTAGE]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[CNEXT:.+]] = llvm.add %[[CS3]], %[[C1]] : i32
// CHECK-NEXT: %[[CWRAP:.+]] = llvm.icmp "eq" %[[CNEXT]], %[[C2]] : i32
// CHECK-NEXT: %[[CNS:.+]] = llvm.select %[[CWRAP]], %[[C0]], %[[CNEXT]] : i1, i32
// CHECK-NEXT: llvm.store %[[CNS]], %[[CSTAGE]] : i32, !llvm.ptr
// CHECK-NEXT: %[[CFLIP:.+]] = llvm.zext %[[CWRAP]] : i1 to i32
// CHECK-NEXT: %[[COLD:.+]] = llvm.load %[[CPHASE]] : !llvm.ptr -> i32
// CHECK-NEXT: %[[CNEW:.+]] = llvm.xor %[[COLD]], %[[CFLIP]] : i32
// CHECK-NEXT: llvm.store %[[CNEW]], %[[CPHASE]] : i32, !llvm.ptr

// ---- epilogue context exit: signal_complete on the dealloc barrier -------------------------
// CHECK-NEXT: %[[DB2:.+]] = llvm.getelementptr %[[SMEM]][%[[C32]]]
// CHECK-NEXT: nvvm.mbarrier.arrive %[[DB2]] : !llvm.ptr<3>
// CHECK: llvm.return

module attributes {sched.target = "sm_100a"} {
  sched.nv_kernel @protocol layout custom<epilogue = [0, 128), mma = [128, 160)> threads 160 block_m 32 block_n 32 block_k 32 {
    sched.nv_output_pipeline @acc num_stages 2 stage_stride_cols 32 cta_group 1
    sched.nv_role mma {
      sched.nv_mma_context @acc {
        sched.nv_output_produce @acc {
        }
      }
    }
    sched.nv_role epilogue {
      sched.nv_sync_wait
      sched.nv_epilogue_context @acc {
        sched.nv_output_consume @acc {
          sched.nv_epilogue_arrive @acc
        }
      }
    }
  }
}
