"""The role lowering of a warpgroup kernel: each op of a role body, in order, onto the wgmma data path.

Loop state lives in SSA block arguments, not in variables: a ``sched.nv_persistent_tile_loop``
carries its walk over the tile scheduler's work items (``wgmma.work.WorkWalk``) and the ring
position ``q`` of the input pipeline (slot ``q`` uses stage ``q mod S`` at parity
``(q div S) & 1``).  Rules the ops leave to the lowering:

* values the body's data ops need in every iteration are computed before the loop: a
  consumer warpgroup's thread, leader, row band and stage-0 descriptors
  (``ConsumerWarpgroup``), and a work item's tile origin before a k loop that loads from it;
  otherwise the tile origin is computed where ``store_tile`` first needs it;
* after the top-level op of the loop body that walked the ring, the loop computes the ring
  position of the next work item; ``split tiles`` warpgroups also step past the stages of the
  items the other warpgroups take;
* a ``sched.nv_k_loop`` around ``input_consume mmas_in_flight 1 { mma_tile_product }`` after a
  ``zero_accumulator`` is the wgmma mainloop (``mainloop.Mainloop``); any other k loop carries
  its k-block and ring position and steps both by one;
* a bias added to the tile the mainloop computes (``fused.bias_ahead``) is read after the first
  k-block's MMAs (``fused.prefetch_bias``), for the store's fused epilogue;
* after the mainloop of a consumer's last work item, before that item's reduction and
  epilogue, the consumer lets the next grid be scheduled (``griddepcontrol.launch_dependents``,
  ``ptx.grid_dependency``), as CUTLASS's kernels do.
"""

from __future__ import annotations

from collections.abc import Callable

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.wgmma.consumer import ConsumerWarpgroup
from warpsched.nvidia.datapaths.wgmma.emitter import GemmEmitter, TileOrigin
from warpsched.nvidia.datapaths.wgmma.epilogue import emit_epilogue
from warpsched.nvidia.datapaths.wgmma.epilogue_staged import StagedEpilogue
from warpsched.nvidia.datapaths.wgmma.epilogue_tma import emit_tma_epilogue, wait_stores
from warpsched.nvidia.datapaths.wgmma.fused import PendingTransforms, bias_ahead
from warpsched.nvidia.datapaths.wgmma.plan import stage_cut
from warpsched.nvidia.datapaths.wgmma.producer import issue_loads
from warpsched.nvidia.datapaths.wgmma.split_k_scatter import StoredGroups, fixup
from warpsched.nvidia.datapaths.wgmma.work import WorkItem, WorkWalk
from warpsched.nvidia.lowering.errors import LoweringError
from warpsched.nvidia.lowering.mainloop import Mainloop, is_mainloop
from warpsched.nvidia.program.enums import EpilogueKind, Split
from warpsched.nvidia.program.roles import WARPGROUP_SIZE, Role
from warpsched.nvidia.ptx import grid_dependency

REGISTER_FILE = 65536
REGISTER_GRANULE = 8


class WarpgroupRoleLowering:
    """Lowers one role body of a warpgroup kernel (``warpgroup``: the SSA ``tid / 128``)."""

    def __init__(
        self, kernel: P.Kernel, em: GemmEmitter, is_zero: str, warpgroup: str, first: int
    ) -> None:
        self.k, self.em, self.w, self.cfg = kernel, em, em.w, em.config
        self.is_zero = is_zero
        self.warpgroup, self.first_warpgroup = warpgroup, first
        self.consumer: ConsumerWarpgroup | None = None
        self.item: WorkItem | None = None
        self.walk: WorkWalk | None = None
        self.origin: TileOrigin | None = None
        self.accs: list[str] = []
        self.zeroed = False
        self.pending = PendingTransforms(em)
        self.after_first: Callable[[], None] | None = None  # the mainloop's, after its first block
        self.staged: StagedEpilogue | None = None
        self.ring_next: str | None = None
        self.continue_label = ""
        self.tma_stores = False
        self.stored_groups: StoredGroups | None = None  # the reduce-scatter's: what a run stores
        shared = kernel.multicast_operands
        self.peer_flips = kernel.cluster.peer_flips("a" in shared, "b" in shared)

    def steps(self, steps: tuple[P.Step, ...]) -> None:
        for step in steps:
            handler = getattr(self, f"_{type(step).__name__}", None)
            if handler is None:
                raise LoweringError(
                    f"kernel '{self.k.name}': {step.SPEC.name} has no lowering on the "
                    "TMA + wgmma data path"
                )
            handler(step)

    # ---- role set-up -------------------------------------------------------------------------
    def _SetMaxRegisters(self, s: P.SetMaxRegisters) -> None:
        at_launch = REGISTER_FILE // self.k.launch_threads // REGISTER_GRANULE * REGISTER_GRANULE
        self.em.set_max_registers(s.count, increase=s.count > at_launch)

    def _SingleThread(self, s: P.SingleThread) -> None:
        self.em.if_then(self.is_zero, lambda: self.steps(s.body), "tma")

    # ---- the persistent tile loop --------------------------------------------------------------
    def _PersistentTileLoop(self, s: P.PersistentTileLoop) -> None:
        em, w = self.em, self.w
        split = s.split or Split.NONE
        index = None
        if any(isinstance(x, P.MmaTileProduct) for x in P.walk(s.body)):
            index = w.addi(self.warpgroup, -self.first_warpgroup)
            self.consumer = ConsumerWarpgroup(em, index)
        first, step, q0 = em.first_unit, em.unit_step, w.const(0)
        if split is Split.TILES:
            uniform = self.consumer.uniform_index
            first = w.add(em.first_unit, w.mul(uniform, em.unit_step))
            step = w.muli(em.unit_step, self._warpgroups)
            q0 = w.mul(uniform, em.k_blocks)
        prefix = "c" if self.consumer else "p"
        walk = self.walk = WorkWalk(em, prefix, first, step)
        self.staged = self._staged_epilogue(s.body, first, step)
        read_bias = self.consumer is not None and bias_ahead(s.body)
        self.after_first = self._prefetch_bias if read_bias else None
        tile, body, exit_ = (
            em.label(f"{prefix}tile"),
            em.label(f"{prefix}body"),
            em.label(f"{prefix}exit"),
        )
        self.continue_label = em.label(f"{prefix}next")
        q = f"%{prefix}q"
        types = ", ".join(["i32"] * (len(walk.names) + 1))
        w.stmt(f"llvm.br ^{tile}({', '.join([*walk.initial, q0])} : {types})")
        w.block(tile, [*walk.params, (q, "i32")])
        self.item = walk.item()
        em.cond_br(self.item.valid, body, exit_)
        em.open(body)
        self.origin, self.ring_next = None, None
        for op in s.body:
            self._loop_op(op, q, split)
        if not isinstance(s.body[-1], P.KLoop):
            em.br(self.continue_label)
            em.open(self.continue_label)
        w.stmt(f"llvm.br ^{tile}({', '.join([*self.item.next_state, self.ring_next])} : {types})")
        em.open(exit_)
        if self.staged:
            self.staged.drain(walk.names[0])
        if self.tma_stores:
            em.if_then(
                self.consumer.leader, lambda: wait_stores(em, read_only=False), "stores_done"
            )

    @property
    def _warpgroups(self) -> int:
        consumers = self.k.layout.range_of(Role.CONSUMER)
        return consumers.threads // WARPGROUP_SIZE

    def _loop_op(self, op: P.Step, q: str, split: Split) -> None:
        """One top-level op of the persistent loop's body; after the op that walked the ring,
        the next work item's ring position."""
        self.ring = q
        self.steps((op,))
        walked = any(isinstance(x, (P.InputProduce, P.InputConsume)) for x in P.walk((op,)))
        if walked and self.ring_next is None:
            self.ring_next = self._advance(split)

    def _advance(self, split: Split) -> str:
        if self.mainloop is None:
            return self.ring  # the k loop's position at its exit
        w = self.w
        after = w.addi(self.mainloop.last, 1)
        if split is Split.TILES:
            after = w.add(after, w.muli(self.em.k_blocks, self._warpgroups - 1))
        return after

    def _tile_origin(self) -> TileOrigin:
        """The work item's origin in its product's C (and its batch entry)."""
        if self.origin is None:
            self.origin = self._origin_of(self.item.unit)
        return self.origin

    def _origin_of(self, unit: str) -> TileOrigin:
        """Unit ``unit``'s origin: the warpgroup's band of a ``split rows`` loop, the tile's
        otherwise."""
        em, w, cfg = self.em, self.w, self.cfg
        batch, tm, tn = em.tile_coords(unit)
        row0 = w.muli(tm, cfg.block_m)
        if self.consumer is not None:
            row0 = w.add(row0, self.consumer.row_in_tile)
        return TileOrigin(row0, w.muli(tn, cfg.block_n), batch)

    def _staged_epilogue(
        self, body: tuple[P.Step, ...], first: str, step: str
    ) -> StagedEpilogue | None:
        """The epilogue cut by a ``stage_tile`` of the loop body, if it has one (the plan
        checked that only transforms and the ``store_tile tma`` follow it)."""
        cut = stage_cut(body)
        if cut is None:
            return None
        stage, after = cut
        transforms = tuple(op for op in after if not isinstance(op, P.StoreTile))
        return StagedEpilogue(
            self.consumer, transforms, stage.overlap, first, step, self._origin_of
        )

    # ---- k loops -----------------------------------------------------------------------------
    mainloop: Mainloop | None = None

    def _ZeroAccumulator(self, s: P.ZeroAccumulator) -> None:
        self.zeroed = True

    def _KLoop(self, s: P.KLoop) -> None:
        if self.item is None:
            raise LoweringError(
                f"kernel '{self.k.name}': a sched.nv_k_loop walks the k-blocks of a work item; "
                "put it inside the role's sched.nv_persistent_tile_loop"
            )
        if is_mainloop(s):
            if not self.zeroed or self.consumer is None:
                raise LoweringError(
                    f"kernel '{self.k.name}': the wgmma mainloop needs sched.nv_zero_accumulator "
                    "right before its k loop, in a consumer's persistent tile loop"
                )
            self.mainloop = Mainloop(
                self.consumer, s, self._consume_body, self.peer_flips, self.staged, self.after_first
            )
            self.accs = self.mainloop.emit(self.ring, self.item)
            self.zeroed = False
            self.walk.after_last(self.item, lambda: grid_dependency.allow_dependent_launch(self.w))
            return
        if any(isinstance(x, P.TmaLoad) for x in P.walk(s.body)):
            self._tile_origin()
        em, w = self.em, self.w
        loop, body, done = em.label("pk"), em.label("pkbody"), em.label("pknext")
        kb, q = "%pkb", "%pkq"
        w.stmt(f"llvm.br ^{loop}({self.item.k_begin}, {self.ring} : i32, i32)")
        w.block(loop, [(kb, "i32"), (q, "i32")])
        em.cond_br(w.icmp("ult", kb, self.item.k_end), body, done)
        em.open(body)
        self.k_block, self.ring, self.k0 = kb, q, None
        self.steps(s.body)
        w.stmt(f"llvm.br ^{loop}({w.addi(kb, 1)}, {w.addi(q, 1)} : i32, i32)")
        em.open(done)

    # ---- the TMA producer --------------------------------------------------------------------
    def _InputProduce(self, s: P.InputProduce) -> None:
        if s.expect_tx is None:
            raise LoweringError(
                f"kernel '{self.k.name}': on the TMA + wgmma data path an input_produce arms its "
                "full barrier with expect_tx (the bytes of its TMA loads)"
            )
        em, w = self.em, self.w
        slot = em.slot(self.ring)
        em.wait_parity(em.empty_barrier(slot.stage), em.binop("xor", slot.parity, w.const(1)))
        self.full = em.full_barrier(slot.stage)
        w.stmt(
            f'"nvvm.mbarrier.arrive.expect_tx"({self.full}, {w.const(s.expect_tx)}) '
            ": (!llvm.ptr<3>, i32) -> ()"
        )
        self.stage = slot.stage
        self.steps(s.body)

    def _TmaLoad(self, s: P.TmaLoad) -> None:
        if self.k0 is None:
            self.k0 = self.w.muli(self.k_block, self.cfg.block_k)
        issue_loads(self.em, s.operand.value, self.stage, self.full, self._tile_origin(), self.k0)

    # ---- consumer: turns, stream-K, the store ------------------------------------------------
    def _TakeTurns(self, s: P.TakeTurns) -> None:
        self.consumer.wait_turn(self.walk.names[0])
        self.steps(s.body)
        self.consumer.pass_turn()

    def _StreamKFixup(self, s: P.StreamKFixup) -> None:
        c, item, skip = self.consumer, self.item, self.continue_label
        self.accs, self.stored_groups = fixup(self.em, c, item, self.accs, skip)
        self.steps(s.body)
        self.stored_groups = None

    def _consume_body(
        self, body: tuple[P.Step, ...], stage: str, accs: list[str], first: bool
    ) -> list[str]:
        self.mma_stage, self.accs, self.first_block = stage, accs, first
        self.steps(body)
        return self.accs

    def _MmaTileProduct(self, s: P.MmaTileProduct) -> None:
        self.accs = self.consumer.mma(self.mma_stage, self.accs, self.first_block)

    def _epilogue_transform(self, s: P.Step) -> None:
        self.pending.steps.append(s)

    _EpilogueScale = _EpilogueBias = _EpilogueActivation = _EpilogueResidual = _epilogue_transform

    def _prefetch_bias(self) -> None:
        self.pending.read_bias_ahead(self.consumer.thread, self._tile_origin().col)

    def _StageTile(self, s: P.StageTile) -> None:
        origin = self._tile_origin()
        self.staged.stage(self.accs, origin, self.pending.take(origin))

    def _StoreTile(self, s: P.StoreTile) -> None:
        c, em = self.consumer, self.em
        if self.staged:  # the transforms and the store run in the next item's mainloop
            self.pending, self.tma_stores = PendingTransforms(em), True
            return
        origin = self._tile_origin()
        fused = self.pending.take(origin)
        if s.path is EpilogueKind.TMA:
            emit_tma_epilogue(em, self.accs, c.thread, c.leader, c.index, origin, fused)
            self.tma_stores = True
        else:
            emit_epilogue(em, self.accs, c.thread, origin, fused, self.stored_groups)
