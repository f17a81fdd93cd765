"""gemm()'s choice of kernel by shape (``gemm_select``): the shipped times table, the model
fitted to it, and the rule it starts from.

The model's predictions are checked against the table they were fitted on (a feature that reads
the product wrongly, such as a swap-AB kernel's rows taken as M, misplaces them), and the pick
against its definition: the rule's kernel unless another is predicted ``SWITCH`` faster."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsched.nvidia.gemm.config import HopperGemmConfig
from warpsched.runtime.gemm_candidates import Candidate, CandidateNameError
from warpsched.runtime.gemm_checks import check_splits
from warpsched.runtime.gemm_geometry import split_count
from warpsched.runtime.gemm_heuristic import shape_attributes
from warpsched.runtime.gemm_reduction import as_launched
from warpsched.runtime.gemm_select import (
    SWITCH,
    select_kernel,
    selection_configs,
    shipped_times,
)
from warpsched.runtime.gemm_times import (
    TABLE,
    TABLES,
    Device,
    Product,
    TimesTableError,
    heading,
    read,
    row_starts,
    takes,
    wave_features,
)
from warpsched.runtime.tensors import MatrixArg

H100 = 132
ROW_STARTS = [(False, False), (True, False), (True, True)]
"""An operand's ``(off, odd)`` rows (``row_starts``): on 128-byte boundaries, off them on
32-byte ones, on odd multiples of 16 bytes."""


@pytest.fixture(scope="module")
def table():
    return read(TABLE.read_text(), TABLE.name)


def test_every_kernel_of_the_table_is_named_as_it_parses(table):
    _, candidates, products, _ = table
    assert len(candidates) >= 40 and len(products) >= 1000
    for candidate in candidates:
        assert Candidate.parse(candidate.name) == candidate
        candidate.config()  # a legal kernel


def test_the_rule_kernels_are_in_the_table(table):
    """select_kernel compares the rule's pick with the others: it must be measured."""
    _, candidates, products, _ = table
    for p in products[::7]:
        rule = shape_attributes(p.m, p.n, H100, p.k, not p.off_a, not p.off_b)
        assert Candidate.of_attributes(rule) in candidates


def test_the_predictions_follow_the_measured_times(table):
    """On the products measured, the predicted times lie within 5 % of the measured ones for
    the median kernel, and the fastest predicted kernel is within 3 % of the fastest measured on
    three products in four."""
    _, candidates, products, times = table
    model = shipped_times()
    errors, close = [], []
    for p, row in list(zip(products, times, strict=True))[::5]:
        predicted = model.predict(p)
        measured = {c: t for c, t in zip(candidates, row, strict=True) if not math.isnan(t)}
        errors += [abs(math.log(predicted[c] / t)) for c, t in measured.items()]
        pick = min(measured, key=predicted.get)
        close.append(min(measured.values()) / measured[pick] >= 0.97)
    assert statistics.median(errors) < 0.05
    assert sum(close) >= 0.75 * len(close)


def test_the_fit_counts_among_the_neighbours(monkeypatch):
    """``gemm_times_model.PRIOR``: the neighbours' correction of the fit is their weighted mean
    error with the fit's own (0) among them, so it is a fraction of the correction they make
    alone (``PRIOR`` 0), the same fraction for every kernel on a product, and nothing once
    ``PRIOR`` outweighs them."""
    from warpsched.runtime import gemm_times_model

    model, shipped_prior = shipped_times(), gemm_times_model.PRIOR
    products = [
        Product.of(2200, 1096, 4000),
        Product.of(640, 1920, 2048),
        Product.of(96, 512, 9000),
    ]

    def logs(prior: float, p: Product) -> dict:
        monkeypatch.setattr(gemm_times_model, "PRIOR", prior)
        return {c: math.log(t) for c, t in model.predict(p).items()}

    for p in products:
        fit, alone, shipped = logs(1e12, p), logs(0.0, p), logs(shipped_prior, p)
        fractions = [
            (shipped[c] - fit[c]) / (alone[c] - fit[c])
            for c in fit
            if abs(alone[c] - fit[c]) > 1e-3
        ]
        assert len(fractions) > 20
        assert all(0.5 < f < 0.99 for f in fractions), (p, min(fractions), max(fractions))


@pytest.mark.parametrize(
    "row_bytes, address, starts",
    [
        (8192, 0, (False, False)),  # every row on a 128-byte boundary
        (2112, 0, (True, False)),  # rows 64 bytes apart mod 128: off, but on 32-byte sectors
        (2000, 0, (True, True)),  # 2000 = 62.5 sectors: every other row splits five sectors
        (8192, 64, (True, False)),
        (8192, 16, (True, True)),
    ],
)
def test_where_rows_start(row_bytes, address, starts):
    assert row_starts(row_bytes, address) == starts


def test_the_table_reads_odd_rows_off_its_sizes(table):
    """A table row names only m, n, k: its operands are row-major, so A's rows lie ``2k`` bytes
    apart and B's ``2n``; 1000 columns of bf16 are 2000 bytes, an odd multiple of 16."""
    assert Product.of(1000, 1000, 4096) == Product(1000, 1000, 4096, False, True, False, True)
    _, _, products, _ = table
    odd = [p for p in products if p.odd_b]
    assert odd and all(p.n % 16 == 8 and p.off_b for p in odd)


def test_gemm_reads_the_product_off_its_operands():
    """``gemm()`` picks for the operands it has: a contiguous pair is the table's product of the
    same sizes; a B whose rows start 16 bytes into a line has odd rows whatever its stride."""
    a = MatrixArg(1 << 20, 1000, 4096, 4096, 1, "bf16")
    b = MatrixArg(1 << 21, 4096, 1000, 1000, 1, "bf16")
    assert Product.of_operands(a, b) == Product.of(1000, 1000, 4096)
    shifted = MatrixArg((1 << 21) + 16, 4096, 1024, 1024, 1, "bf16")
    assert Product.of_operands(a, shifted) == Product(1000, 1024, 4096, False, True, False, True)


def test_odd_rows_are_a_feature_of_their_own():
    """The last two features weigh the work by odd_a and odd_b; the rest do not see them."""
    device = shipped_times().device
    swap = Candidate.parse("swap_coop_128x128_s5")
    even = wave_features(swap, Product(1800, 1000, 3072, False, True), device)
    odd = wave_features(swap, Product(1800, 1000, 3072, False, True, False, True), device)
    assert odd[:-2] == even[:-2] and even[-2:] == (0.0, 0.0) and odd[-1] == odd[2] > 0


def test_a_swap_kernel_sees_the_product_transposed():
    """A swap-AB 64×80 kernel's rows are N: 8320 × 80 takes 130 × 1 units, one wave; read as
    M it would be 2 × 104 units, two waves."""
    device = Device(H100, {2: 66, 4: 30, 8: 15})
    swap = Candidate.parse("swap_pp_64x80_s8")
    assert wave_features(swap, Product(80, 8320, 1024), device)[1] == 1.0
    assert wave_features(swap, Product(8320, 80, 1024), device)[1] == 2.0


@given(
    m=st.integers(1, 6000),
    n=st.integers(8, 6000).map(lambda x: x // 8 * 8),
    k=st.integers(8, 20000).map(lambda x: x // 8 * 8),
    a_start=st.sampled_from(ROW_STARTS),
    b_start=st.sampled_from(ROW_STARTS),
)
@settings(max_examples=200, deadline=None)
def test_the_pick_is_the_rule_or_a_clearly_faster_kernel(m, n, k, a_start, b_start):
    product = Product(m, n, k, a_start[0], b_start[0], a_start[1], b_start[1])
    pick = select_kernel(product, H100)
    rule = Candidate.of_attributes(
        shape_attributes(m, n, H100, k, not product.off_a, not product.off_b)
    )
    if pick != rule:
        times = shipped_times()
        predicted = as_launched(times.predict(product), m, n, k, H100, times.launched)
        assert predicted[rule] >= SWITCH * predicted[pick]
        assert pick == min(predicted, key=predicted.get)
    _assert_launches(pick, m, n, k)


def _assert_launches(pick: Candidate, m: int, n: int, k: int) -> None:
    """``pick`` is a legal kernel whose launch takes the product (a split-K kernel: every run
    its own CTA within those the table's device runs at once, at its or ``split_count``'s
    runs)."""
    config = pick.config()
    rows, cols = (n, m) if pick.swap else (m, n)
    ctas = shipped_times().device.ctas(config.cluster_size)
    splits = None
    if config.split_k:  # gemm() launches with the pick's count, else split_count's
        splits = pick.splits or split_count(config, rows, cols, k, ctas)
    check_splits(config, rows, cols, k, splits, ctas)


@pytest.mark.parametrize("shape", [(2040, 2880, 7936), (1680, 7920, 9088), (4488, 6984, 3328)])
def test_a_split_k_kernel_is_not_picked_for_more_tiles_than_sms(shape):
    """The wave model, fitted to split-K's times on products of few tiles, extrapolates them to
    products whose tiles outnumber the SMs, where split-K cannot launch (every run its own CTA);
    those products took a split-K kernel and gemm() raised, until ``predict`` left out the
    kernels that do not launch (``gemm_times.takes``)."""
    device = shipped_times().device
    predicted = shipped_times().predict(Product(*shape))
    assert not any(c.decomposition.value == "split_k" for c in predicted)
    assert not takes(Candidate.parse("coop_128x128_s5_split"), Product(*shape), device)
    _assert_launches(select_kernel(Product(*shape), H100), *shape)


def test_another_device_takes_the_rule():
    """The table is an H100's: a device of another SM count keeps the rule's kernel."""
    rule = Candidate.of_attributes(shape_attributes(1536, 1536, 114, 1536))
    assert select_kernel(Product(1536, 1536, 1536), 114) == rule


def test_the_measured_winners_are_taken_where_the_rule_loses():
    """1536³: the rule's 128×256 tiles use 72 of the 132 SMs; a swap-AB 128×144 tile fills
    them (measured 0.96 of cuBLAS against 0.81)."""
    pick = select_kernel(Product(1536, 1536, 1536), H100)
    rule = Candidate.of_attributes(shape_attributes(1536, 1536, H100, 1536))
    assert pick != rule and pick.swap


def test_selection_configs_cover_every_table_kernel_in_each_layout():
    """Each kernel of the table as it was timed (row-major A and B; a swap-AB kernel as the
    transposed product), and each kernel that does not swap in every other layout.  Kernels
    that differ only in their split count share a configuration (the runs are launch-time)."""
    kernels = shipped_times().candidates
    assert {c.config() for c in kernels} <= set(selection_configs(HopperGemmConfig()))
    for a, b in (("row", "row"), ("col", "row"), ("row", "col"), ("col", "col")):
        configs = selection_configs(HopperGemmConfig(a_layout=a, b_layout=b))
        unswapped = {replace(c.config(), a_layout=a, b_layout=b) for c in kernels if not c.swap}
        assert unswapped <= set(configs)
        swapped = [c for c in configs if c.c_layout.value == "col"]
        assert swapped and all(c.a_layout.value != b or c.b_layout.value != a for c in swapped)


@pytest.mark.parametrize(
    "text, message",
    [
        ("m\tn\tk\tcoop_128x256_s3\n1\t2\t3\t4\n", "needs a '# device:' line"),
        ("# device: sms 132; cluster_slots 2:66\nx\ty\n", "must start with m, n, k"),
        ("# device: sms 132; cluster_slots 2:66\nm\tn\tk\tcoop_128x256_s3\n1\t2\n", ":3: 2 cells"),
        ("# device: sms many\nm\tn\tk\n", ":1: expected '# device: sms N"),
        ("# device: sms 132; cluster_slots 2:66\nm\tn\tk\tcoop_9x9\n", "not a kernel name"),
    ],
)
def test_a_bad_table_names_its_line(text, message):
    with pytest.raises((TimesTableError, CandidateNameError), match=message):
        read(text, "t.tsv")


def test_each_device_reads_the_table_measured_on_it():
    """``shipped_times`` by CUDA's device name: the H200's table on an H200, the H100's on an
    H100 and on any device no table names."""
    assert [heading(path)[0].name for path in TABLES] == ["NVIDIA H100 80GB HBM3", "NVIDIA H200"]
    assert shipped_times("NVIDIA H200").device.name == "NVIDIA H200"
    for name in ("NVIDIA H100 80GB HBM3", "NVIDIA H800", ""):
        assert shipped_times(name).device.name == "NVIDIA H100 80GB HBM3"


def test_a_table_timed_as_gemm_launches_keeps_the_reduce_scatters_times(monkeypatch):
    """The H200's table names its split-K kernels on a ``# launched:`` line: they were timed as
    ``gemm()`` launches them (the reduce-scatter where it takes that; thirty-fourth session), so
    ``choose`` does not scale their times by ``SCATTER_SPEEDUP`` again.  Read without the line,
    the table would count the rule's split-K kernel 8 % faster than measured on 512×512×8192
    and pick it there; as shipped, a ping-pong split-K kernel wins."""
    from warpsched.runtime.gemm_reduction import SCATTER_SPEEDUP, as_launched
    from warpsched.runtime.gemm_select import choose
    from warpsched.runtime.gemm_times import LAUNCHED, TABLES, launched_names
    from warpsched.runtime.gemm_times_model import MeasuredTimes

    text = TABLES[1].read_text()
    shipped = MeasuredTimes(text, "h200.tsv")
    splits = {c for c in shipped.candidates if c.config().split_k}
    assert shipped.launched == frozenset(Candidate.parse(n) for n in launched_names(text))
    assert splits and splits <= shipped.launched
    unmarked_text = "".join(
        line for line in text.splitlines(keepends=True) if not line.startswith(LAUNCHED)
    )
    unmarked = MeasuredTimes(unmarked_text, "unmarked.tsv")
    assert not unmarked.launched
    product = Product.of(512, 512, 8192)
    rule = Candidate.parse("coop_128x64_s8_split")
    predicted = shipped.predict(product)
    assert as_launched(predicted, 512, 512, 8192, 132)[rule] == predicted[rule] * SCATTER_SPEEDUP
    kept = as_launched(predicted, 512, 512, 8192, 132, shipped.launched)
    assert kept[rule] == predicted[rule]
    assert choose(unmarked, product, 132) == rule
    assert choose(shipped, product, 132) == Candidate.parse("pp_64x128_s6_split4")
