"""The persistent scheduler's work items (``warpsched.nvidia.datapaths.wgmma.work.walk_items``): every
k-block of every tile is computed exactly once, stream-K balances the CTAs, and a split tile's
head comes first in a lower CTA while its tail comes last in the next one."""

from collections import Counter

import pytest

from warpsched.nvidia.datapaths.wgmma.work import Segment, walk_items, walk_split_runs

CASES = [
    (2048, 132, 128),  # 8192³ with 128x256 tiles: 15.5 waves
    (1152, 132, 96),  # 6144³
    (512, 132, 9),  # 4096x4096x520
    (135, 132, 16),  # 1920x2176x1000: one whole wave and 3 tiles
    (72, 66, 3),  # the same as 2x1-cluster units, K = 192
    (264, 132, 7),  # whole waves only: stream-K changes nothing
    (100, 100, 5),  # fewer units than SMs: one each
    (133, 132, 1),  # one k-block per tile: runs of whole tiles
]


def _walks(units, per_wave, k_blocks, stream_k):
    return [walk_items(units, per_wave, k_blocks, c, stream_k) for c in range(per_wave)]


@pytest.mark.parametrize("units, per_wave, k_blocks", CASES)
@pytest.mark.parametrize("stream_k", [False, True])
def test_every_k_block_exactly_once(units, per_wave, k_blocks, stream_k):
    covered = Counter(
        (item.unit, k)
        for walk in _walks(units, per_wave, k_blocks, stream_k)
        for item in walk
        for k in range(item.k_begin, item.k_end)
    )
    assert set(covered) == {(u, k) for u in range(units) for k in range(k_blocks)}
    assert set(covered.values()) == {1}


@pytest.mark.parametrize("units, per_wave, k_blocks", CASES)
def test_stream_k_balances_the_ctas(units, per_wave, k_blocks):
    def load(walk):
        return sum(item.k_end - item.k_begin for item in walk)

    data_parallel = max(load(w) for w in _walks(units, per_wave, k_blocks, False))
    loads = [load(w) for w in _walks(units, per_wave, k_blocks, True)]
    assert max(loads) - min(loads) <= 1 or units <= per_wave or units % per_wave == 0
    assert max(loads) <= data_parallel
    if units > per_wave and units % per_wave:
        assert max(loads) == -(-units * k_blocks // per_wave)  # the balanced bound


@pytest.mark.parametrize("units, per_wave, k_blocks", CASES)
def test_a_split_tile_has_a_head_first_and_a_tail_last(units, per_wave, k_blocks):
    walks = _walks(units, per_wave, k_blocks, True)
    owners: dict[int, list[tuple[int, int, Segment]]] = {}
    for cta, walk in enumerate(walks):
        for position, item in enumerate(walk):
            owners.setdefault(item.unit, []).append((cta, position, item))
    for unit, parts in owners.items():
        if len(parts) == 1:
            assert (parts[0][2].k_begin, parts[0][2].k_end) == (0, k_blocks)
            continue
        assert len(parts) == 2, f"unit {unit} split {len(parts)} ways"
        (head_cta, head_pos, head), (tail_cta, tail_pos, tail) = sorted(parts)
        assert tail_cta == head_cta + 1
        assert head.k_begin == 0 and head.k_end == tail.k_begin and tail.k_end == k_blocks
        whole_units = units - (units % per_wave + per_wave)
        stream_k_start = sum(1 for item in walks[head_cta] if item.unit < whole_units)
        assert head_pos == stream_k_start  # the head CTA's first stream-K item
        assert tail_pos == len(walks[tail_cta]) - 1  # the tail CTA's last item


@pytest.mark.parametrize(
    "units, splits, per_wave, k_blocks",
    [(16, 4, 64, 128), (1, 3, 3, 4), (2, 3, 2, 4), (9, 7, 63, 256), (5, 2, 4, 3)],
)
def test_split_k_runs_cut_every_tile_once(units, splits, per_wave, k_blocks):
    """Every k-block of every tile in exactly one run; a tile's runs differ by at most one
    k-block; a CTA walks its runs in increasing order, ``per_wave`` apart."""
    walks = [walk_split_runs(units, splits, per_wave, k_blocks, c) for c in range(per_wave)]
    covered = Counter(
        (i.unit, k) for walk in walks for i in walk for k in range(i.k_begin, i.k_end)
    )
    assert set(covered) == {(u, k) for u in range(units) for k in range(k_blocks)}
    assert set(covered.values()) == {1}
    lengths = {i.k_end - i.k_begin for walk in walks for i in walk}
    assert max(lengths) - min(lengths) <= 1
    assert sum(len(walk) for walk in walks) == units * splits
