"""The times tables ``gemm()`` picks its kernel by, and the wave features a model of them reads.

A table (``gemm_times_h100.tsv``, ``gemm_times_h200.tsv``, written by
``bench/gemm_select_data.py``; ``read``) holds the time of every ``Candidate`` on a few thousand
products measured on one GPU.  ``wave_features`` describes a candidate's launch on a product
(``gemm_times_model`` fits the times to it):

**Waves.**  A persistent kernel runs its units of work (tiles, or a cluster's block of them)
in waves of as many as the device holds at once (one per SM, or the clusters that fit), so
its time is about ``w0 + w1·waves + w2·work + w3·split + (w4·off_a + w5·off_b + w6·waste +
w7·busy + w9·odd_a + w10·odd_b)·work + w8·k-blocks``: ``work`` is the k-blocks one CTA walks
(waves × k-blocks; stream-K: its share of all of them; split-K: waves × k-blocks per run),
``split`` split-K's partial-sum traffic, ``off_a``, ``off_b`` say that A's or B's rows start
off 128-byte boundaries and ``odd_a``, ``odd_b`` that some start on an odd multiple of 16
bytes (a 128-byte box row then spans five 32-byte sectors, not four), ``waste`` is the
fraction of the tiles' elements past M or N, and ``busy`` the fraction of the device's slots
a wave's units occupy (the operands' traffic through L2 grows with it).

A candidate computing ``Cᵀ = Bᵀ·Aᵀ`` sees the product transposed (its M is N).  The table's
header names its device, SM count and the clusters of each size the device runs at once.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path

from ..nvidia.gemm.config import HopperGemmConfig
from .gemm_candidates import Candidate
from .gemm_geometry import resident_clusters, run_ctas, split_count
from .gemm_heuristic import ROW_ALIGN

ALIGNMENT_WEIGHT = 3.0
"""How far apart (in octaves of M, N or K) rows on and off 128-byte boundaries count."""
SECTOR = 32
"""Bytes of an L2 sector: a 128-byte row starting at an odd multiple of 16 bytes spans five."""


class TimesTableError(ValueError):
    """A times table that cannot be read; the message names the line."""


def row_starts(row_bytes: int, address: int = 0) -> tuple[bool, bool]:
    """``(off, odd)`` of an operand whose rows lie ``row_bytes`` apart from ``address`` (both
    multiples of 16, as TMA needs): some row starts off a 128-byte boundary; some row starts on
    an odd multiple of 16 bytes."""
    off = row_bytes % ROW_ALIGN != 0 or address % ROW_ALIGN != 0
    odd = row_bytes % SECTOR != 0 or address % SECTOR != 0
    return off, odd


@dataclass(frozen=True)
class Product:
    """``C = A·B`` with A ``m × k`` and B ``k × n`` (row-major, the table's layout);
    ``off_a``/``off_b``: the operand's rows start off 128-byte boundaries; ``odd_a``/``odd_b``:
    some start on an odd multiple of 16 bytes (``row_starts``)."""

    m: int
    n: int
    k: int
    off_a: bool = False
    off_b: bool = False
    odd_a: bool = False
    odd_b: bool = False

    @classmethod
    def of(cls, m: int, n: int, k: int, element_bytes: int = 2) -> Product:
        """The product of row-major operands with leading dimensions ``k`` and ``n`` whose
        first rows start on 128-byte boundaries."""
        (off_a, odd_a), (off_b, odd_b) = (
            row_starts(k * element_bytes),
            row_starts(n * element_bytes),
        )
        return cls(m, n, k, off_a, off_b, odd_a, odd_b)

    @classmethod
    def of_operands(cls, a, b) -> Product:
        """The product of ``a`` (M × K) and ``b`` (K × N), ``MatrixArg``s: their sizes, and
        where their rows start (``row_starts`` of the leading stride and the address)."""
        (off_a, odd_a), (off_b, odd_b) = (
            row_starts(x.leading_stride * x.element_bytes, x.data_ptr) for x in (a, b)
        )
        return cls(a.rows, b.cols, a.cols, off_a, off_b, odd_a, odd_b)

    @property
    def key(self) -> tuple[float, ...]:
        """Where the product lies for the neighbour search (``gemm_times_model``)."""
        return (
            math.log2(self.m),
            math.log2(self.n),
            math.log2(self.k),
            ALIGNMENT_WEIGHT * self.off_a,
            ALIGNMENT_WEIGHT * self.off_b,
        )


@dataclass(frozen=True)
class Device:
    """What the wave count needs of the GPU: its SMs and how many clusters of each size it runs
    at once; and its name (CUDA's), which says whose table it is."""

    sms: int
    cluster_slots: dict[int, int]
    name: str = ""

    def slots(self, cluster_size: int) -> int:
        return self.sms if cluster_size == 1 else self.cluster_slots[cluster_size]

    def ctas(self, cluster_size: int) -> int:
        """The CTAs that run at once in clusters of ``cluster_size`` (whole clusters)."""
        return resident_clusters(cluster_size, self.sms, self.slots(cluster_size)) * cluster_size


def takes(candidate: Candidate, p: Product, device: Device) -> bool:
    """Whether ``candidate``'s kernel launches on ``p``: a split-K kernel gives every run its own
    CTA (or cluster), so its runs of every unit (one, or the candidate's ``splits``, at most
    one per k-block) must fit in the CTAs that run at once; the other decompositions walk any
    number of units."""
    config = _config(candidate)
    if not config.split_k:
        return True
    rows, cols = (p.n, p.m) if candidate.swap else (p.m, p.n)
    runs = candidate.splits or 1
    fits = run_ctas(config, rows, cols) * runs <= device.ctas(config.cluster_size)
    return fits and runs <= -(-p.k // config.block_k)


def wave_features(candidate: Candidate, p: Product, device: Device) -> tuple[float, ...]:
    """``(1, waves, work, split, work·off_a, work·off_b, work·waste, work·busy, k-blocks,
    work·odd_a, work·odd_b)`` of ``candidate`` on ``p`` (see the module docstring)."""
    config = _config(candidate)
    rows, cols = (p.n, p.m) if candidate.swap else (p.m, p.n)
    units = -(-rows // (config.block_m * config.cluster_m)) * -(
        -cols // (config.block_n * config.cluster_n)
    )
    tiled = (
        -(-rows // config.block_m) * config.block_m * -(-cols // config.block_n) * config.block_n
    )
    slots = device.slots(config.cluster_size)
    k_blocks = -(-p.k // config.block_k)
    split = 0.0
    if config.split_k:
        ctas = device.ctas(config.cluster_size)
        runs = candidate.splits or split_count(config, rows, cols, p.k, ctas)
        waves = -(-(units * config.cluster_size * runs) // ctas)
        work = waves * k_blocks / runs
        split = runs * config.block_m * config.block_n / 16384
    elif config.stream_k:
        waves = -(-units // slots)
        work = max(units * k_blocks / slots, k_blocks)
    else:
        waves = -(-units // slots)
        work = waves * k_blocks
    waste = 1 - rows * cols / tiled
    busy = min(units, slots) / slots
    off = (work * p.off_a, work * p.off_b)
    odd = (work * p.odd_a, work * p.odd_b)
    return (1.0, float(waves), work, split, *off, work * waste, work * busy, float(k_blocks), *odd)


_CONFIGS: dict[Candidate, HopperGemmConfig] = {}


def _config(candidate: Candidate) -> HopperGemmConfig:
    """The candidate's kernel on the table's row-major A and B (``Candidate.config``)."""
    if candidate not in _CONFIGS:
        _CONFIGS[candidate] = candidate.config()
    return _CONFIGS[candidate]


def read(text: str, source: str) -> tuple[Device, list[Candidate], list[Product], list[list]]:
    """A times table: ``#`` comment lines (one ``# device: sms N; cluster_slots S:C ...``), a
    header ``m n k`` and candidate names, then one tab-separated row per product of its sizes
    and times in µs (``-``: not measured); ``TimesTableError`` names a bad line."""
    device, header, rows = None, None, []
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{source}:{number}"
        if line.startswith("# device:"):
            device = _device(line, where)
        elif line.startswith("#") or not line.strip():
            continue
        elif header is None:
            header = line.split("\t")
            if header[:3] != ["m", "n", "k"]:
                raise TimesTableError(f"{where}: the header must start with m, n, k")
            candidates = [Candidate.parse(name) for name in header[3:]]
        else:
            cells = line.split("\t")
            if len(cells) != len(header):
                raise TimesTableError(f"{where}: {len(cells)} cells, the header has {len(header)}")
            m, n, k = (int(c) for c in cells[:3])
            rows.append(
                (Product.of(m, n, k), [math.nan if c == "-" else float(c) for c in cells[3:]])
            )
    if device is None or header is None or not rows:
        raise TimesTableError(f"{source}: needs a '# device:' line, a header and rows")
    return device, candidates, [p for p, _ in rows], [t for _, t in rows]


def _device(line: str, where: str) -> Device:
    """``# device: name NVIDIA H200; sms 132; cluster_slots 2:66 4:30 8:15`` (the name is
    optional; any other ``;`` field is ignored)."""
    fields = dict(
        part.strip().split(" ", 1) for part in line[len("# device:") :].split(";") if part.strip()
    )
    try:
        slots = dict(
            tuple(int(x) for x in pair.split(":")) for pair in fields["cluster_slots"].split()
        )
        return Device(int(fields["sms"]), slots, fields.get("name", "").strip())
    except (KeyError, ValueError) as exc:
        raise TimesTableError(
            f"{where}: expected '# device: sms N; cluster_slots S:C ...'"
        ) from exc


LAUNCHED = "# launched:"
"""The comment line of a table that names (space-separated) the kernels it timed as ``gemm()``
launches them (``launched_names``)."""


def launched_names(text: str) -> frozenset[str]:
    """The kernels the times table ``text`` timed as ``gemm()`` launches them (its ``#
    launched:`` line): a split-K kernel as the reduce-scatter where ``gemm()`` takes that, not
    with the serial reduction the others were timed with (``gemm_reduction.as_launched``)."""
    for line in text.splitlines():
        if line.startswith(LAUNCHED):
            return frozenset(line[len(LAUNCHED) :].split())
    return frozenset()


TABLE = Path(__file__).with_name("gemm_times_h100.tsv")
"""The H100 SXM's table: the products every shipped table measures, and the one ``gemm()``
reads on a device no table names (``gemm_select.shipped_times``)."""
TABLES = (TABLE, Path(__file__).with_name("gemm_times_h200.tsv"))
"""Every shipped times table, each measured on the device its ``# device:`` line names."""


@functools.cache
def heading(path: Path) -> tuple[Device, list[Candidate]]:
    """The device and the kernels of the times table at ``path`` (read once)."""
    device, candidates, _, _ = read(path.read_text(), path.name)
    return device, candidates
