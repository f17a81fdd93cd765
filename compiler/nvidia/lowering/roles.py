"""Lowering of one role's body (``RoleLowering``): each program-model step → nvvm ops, by the
protocol in ``kernel``'s docstring and ``docs/nvidia-lowering.md``; data steps go to the data
path ``datapaths.select`` chose."""

from __future__ import annotations

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.select import data_path
from warpsched.nvidia.lowering.contexts import ContextLowering
from warpsched.nvidia.lowering.errors import LoweringError
from warpsched.nvidia.lowering.pipeline_state import PipelineEnd, StageState
from warpsched.nvidia.program.roles import Role
from warpsched.nvidia.program.smem_layout import SmemLayout
from warpsched.nvidia.ptx.nvvm_ops import NvvmEmitter

TILE_END = -1
"""The tile id that ends a tile loop."""


class RoleLowering(ContextLowering):
    """Lowers the steps of one role's body; owns that role's pipeline states and registers."""

    def __init__(self, kernel: P.Kernel, role: Role, em: NvvmEmitter, smem: SmemLayout) -> None:
        self.k, self.role, self.em, self.smem = kernel, role, em, smem
        self.cfg = kernel.output_pipeline.config
        self.data = data_path(kernel, em, smem)
        self.ends: dict[tuple[str, P.Side], PipelineEnd] = {}
        pipelines = [(p.name, p.config.num_stages) for p in kernel.input_pipelines]
        pipelines.append((kernel.output_pipeline.name, self.cfg.num_stages))
        for name, stages in pipelines:
            for side in P.Side:
                self.ends[name, side] = PipelineEnd(
                    smem.barriers[name], StageState.create(em, side, stages)
                )
        self.tile = em.var(TILE_END)
        self.k_block = em.var(0)
        self.fetch_count = em.var(0)
        self.mma_acc = em.var(ty=self.data.acc_type, count=self.data.acc_count)
        self.epi_acc = em.var(ty="f32", count=self.data.epi_count(kernel.epilogue_threads))
        self.thread = em.w.addi(em.sreg("tid.x"), -kernel.layout.range_of(role).start)
        self.linear: dict[str, P.Side] = {}
        self.input_stage: dict[str, str] = {}

    # ---- dispatch ----------------------------------------------------------------------------
    def steps(self, steps: tuple[P.Step, ...]) -> None:
        for step in steps:
            handler = getattr(self, f"_{type(step).__name__}", None)
            if handler is None:
                raise LoweringError(
                    f"role '{self.role.value}': no lowering for {type(step).__name__}"
                )
            handler(step)

    def _end(self, pipeline: str, side: P.Side) -> PipelineEnd:
        return self.ends[pipeline, side]

    def _consumer_arrive(self, empty: str) -> None:
        """Arrive on an input stage's ``empty``; with cta_group 2 the leader's MMA warp arrives
        on the peer CTA's barrier too (the peer's MMA warp does not run its body)."""
        self.em.mbarrier_arrive(empty)
        if self.role is Role.MMA and self.data.mirror_to_peer:
            self.em.arrive_peer_cta(empty)

    # ---- loops -------------------------------------------------------------------------------
    def _TileLoop(self, s: P.TileLoop) -> None:
        em, w = self.em, self.em.w
        end = self._end(s.pipeline, s.side)
        slots = self.smem.tile_slots.get(s.pipeline)
        if slots is None:
            raise LoweringError(
                f"role '{self.role.value}': tile_loop needs a tile_id pipeline, "
                f"'{s.pipeline}' is not one"
            )
        head, done = em.label("tile_head"), em.label("tile_done")
        em.store(w.const(0), self.fetch_count)
        em.br(head)
        em.open(head)
        if s.side is P.Side.PRODUCER:
            stage = end.wait_consumer(em)
            self.steps(s.body)
            em.mbarrier_arrive(end.full(em, stage))
            end.state.step(em)
            em.store(w.addi(em.load(self.fetch_count), 1), self.fetch_count)
            em.cond_br(w.icmp("slt", em.load(self.tile), w.const(0)), done, head)
        else:
            body = em.label("tile_body")
            stage = end.wait_producer(em)
            tile = em.load(
                em.smem_at(w.add(w.const(slots), w.muli(stage, 4))), "i32", "!llvm.ptr<3>"
            )
            em.store(tile, self.tile)
            self._consumer_arrive(end.empty(em, stage))
            end.state.step(em)
            em.cond_br(w.icmp("slt", tile, w.const(0)), done, body)
            em.open(body)
            self.steps(s.body)
            em.br(head)
        em.open(done)

    def _FetchNextTile(self, s: P.FetchNextTile) -> None:
        em, w = self.em, self.em.w
        first, stride = self.data.tile_sequence()
        nxt = w.add(first, w.mul(em.load(self.fetch_count), stride))
        tile = em.select(w.icmp("slt", nxt, self.data.num_tiles()), nxt, w.const(TILE_END))
        em.store(tile, self.tile)
        stage = self._end(s.pipeline, P.Side.PRODUCER).state.index(em)
        slot = em.smem_at(w.add(w.const(self.smem.tile_slots[s.pipeline]), w.muli(stage, 4)))
        em.if_then(
            w.icmp("eq", em.sreg("laneid"), w.const(0)),
            lambda: em.store(tile, slot, "i32", "!llvm.ptr<3>"),
            "lane0",
        )

    def _KLoop(self, s: P.KLoop) -> None:
        em, w = self.em, self.em.w
        head, body, done = em.label("k_head"), em.label("k_body"), em.label("k_done")
        em.store(w.const(0), self.k_block)
        em.br(head)
        em.open(head)
        em.cond_br(w.icmp("slt", em.load(self.k_block), self.data.num_k_blocks()), body, done)
        em.open(body)
        self.steps(s.body)
        em.store(w.addi(em.load(self.k_block), 1), self.k_block)
        em.br(head)
        em.open(done)

    # ---- input pipelines ---------------------------------------------------------------------
    def _InputProduce(self, s: P.InputProduce) -> None:
        em, end = self.em, self._end(s.pipeline, P.Side.PRODUCER)
        stage = end.wait_consumer(em)
        self.steps(s.body)
        em.mbarrier_arrive(end.full(em, stage))
        end.state.step(em)

    def _InputConsume(self, s: P.InputConsume) -> None:
        em, end = self.em, self._end(s.pipeline, P.Side.CONSUMER)
        stage = end.wait_producer(em)
        self.steps(s.body)
        if any(isinstance(step, P.MmaTileProduct) for step in s.body):
            self.data.release_input(end.empty(em, stage))
        else:
            self._consumer_arrive(end.empty(em, stage))
        end.state.step(em)

    def _ArriveInput(self, s: P.ArriveInput) -> None:
        em = self.em
        if s.input_pipeline not in self.input_stage:
            raise LoweringError(
                f"role '{self.role.value}': arrive_input outside a per_k_epilogue on "
                f"'{s.input_pipeline}'"
            )
        end, stage = (
            self._end(s.input_pipeline, P.Side.CONSUMER),
            self.input_stage[s.input_pipeline],
        )
        em.elected(lambda: em.mbarrier_arrive(end.empty(em, stage)))

    # ---- output pipeline: explicit -----------------------------------------------------------
    def _AcquireForMma(self, s) -> None:
        self._end(s.pipeline, P.Side.PRODUCER).wait_consumer(self.em)

    def _ReleaseFromMma(self, s) -> None:
        em, end = self.em, self._end(s.pipeline, P.Side.PRODUCER)
        full = end.full(em, end.state.index(em))
        if self.k.target.has_tmem:
            mask = self.cfg.mma_complete_mask() if self.cfg.cta_group == 2 else None
            em.elected(lambda: em.tmem_commit(full, self.cfg.cta_group, mask))
        else:
            em.mbarrier_arrive(full)
        end.state.step(em)

    def _AcquireForEpilogue(self, s) -> None:
        self._end(s.pipeline, P.Side.CONSUMER).wait_producer(self.em)

    def _ReleaseFromEpilogue(self, s) -> None:
        self._end(s.pipeline, P.Side.CONSUMER).state.step(self.em)

    def _EpilogueArrive(self, s) -> None:
        em, end = self.em, self._end(s.pipeline, P.Side.CONSUMER)
        empty = end.empty(em, end.state.index(em))
        if self.cfg.cta_group == 2:
            em.arrive_leader_cta(empty)
        else:
            em.mbarrier_arrive(empty)

    # ---- output pipeline: scoped and linear --------------------------------------------------
    def _OutputProduce(self, s) -> None:
        self._AcquireForMma(s)
        self.steps(s.body)
        self._ReleaseFromMma(s)

    _PerKProduce = _OutputProduce

    def _OutputConsume(self, s) -> None:
        self._AcquireForEpilogue(s)
        self.steps(s.body)
        self._ReleaseFromEpilogue(s)

    def _PerKConsume(self, s) -> None:
        self._AcquireForEpilogue(s)
        self.steps(s.body)
        self._EpilogueArrive(s)
        self._ReleaseFromEpilogue(s)

    def _PerKEpilogue(self, s: P.PerKEpilogue) -> None:
        self._AcquireForEpilogue(s)
        input_end = self._end(s.input_pipeline, P.Side.CONSUMER)
        self.input_stage[s.input_pipeline] = input_end.state.index(self.em)
        self.steps(s.body)
        del self.input_stage[s.input_pipeline]
        input_end.state.step(self.em)
        self._EpilogueArrive(s)
        self._ReleaseFromEpilogue(s)

    def _AcquireMmaLinear(self, s) -> None:
        self.linear[s.stage] = P.Side.PRODUCER
        self._AcquireForMma(s)

    def _AcquireEpilogueLinear(self, s) -> None:
        self.linear[s.stage] = P.Side.CONSUMER
        self._AcquireForEpilogue(s)

    def _ReleaseStage(self, s: P.ReleaseStage) -> None:
        side = self.linear.pop(s.stage, None)
        if side is None:
            raise LoweringError(
                f"role '{self.role.value}': release of stage '{s.stage}', which is not held"
            )
        out = P.AcquireForMma(self.k.output_pipeline.name)
        self._ReleaseFromMma(out) if side is P.Side.PRODUCER else self._ReleaseFromEpilogue(out)

    # ---- data --------------------------------------------------------------------------------
    def _LoadInputStage(self, s: P.LoadInputStage) -> None:
        stage = self._end(s.pipeline, P.Side.PRODUCER).state.index(self.em)
        self.data.load_input_stage(
            s.pipeline, stage, self.em.load(self.tile), self.em.load(self.k_block)
        )

    def _ZeroAccumulator(self, s) -> None:
        self.data.zero_mma(self.mma_acc)

    def _MmaTileProduct(self, s: P.MmaTileProduct) -> None:
        stage = self._end(s.input_pipeline, P.Side.CONSUMER).state.index(self.em)
        out = self._end(self.k.output_pipeline.name, P.Side.PRODUCER).state.index(self.em)
        self.data.mma_tile_product(s.input_pipeline, stage, self.mma_acc, out)

    def _StoreAccumulator(self, s) -> None:
        self.data.store_accumulator(
            self._end(s.pipeline, P.Side.PRODUCER).state.index(self.em), self.mma_acc
        )

    def _DrainStageToC(self, s) -> None:
        stage = self._end(s.pipeline, P.Side.CONSUMER).state.index(self.em)
        self.data.drain_stage_to_c(
            stage, self.em.load(self.tile), self.thread, self.k.epilogue_threads
        )

    def _AccumulateStage(self, s) -> None:
        stage = self._end(s.pipeline, P.Side.CONSUMER).state.index(self.em)
        self.data.accumulate_stage(stage, self.epi_acc, self.thread, self.k.epilogue_threads)

    def _ZeroEpilogueAccumulator(self, s) -> None:
        self.data.zero(self.epi_acc, self.data.epi_count(self.k.epilogue_threads))

    def _StoreC(self, s) -> None:
        self.data.store_c(
            self.epi_acc, self.em.load(self.tile), self.thread, self.k.epilogue_threads
        )
