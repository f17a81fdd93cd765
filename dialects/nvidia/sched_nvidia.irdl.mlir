// The NVIDIA half of the `sched` dialect: warp-specialized kernels (mojo-semantics Part B).
//
// dialects/registry.py merges these ops into the `irdl.dialect @sched` of amd/sched.irdl.mlir,
// so MLIR loads a single `sched` dialect.  Every op is named `nv_<op>` and maps 1:1 onto a
// class of the program model (warpsched.nvidia.program.kernel; dialects/nvidia/specs.py SPECS).
// IRDL checks the presence and kind of each attribute, operand and result;
// dialects/nvidia/verify.py checks the semantics (layouts and launch, pipeline references,
// which role may run an op, the Sync wait, linear use of stages).  Pipeline references
// are string attributes holding the pipeline's symbol name.  (An IRDL constraint value binds
// one attribute, so each attribute has its own `irdl.base`.)
//
// Region ops are `builtin.module` containers carrying one marker attribute, named after the
// op, whose value is the dictionary of the op's parameters:
//   sched.nv_kernel          {sym_name, layout, threads, block_m, block_n, block_k}
//   sched.nv_role            {role}
//   sched.nv_tile_loop       {pipeline, side}
//   sched.nv_k_loop          {}
//   sched.nv_input_produce, sched.nv_input_consume, sched.nv_output_produce,
//   sched.nv_output_consume, sched.nv_per_k_produce, sched.nv_per_k_consume,
//   sched.nv_mma_context, sched.nv_epilogue_context         {pipeline}
//   sched.nv_per_k_epilogue  {pipeline, input_pipeline}
// IRDL in MLIR 22 can declare neither a NoTerminator region nor a terminator op (a block
// ending in an IRDL op is rejected with "block with no terminator"), so an IRDL region op
// could never hold a verifiable body.  Containers are isolated from above, which the
// linear-use verifier relies on: a stage value never leaves the block that acquired it.

irdl.dialect @sched {
  // A linear accumulator stage held by the MMA warp (MmaStage).
  irdl.type @nv_mma_stage
  // A linear accumulator stage held by the epilogue warps (EpilogueStage).
  irdl.type @nv_epilogue_stage

  // A Hopper GEMM kernel (warpsched.nvidia.datapaths.wgmma): its symbol; the tuning attributes
  // (block_m, stages, consumers, epilogue, ...: HopperGemmConfig's fields, integers and
  // strings) are optional and checked by dialects/nvidia/verify.py.
  irdl.operation @nv_gemm {
    %name = irdl.base "#builtin.string"
    irdl.attributes { "sym_name" = %name }
  }
  // A ProducerConsumerPipeline[num_stages] with the arrival counts of init_mbars and what
  // its stages hold (payload: "ab_tiles" or "tile_id").
  irdl.operation @nv_input_pipeline {
    %name = irdl.base "#builtin.string"
    %stages = irdl.base "#builtin.integer"
    %producers = irdl.base "#builtin.integer"
    %consumers = irdl.base "#builtin.integer"
    %payload = irdl.base "#builtin.string"
    irdl.attributes { "sym_name" = %name, "num_stages" = %stages, "producer_count" = %producers,
                      "consumer_count" = %consumers, "payload" = %payload }
  }
  // An OutputTilePipeline: OutputPipelineConfig(num_stages, stage_stride_cols, cta_group).
  // Optional integer attributes producer_count / consumer_count override the init counts.
  irdl.operation @nv_output_pipeline {
    %name = irdl.base "#builtin.string"
    %stages = irdl.base "#builtin.integer"
    %stride = irdl.base "#builtin.integer"
    %cta_group = irdl.base "#builtin.integer"
    irdl.attributes { "sym_name" = %name, "num_stages" = %stages, "stage_stride_cols" = %stride,
                      "cta_group" = %cta_group }
  }
  // acquire_for_mma: spin on empty[producer_stage] at the producer phase.
  irdl.operation @nv_acquire_for_mma {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // release_from_mma: elected lane signals full[producer_stage], producer_step.
  irdl.operation @nv_release_from_mma {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // acquire_for_epilogue: spin on full[consumer_stage] at the consumer phase.
  irdl.operation @nv_acquire_for_epilogue {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // release_from_epilogue: consumer_step only (no arrive).
  irdl.operation @nv_release_from_epilogue {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // AccumBarrier.arrive: every epilogue thread arrives on empty[consumer_stage].
  irdl.operation @nv_epilogue_arrive {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // data: copy this tile's k-slice of A and B into the producer stage.
  irdl.operation @nv_load_input_stage {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // data: MMA accumulator -> the acquired output stage.
  irdl.operation @nv_store_accumulator {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // data: the acquired output stage -> this tile of C.
  irdl.operation @nv_drain_stage_to_c {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // data: epilogue registers += the acquired output stage (per-K).
  irdl.operation @nv_accumulate_stage {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // data: write the next tile id into the tile-id pipeline's producer slot.
  irdl.operation @nv_fetch_next_tile {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "pipeline" = %string }
  }
  // EpilogueKStage.arrive_input: one lane per warp arrives on the input empty[stage].
  irdl.operation @nv_arrive_input {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "input_pipeline" = %string }
  }
  // data: accumulator += A_s @ B_s^T from the input consumer stage.
  irdl.operation @nv_mma_tile_product {
    %string = irdl.base "#builtin.string"
    irdl.attributes { "input_pipeline" = %string }
  }
  // acquire_mma_linear / acquire_epilogue_linear: acquire_for_mma / acquire_for_epilogue,
  // giving a stage value that must be released exactly once (sched.nv_release_stage).
  irdl.operation @nv_acquire_mma_linear {
    %string = irdl.base "#builtin.string"
    %stage = irdl.base @sched::@nv_mma_stage
    irdl.attributes { "pipeline" = %string }
    irdl.results(stage: %stage)
  }
  irdl.operation @nv_acquire_epilogue_linear {
    %string = irdl.base "#builtin.string"
    %stage = irdl.base @sched::@nv_epilogue_stage
    irdl.attributes { "pipeline" = %string }
    irdl.results(stage: %stage)
  }
  // MmaStage.release() (release_from_mma) / EpilogueStage.release() (release_from_epilogue).
  // The operand is declared `irdl.any`: MLIR 22 aborts on `irdl.any_of` over two `irdl.base`
  // type constraints ("unknown IRDL constraint"), so nvidia/linear_use.py checks that it is a stage.
  irdl.operation @nv_release_stage {
    %stage = irdl.any
    irdl.operands(stage: %stage)
  }
  // WarpGroupBarrier[mma + epilogue threads, 1].wait(): bar.sync 1, n.
  irdl.operation @nv_sync_wait {
  }
  // data: the MMA warp's accumulator := 0.
  irdl.operation @nv_zero_accumulator {
  }
  // data: the epilogue's registers := 0 (per-K).
  irdl.operation @nv_zero_epilogue_accumulator {
  }
  // data: the epilogue's registers -> this tile of C (per-K).
  irdl.operation @nv_store_c {
  }
}
