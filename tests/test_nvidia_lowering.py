"""The lowered MLIR (llvm + nvvm) of the proof kernel holds every §B4-§B6 protocol step, in order."""

from __future__ import annotations

import dataclasses
import re

import pytest
from proof_gemm import Broken, Mode, ProofConfig, build_proof_kernel

from warpsched.nvidia import program as P
from warpsched.nvidia.datapaths.select import DataPath, DataPathError
from warpsched.nvidia.lowering.kernel import LoweringError, lower_kernel
from warpsched.nvidia.program.roles import Role
from warpsched.nvidia.targets import NVTarget


def _lower(**kw) -> str:
    return lower_kernel(build_proof_kernel(ProofConfig(**kw))).mlir


def _constants(text: str) -> dict[str, int]:
    return {
        m[1]: int(m[2])
        for m in re.finditer(r"(%c\d+) = llvm\.mlir\.constant\((-?\d+) : i\d+\)", text)
    }


def _role_section(text: str, role: Role) -> str:
    """The blocks between the role's entry label and its join label."""
    start = re.search(rf"^  \^role_{role.value}_\d+:$", text, re.M).start()
    end = re.search(rf"^  \^role_{role.value}__join\d+:$", text, re.M).start()
    return text[start:end]


def _in_order(section: str, *needles: str) -> list[int]:
    """Positions of each needle, each searched after the previous one; fails naming the missing one."""
    positions, at = [], 0
    for needle in needles:
        at = section.find(needle, at)
        assert at >= 0, f"{needle!r} missing (or out of order)"
        positions.append(at)
        at += len(needle)
    return positions


def _init_counts(text: str) -> list[int]:
    consts = _constants(text)
    return [consts[c] for c in re.findall(r'"nvvm\.mbarrier\.init"\(%\w+, (%c\d+)\)', text)]


@pytest.mark.parametrize("target, producer", [(NVTarget.SM90A, 32), (NVTarget.SM100A, 1)])
def test_init_counts_follow_b6(target, producer):
    text = _lower(target=target, num_stages=2)
    # ab (2 stages): full 32 (load threads), empty 32 (MMA threads); tiles (2 stages): full 32, empty 192;
    # acc (2 stages): full = one commit (sm_100a) or every MMA thread (sm_90a), empty = cta_group * 128;
    # dealloc: 128
    assert _init_counts(text) == [
        32,
        32,
        32,
        32,
        32,
        192,
        32,
        192,
        producer,
        128,
        producer,
        128,
        128,
    ]
    assert (
        text.index("nvvm.mbarrier.init")
        < text.index("nvvm.fence.mbarrier.init")
        < text.index("nvvm.barrier0")
    )


def test_per_k_input_consumer_count_includes_epilogue_warps():
    assert _init_counts(_lower(mode=Mode.PER_K))[:4] == [32, 32 + 4, 32, 32 + 4]


def test_wrong_arrival_count_variant_changes_only_that_count():
    assert _init_counts(_lower(broken=Broken.WRONG_ARRIVAL_COUNT))[8:12] == [32, 129, 32, 129]


def test_waits_are_try_wait_parity_spin_loops():
    text = _lower()
    loops = re.findall(
        r"\^(wait\d+):\n\s+(%v\d+) = \"nvvm\.mbarrier\.try_wait\"\(%\w+, %\w+\).*\n"
        r"\s+llvm\.cond_br \2, \^waited\d+, \^\1\n",
        text,
    )
    assert len(loops) == text.count('"nvvm.mbarrier.try_wait"') > 0


def test_phases_start_producer_1_consumer_0():
    text = _lower(target=NVTarget.SM100A)
    mma = _role_section(text, Role.MMA)
    consts = _constants(text)
    stores = re.findall(r"llvm\.store (%c\d+), %var\d+ : i32", mma)[:8]
    # per pipeline (ab, tiles, acc): producer stage 0, phase 1; consumer stage 0, phase 0
    assert [consts[c] for c in stores] == [0, 1, 0, 0, 0, 1, 0, 0]


def test_sm100a_mma_role_protocol_order():
    mma = _role_section(_lower(target=NVTarget.SM100A), Role.MMA)
    _in_order(
        mma,
        '"nvvm.tcgen05.alloc"',
        "nvvm.bar.warp.sync",
        "nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>",  # the allocation, before bar.arrive
        '"bar.arrive 1, 160;"',
        '"nvvm.mbarrier.try_wait"',  # acquire_for_mma: empty[ps]
        '"nvvm.mbarrier.try_wait"',  # input_consume: full[s] of the A/B stage
        "nvvm.tcgen05.fence #nvvm.tcgen05_fence<after>",
        '"nvvm.elect.sync"',
        '"nvvm.tcgen05.mma"',
        '"nvvm.elect.sync"',
        '"nvvm.tcgen05.commit"',  # the input stage's empty barrier, from the issuing lane
        '"nvvm.mbarrier.arrive"',  # ... and the other lanes
        '"nvvm.elect.sync"',
        '"nvvm.tcgen05.commit"',  # release_from_mma: the output stage's full barrier
        '"nvvm.tcgen05.relinquish_alloc_permit"',
        '"nvvm.mbarrier.try_wait"',  # the dealloc barrier
        '"nvvm.tcgen05.dealloc"',
    )
    assert "<{group = #nvvm.cta_group<cta_1>}>" in mma
    assert "nvvm.mma.sync" not in mma
    # one commit per input stage release, one per output stage release; K = 64 is 4 MMAs of k16
    assert mma.count('"nvvm.tcgen05.commit"') == 2
    assert mma.count('"nvvm.tcgen05.mma"') == 4


def test_sm100a_epilogue_role_protocol_order():
    epi = _role_section(_lower(target=NVTarget.SM100A), Role.EPILOGUE)
    _in_order(
        epi,
        "nvvm.barrier id = ",
        '"nvvm.mbarrier.try_wait"',
        '"nvvm.mbarrier.arrive"',
        '"nvvm.mbarrier.arrive"',
    )
    consts = _constants(_lower(target=NVTarget.SM100A))
    ident, count = re.search(
        r"nvvm\.barrier id = (%c\d+) number_of_threads = (%c\d+)", epi
    ).groups()
    assert (consts[ident], consts[count]) == (1, 160)


def test_sm90a_has_no_tcgen05_and_signals_with_mbarrier_arrive():
    text = _lower(target=NVTarget.SM90A)
    assert "tcgen05" not in text
    mma = _role_section(text, Role.MMA)
    _in_order(
        mma,
        '"bar.arrive 1, 160;"',
        '"nvvm.mbarrier.try_wait"',
        "nvvm.mma.sync",
        '"nvvm.mbarrier.arrive"',
        '"nvvm.mbarrier.try_wait"',
    )


def _with_output(base: P.Kernel, out: P.OutputPipeline, **changes) -> P.Kernel:
    return dataclasses.replace(base, output_pipeline=out, **changes)


def _protocol_only(steps: tuple) -> tuple:
    """``steps`` without data steps and A/B input contexts (the protocol skeleton)."""
    data = (P.LoadInputStage, P.MmaTileProduct, P.ZeroAccumulator, P.StoreAccumulator)
    data += (P.DrainStageToC, P.KLoop, P.InputProduce, P.InputConsume)
    kept = []
    for step in steps:
        if isinstance(step, data):
            continue
        if hasattr(step, "body"):
            step = dataclasses.replace(step, body=_protocol_only(step.body))
        kept.append(step)
    return tuple(kept)


def test_cta_group_2_takes_the_pair_data_path_as_a_cluster_kernel():
    base = build_proof_kernel(ProofConfig(target=NVTarget.SM100A))
    out = P.OutputPipeline("acc", type(base.output_pipeline.config)(2, 128, cta_group=2))
    lowered = lower_kernel(_with_output(base, out))
    assert lowered.data_path is DataPath.TCGEN05_PAIR and lowered.cluster == (2, 1, 1)
    assert "nvvm.cluster_dim = array<i32: 2, 1, 1>" in lowered.mlir


def test_cta_group_2_pair_shape_is_refused_by_name():
    base = build_proof_kernel(ProofConfig(target=NVTarget.SM100A))
    out = P.OutputPipeline("acc", type(base.output_pipeline.config)(1, 288, cta_group=2))
    kernel = _with_output(base, out, gemm=P.GemmParams(128, 288, 64))
    with pytest.raises(DataPathError, match="not a tcgen05.mma.cta_group::2 shape"):
        lower_kernel(kernel)


def test_cta_group_2_uses_multicast_commit_and_leader_arrive():
    base = build_proof_kernel(ProofConfig(target=NVTarget.SM100A))
    out = P.OutputPipeline("acc", type(base.output_pipeline.config)(2, 32, cta_group=2))
    kernel = _with_output(
        base,
        out,
        gemm=P.GemmParams(),
        input_pipelines=base.input_pipelines[1:],  # the tile ids only: no A/B data path
        bodies=tuple(
            dataclasses.replace(b, steps=_protocol_only(b.steps))
            for b in base.bodies
            if b.role is not Role.LOAD
        ),
    )
    text = lower_kernel(kernel).mlir
    consts = _constants(text)
    mask = re.search(
        r'"nvvm\.tcgen05\.commit"\(%\w+, (%c\d+)\) <\{group = #nvvm\.cta_group<cta_2>\}>', text
    )
    assert mask and consts[mask[1]] == 0b11
    assert "and.b32 a, $0, 0xFEFFFFFF; mbarrier.arrive.shared::cluster.b64" in text
    assert "mapa.shared::cluster.u32" in text
    assert _init_counts(text)[4:] == [1, 256, 1, 256, 256]


def test_per_k_epilogue_exit_order():
    epi = _role_section(_lower(mode=Mode.PER_K), Role.EPILOGUE)
    # acquire full[cs]; accumulate; arrive_input (elected); output empty arrive (every thread)
    _in_order(
        epi,
        '"nvvm.mbarrier.try_wait"',
        "llvm.fadd",
        '"nvvm.elect.sync"',
        '"nvvm.mbarrier.arrive"',
        '"nvvm.mbarrier.arrive"',
    )


def test_missing_release_variant_has_one_arrive_fewer():
    good = _role_section(_lower(), Role.EPILOGUE)
    bad = _role_section(_lower(broken=Broken.MISSING_RELEASE), Role.EPILOGUE)
    assert bad.count('"nvvm.mbarrier.arrive"') == good.count('"nvvm.mbarrier.arrive"') - 1


def test_linear_release_of_unheld_stage_is_a_lowering_error():
    base = build_proof_kernel(ProofConfig())
    bodies = (P.RoleBody(Role.MMA, (P.ReleaseStage("never"),)),)
    kernel = P.Kernel(
        base.name,
        base.target,
        base.layout,
        base.launch_threads,
        base.gemm,
        base.input_pipelines,
        base.output_pipeline,
        bodies,
    )
    with pytest.raises(LoweringError, match="release of stage 'never', which is not held"):
        lower_kernel(kernel)
