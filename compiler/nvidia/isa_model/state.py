"""What a launch holds: the launch's shape and parameters, the CTAs and their clusters.

``Launch`` is what ``cuLaunchKernelEx`` would be given: the grid, the (one-dimensional) CTA, the
cluster shape, the dynamic shared memory and one value per kernel parameter (an ``int`` for
integers and pointers, a ``float`` for an ``f32`` parameter, rounded to f32 as the launch packs
it, a ``TensorMap`` for a ``__grid_constant__`` tensor-map parameter).

Shared-memory addresses: a CTA's dynamic shared memory starts at ``smem_base`` in its
``.shared::cta`` window.  In a cluster, CTA rank ``r``'s window starts at ``r << 24`` (so its
addresses carry the rank from bit 24 up, as the H100 was observed to give them), and a
``.shared::cluster`` address names the CTA by those bits; ``mapa`` swaps them.  The PTX ISA
leaves the numeric window layout to the implementation ("State Spaces: Shared State Space").

Tensor-map parameters live in a parameter window (``PARAM_BASE``); only TMA instructions may
use those addresses.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from .barriers import ClusterBarrier, Mbarrier, NamedBarrier
from .errors import Hazard, MemoryFault, ModelError, NotModelled
from .memory import GlobalMemory, SharedMemory
from .tensor_map import TensorMap

RANK_SHIFT = 24
PARAM_BASE = 0x7F00_0000_0000
PARAM_BYTES = 128


@dataclass(frozen=True)
class Launch:
    """One kernel launch."""

    grid: tuple[int, int, int]
    threads: int
    params: tuple
    smem_bytes: int = 0
    cluster: tuple[int, int, int] = (1, 1, 1)
    smem_base: int = 0x400
    dependent: bool = False
    """Launched as a programmatic dependent (``PROGRAMMATIC_STREAM_SERIALIZATION``): the grid
    before it may still run until a thread's ``griddepcontrol.wait``, so a thread's access to
    global memory before its wait is a ``Hazard`` (``Cta.global_access``)."""

    def __post_init__(self) -> None:
        if any(g % c for g, c in zip(self.grid, self.cluster, strict=True)):
            raise ModelError(f"grid {self.grid} is not a whole number of clusters {self.cluster}")
        if self.smem_base % 16 or self.smem_base + self.smem_bytes > 1 << 18:
            raise ModelError(f"shared window base {self.smem_base:#x} is not usable")

    @property
    def cluster_size(self) -> int:
        return int(np.prod(self.cluster))


@dataclass
class BulkGroups:
    """One thread's bulk async-groups: tokens of its uncommitted bulk operations, then one
    list per committed group, oldest first."""

    open: list = field(default_factory=list)
    committed: deque = field(default_factory=deque)


class Cluster:
    def __init__(self, index: int, size: int, threads: int) -> None:
        self.index = index
        self.ctas: list[Cta] = []
        self.barrier = ClusterBarrier(size * threads)


class Cta:
    """One CTA: its coordinates, cluster, shared memory and per-CTA synchronisation state."""

    def __init__(self, launch: Launch, linear: int, cluster: Cluster, static_smem: int) -> None:
        gx, gy, _ = launch.grid
        self.ctaid = (linear % gx, linear // gx % gy, linear // (gx * gy))
        self.linear = linear
        self.cluster = cluster
        self.rank = len(cluster.ctas)
        cluster.ctas.append(self)
        self.window = (self.rank << RANK_SHIFT) + launch.smem_base
        self.smem = SharedMemory(
            self.window, static_smem + launch.smem_bytes, f"the shared memory of CTA {linear}"
        )
        self.named = [NamedBarrier(i) for i in range(16)]
        self.warp_barriers: dict[int, NamedBarrier] = {}
        self.cluster_arrivals: dict[int, int] = {}
        self.bulk: dict[int, BulkGroups] = {}
        self.wgmma: dict[int, BulkGroups] = {}
        self.polls: dict[tuple[int, int], int] = {}
        self.cp_async: list = []
        self.cp_commits = np.zeros(launch.threads, np.int64)
        self.live_threads = launch.threads
        self.dependent = launch.dependent
        self.grid_waited = np.zeros(launch.threads, bool)
        self.mmas = np.zeros(launch.threads, np.int64)
        """Per thread: the ``wgmma.mma_async`` it has issued."""
        self.triggers = np.zeros(launch.threads, np.int64)
        """Per thread: the ``griddepcontrol.launch_dependents`` it has executed."""
        self.mmas_at_trigger = np.zeros(launch.threads, np.int64)
        """Per thread: ``mmas`` when it last executed ``launch_dependents``."""

    def global_access(self, lanes: np.ndarray, what: str) -> None:
        """Threads ``lanes`` touch global memory (``what``): in a dependent launch, a ``Hazard``
        unless each has executed ``griddepcontrol.wait``."""
        if not self.dependent:
            return
        early = lanes[~self.grid_waited[lanes]]
        if early.size:
            raise Hazard(
                f"{what} by thread {int(early[0])} of CTA {self.linear} before its "
                "griddepcontrol.wait: in a programmatic dependent launch the grid before it may "
                "still be writing or reading that memory"
            )

    def mbarrier(self, addr: int) -> Mbarrier:
        barrier = self.smem.barriers.get(int(addr))
        if barrier is None:
            raise ModelError(
                f"no initialised mbarrier at shared address {int(addr):#x} of CTA {self.linear}"
            )
        return barrier


class Machine:
    """The device state of one launch: global memory, tensor maps, CTAs and the TMA loads
    issued but not yet landed."""

    def __init__(self, launch: Launch, memory: GlobalMemory, static_smem: int = 0) -> None:
        if launch.threads % 32:
            raise NotModelled(f"a CTA of {launch.threads} threads (not whole warps)")
        self.launch = launch
        self.memory = memory
        self.tensor_maps: dict[int, TensorMap] = {}
        size = launch.cluster_size
        count = int(np.prod(launch.grid))
        self.clusters = [Cluster(i, size, launch.threads) for i in range(count // size)]
        self.ctas = [
            Cta(launch, i, self.clusters[self._cluster_of(i)], static_smem) for i in range(count)
        ]
        self.pending_loads: deque = deque()

    def _cluster_of(self, linear: int) -> int:
        """Clusters tile the grid; CTAs of one cluster are consecutive along x first."""
        cx, cy, cz = self.launch.cluster
        gx, gy, _ = self.launch.grid
        x, y, z = linear % gx, linear // gx % gy, linear // (gx * gy)
        per_x, per_y = gx // cx, gy // cy
        return (z // cz * per_y + y // cy) * per_x + x // cx

    def param_value(self, index: int, value):
        """The register value of kernel parameter ``index``: a ``TensorMap`` gets an address in
        the parameter window."""
        if isinstance(value, TensorMap):
            addr = PARAM_BASE + PARAM_BYTES * index
            self.tensor_maps[addr] = value
            return np.uint64(addr)
        return value

    def tensor_map(self, addr) -> TensorMap:
        tmap = self.tensor_maps.get(int(addr))
        if tmap is None:
            raise MemoryFault(f"{int(addr):#x} is not the address of a tensor-map parameter")
        return tmap

    def cluster_cta(self, cta: Cta, addr: int) -> tuple[Cta, int]:
        """The CTA a ``.shared::cluster`` address names, and the address in its window."""
        rank = int(addr) >> RANK_SHIFT
        if rank >= len(cta.cluster.ctas):
            raise MemoryFault(f"shared::cluster address {int(addr):#x} names CTA rank {rank}")
        target = cta.cluster.ctas[rank]
        if not target.live_threads:
            raise MemoryFault(f"shared::cluster access to CTA {target.linear}, which has exited")
        return target, int(addr)
