"""The CSP-ordered production schedules: golden S2 as shipped, its verdict, its fix, the
reference's CSP facts, and warpsched-compile's fidelity on both AMD targets.

``examples/pingpong_csp.mlir`` is golden S2 as a ``sched.build`` without knobs (the
ping-pong family's default, CSP + auto waits); ``examples/pingpong_csp_fixed.mlir`` is its
fix (docs/verify.md, "The S2 verdict").  The facts below are the reference's own tests of
CSP-ordered schedules (``test_pipeline_ldg.mojo``, listed in mojo-semantics.md A9).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_examples import GOLDEN, ROOT, _schedules
from tool_run import opt

from warpsched.dialects.amd.ops import ScheduleOp
from warpsched.dialects.registry import new_context
from warpsched.frontend.load import load_module
from warpsched.interpret import interpret, load_kernel
from warpsched.interpret.dataflow import WrongBlock
from warpsched.schedule import OpRole, Ops, format_entries
from warpsched.schedule.builders import (
    ScheduleConfig,
    SchedulingStrategy,
    compile_schedule,
    derive_waits_from_blocks,
    mi355x_double_buffer,
    pingpong_schedule,
)
from warpsched.schedule.builders import kernel as kernel_module
from warpsched.schedule.format import op_name
from warpsched.tools import compile as compile_tool
from warpsched.verify.amd_trace import Visibility

EXAMPLE = ROOT / "examples" / "pingpong_csp.mlir"
FIXED = ROOT / "examples" / "pingpong_csp_fixed.mlir"
CSP = ScheduleConfig(scheduling=SchedulingStrategy.CSP, auto_waits=True)
MODES = [
    f"visibility={v} war={w} lds-geometry={g}"
    for v in ("wave", "group")
    for w in ("issue", "lgkm")
    for g in ("kernel", "schedule")
]


def verdicts(text: str) -> list[str]:
    """sched-verify's first rule broken in each mode ('ok' when it passes)."""
    out = []
    for mode in MODES:
        done = opt("-", f"--sched-verify={mode}", input_text=text)
        if done.returncode == 0:
            out.append("ok")
        else:
            out.append(re.search(r"sched-verify: ([a-z-]+):", done.stderr).group(1))
    return out


# ---- golden S2 as shipped ------------------------------------------------------------------------


def test_example_expands_to_golden_s2() -> None:
    result = opt(str(EXAMPLE), "--sched-build-program", "--sched-expand-blocks")
    assert result.returncode == 0, result.stderr
    module = load_module(result.stdout, "s2.mlir", new_context())  # owns the ops below
    [op] = _schedules(module)
    schedule = ScheduleOp(op)
    assert schedule.warp_stagger_index == 4
    for program in schedule.programs():
        name = program.phase.name.lower()
        assert format_entries(program.entries()) == (GOLDEN / f"S2.{name}.txt").read_text()


def test_s2_races_in_every_mode() -> None:
    """The verdict recorded in docs/verify.md: prefetch-overwrite under the kernel's layout,
    dma-visibility (the derived wait_vm(12)) under the reference scheduler's buffer model."""
    assert verdicts(EXAMPLE.read_text()) == [
        "dma-visibility" if "lds-geometry=schedule" in mode else "prefetch-overwrite"
        for mode in MODES
    ]


# ---- the fixed variant ---------------------------------------------------------------------------


def _built_s2() -> str:
    result = opt(str(EXAMPLE), "--sched-build-program")
    assert result.returncode == 0, result.stderr
    return result.stdout


def _program(text: str, phase: str) -> list[str]:
    lines = text[text.index(f"sched.program {phase}") :].splitlines()
    return [line.strip() for line in lines[1 : lines.index("    }")]]


def test_fixed_s2_passes_every_mode() -> None:
    assert verdicts(FIXED.read_text()) == ["ok"] * len(MODES)


def test_fixed_s2_changes_only_the_kernel() -> None:
    built, fixed = _built_s2(), FIXED.read_text()
    for phase in ("prologue", "epilogue trailing_barrier"):
        assert _program(fixed, phase) == _program(built, phase)
    kernel = list(zip(_program(built, "kernel"), _program(fixed, "kernel"), strict=True))
    assert [i for i, (a, b) in enumerate(kernel) if a != b] == [1, 2, 3, 5, 6, 7]


def _variant(edits: dict[int, tuple[str, str]]) -> str:
    """The fixed S2 with text ``old`` replaced by ``new`` in kernel block ``b`` of stage 0 and,
    with the stage and K offset of stage 1, in block ``b + 4``: ``edits[b] = (old, new)``."""
    text = FIXED.read_text()
    kernel = text.index("sched.program kernel")
    lines = text[kernel:].splitlines()
    for block, (old, new) in edits.items():
        for b, st, k in ((block, "st 0", "K0"), (block + 4, "st 1", "K1")):
            before, after = (x.replace("st 0", st).replace("K0", k) for x in (old, new))
            assert before in lines[1 + b], (before, lines[1 + b])
            lines[1 + b] = lines[1 + b].replace(before, after)
    return text[:kernel] + "\n".join(lines) + "\n"


LOAD_A = "global_load = #sched.op<load_a st 0 sub 0 k K0>"
LOAD_B = "global_load = #sched.op<load_b st 0 sub 0 k K0>"
LOAD_B1 = "global_load = #sched.op<load_b st 0 sub 1 k K0>"
WAIT_LGKM0 = ", pre_sync = #sched.op<wait_lgkm 0>"
NEEDED = {
    "S2's wait_vm(12)": {3: ("wait_vm 6>", "wait_vm 12>")},
    "no wait_lgkm(0) in block 1": {1: (WAIT_LGKM0, "")},
    "S2's B prefetch in block 1": {
        1: ("vgpr_def 8>, pre_sync", f"vgpr_def 8>, {LOAD_B}, pre_sync"),
        2: (f", {LOAD_B}", ""),
    },
    "S2's A prefetch in block 2": {
        2: (LOAD_B, f"{LOAD_A}, global_load_1{LOAD_B[len('global_load') :]}"),
        3: (f"{LOAD_A}, global_load_1{LOAD_B1[len('global_load') :]}", LOAD_B1),
    },
}


@pytest.mark.parametrize("what", NEEDED)
def test_every_change_of_the_fix_is_needed(what: str) -> None:
    assert verdicts(_variant(NEEDED[what])) != ["ok"] * len(MODES), what


def test_the_fix_is_the_strict_s1_kernel_less_two_waits() -> None:
    strict = (ROOT / "examples" / "pingpong_strict.mlir").read_text()
    fixed = _variant({2: (" flags [trailing", f"{WAIT_LGKM0} flags [trailing")})
    assert _program(fixed, "kernel") == _program(strict, "kernel")
    assert verdicts(fixed) == ["ok"] * len(MODES)


# ---- the reference's facts about CSP-ordered schedules -------------------------------------------


@pytest.mark.parametrize("lgkm", [8, 4], ids=["bf16-8-8", "fp8-4-4"])
def test_csp_prologue_has_seven_loads_two_waits_one_barrier(lgkm: int) -> None:
    """test_pipeline_ldg.mojo L2164-2233: BF16 [False,8,8] and FP8 [True,4,4] (``is_fp8`` does
    not reach the schedule) give a 10-entry prologue: 7 loads, 2 wait_vm, 1 barrier."""
    prologue = compile_schedule(pingpong_schedule(CSP, lgkm_a=lgkm, lgkm_b=lgkm)).prologue
    tags = [entry.op.tag for entry in prologue]
    assert len(prologue) == 10
    assert sum(entry.op.role == OpRole.GLOBAL_LOAD for entry in prologue) == 7
    assert tags.count(Ops.WAIT_VM) == 2 and tags.count(Ops.BARRIER) == 1


@pytest.mark.parametrize("lgkm", [8, 4])
def test_csp_wait_vm_is_the_same_in_both_halves(lgkm: int) -> None:
    """L2366-2442: the derived wait_vm of the two halves' last blocks are equal."""
    program = compile_schedule(pingpong_schedule(CSP, lgkm_a=lgkm, lgkm_b=lgkm)).program
    assert program.blocks[3].pre_sync == program.blocks[7].pre_sync
    assert program.blocks[3].pre_sync.tag == Ops.WAIT_VM


def test_csp_keeps_one_global_per_block() -> None:
    """test_distribution_preserved_after_csp: max_globals = 1 gives [1, 1, 1, 1] per half."""
    program = compile_schedule(pingpong_schedule(lgkm_a=8, lgkm_b=8)).program
    counts = [b.global_load.is_present() + b.global_load_1.is_present() for b in program.blocks]
    assert counts == [1] * 8


def test_csp_wait_counts_match_the_blocks() -> None:
    """test_wait_counts_match_block_structure: the program's waits are derive_waits_from_blocks'."""
    schedule = pingpong_schedule(lgkm_a=8, lgkm_b=8)
    program = compile_schedule(schedule).program
    lgkm, vm = derive_waits_from_blocks(program.blocks, schedule.pipeline, 8, 8)
    assert (program.blocks[0].pre_sync.wait_value, program.blocks[3].pre_sync.wait_value) == (
        lgkm,
        vm,
    )


def test_csp_kernel_holds_every_body_op() -> None:
    """test_declarative_c2_validation: CSP without auto waits, [False,0,0]: every data op of the
    body is in the kernel, once."""
    compiled = compile_schedule(
        pingpong_schedule(ScheduleConfig(scheduling=SchedulingStrategy.CSP, auto_waits=False))
    )
    data = [entry.op for entry in compiled.kernel if entry.op.tag < 128]
    assert len(data) == len(compiled.body) == 24
    assert sorted(data, key=repr) == sorted(compiled.body, key=repr)


# ---- warpsched-compile ---------------------------------------------------------------------------


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize(
    ("example", "entries", "flags"), [(EXAMPLE, 105, ["--no-verify"]), (FIXED, 107, [])]
)
def test_compiles_at_full_fidelity(
    arch: str, example: Path, entries: int, flags: list[str], tmp_path: Path, capsys
) -> None:
    args = [str(example), "--target", arch, "--kernel", f"pingpong_{arch}", "--check-fidelity"]
    assert compile_tool.main([*args, *flags, "-o", str(tmp_path / "k.hsaco")]) == 0
    out = capsys.readouterr()
    assert f"schedule fidelity {entries}/{entries} (100.0%)" in out.out + out.err


# ---- an LDS contention penalty of 1 to 16: the order the reference would build wrong ----------

PENALTY_SOURCE = """module attributes {{sched.target = "gfx950"}} {{
  sched.build @s pingpong {{scheduling = csp, auto_waits = true, lds_contention_penalty = {p}}} lgkm 8 8
  sched.kernel @pingpong_gfx950 schedule @s
}}
"""


def _penalised(penalty: int, max_globals: int):
    config = ScheduleConfig(
        scheduling=SchedulingStrategy.CSP, auto_waits=True, lds_contention_penalty=penalty
    )
    pipeline = mi355x_double_buffer(4, 4, max_globals)
    return pingpong_schedule(config, lgkm_a=8, lgkm_b=8, pipeline=pipeline)


FRAG_A = "MMA_LOAD_A[st=1,sub=0]"
DROPS = {(0, p): FRAG_A for p in (1, 4, 8)} | {
    (1, p): f"{FRAG_A}, LOAD_A[st=1,sub=0,k=K1]" for p in (1, 4, 8)
}
DROPS |= {(mg, 16): f"{FRAG_A}, LOAD_B[st=1,sub=1,k=K1]" for mg in (0, 1)}
"""What the reference drops from the solver's order, per (max_globals, penalty): the third
fragment load of block 4, and the global load left after the last MMA (max_globals 1) or
block 4's third global load (max_globals 0, penalty 16)."""


@pytest.mark.parametrize(("max_globals", "penalty"), sorted(DROPS))
def test_a_penalty_of_1_to_16_is_refused_saying_what_the_reference_drops(
    penalty: int, max_globals: int
) -> None:
    """docs/benchmarks.md, the CSP stress rows: the solver's order (the reference's) puts
    three fragment loads before block 4's MMA, and sometimes a third global load there or a
    global load after the last MMA.  The reference's _construct_mma_blocks keeps two of each
    per block and stops after the last block, dropping the rest; warpsched refuses the order
    and names every op the reference would drop."""
    with pytest.raises(ValueError) as refused:
        compile_schedule(_penalised(penalty, max_globals))
    message = str(refused.value)
    assert message.startswith(
        "block 4 collects 3 fragment loads (MMA_LOAD_B[st=1,sub=0], MMA_LOAD_B[st=1,sub=1], "
        "MMA_LOAD_A[st=1,sub=0]) but a block holds 2 (pre_op_0, pre_op_1); "
    )
    assert (
        f"; the reference keeps what fits and drops {DROPS[max_globals, penalty]} without a "
        "word (program_builder.mojo _construct_mma_blocks), so its kernel lacks them and the "
        "MMAs that depend on them compute with data their K block never loaded; warpsched "
        "refuses the order instead: the order is the CSP solver's (lds_contention_penalty = "
        f"{penalty}): choose other CSP knobs or another strategy"
    ) in message and message.endswith("another strategy")
    compile_schedule(_penalised(64, max_globals))  # a penalty of 64 orders it into 2 per block


def test_the_reference_s_build_of_that_order_computes_a_wrong_c(monkeypatch) -> None:
    """Why warpsched refuses: built as the reference builds it (each block keeps its first two
    fragment loads, nothing after the last MMA), the kernel lacks ``MMA_LOAD_A[st=1,sub=0]``
    and the ``LOAD_A[st=1,sub=0,k=K1]`` prefetch, and half 1's first MMA (kernel entry 42)
    computes K block 1 with the A fragment of block 0 that half 0 loaded.  The interpreter
    names that read, among others, and explains every wrong element."""
    solver_order = kernel_module.order_ops

    def reference_order(graph, config, sched):
        order, frags, out = solver_order(graph, config, sched), 0, []
        for i in order:
            role = graph.nodes[i]["op"].role
            frags = 0 if role == OpRole.COMPUTE else frags + (role == OpRole.FRAGMENT_LOAD)
            if role != OpRole.FRAGMENT_LOAD or frags <= 2:
                out.append(i)
        while graph.nodes[out[-1]]["op"].role != OpRole.COMPUTE:
            out.pop()
        return out

    monkeypatch.setattr(kernel_module, "order_ops", reference_order)
    context = new_context()
    with context:
        module = load_module(PENALTY_SOURCE.format(p=1), "penalty1.mlir", context)
        program = load_kernel(module, "penalty1.mlir", "pingpong_gfx950")
    kernel = [op_name(e.op) for e in program.schedule.kernel if e.op.tag < 128]
    assert len(kernel) == 22
    assert "MMA_LOAD_A[st=1,sub=0]" not in kernel and "LOAD_A[st=1,sub=0,k=K1]" not in kernel
    out = interpret(program)
    assert not out.correct and out.unexplained == 0
    assert any(
        isinstance(h, WrongBlock)
        and h.mma.where == "kernel[42] (iteration 1)"
        and op_name(h.read.op) == "MMA_LOAD_A[st=0,sub=0]"
        and (h.seen, h.expected) == (0, 1)
        for h in out.hazards
    )


# ---- the CPU interpreter on S2 and its fix (docs/verify.md, "The S2 verdict") -------------------


def _interpreted(path: Path, kernel: str, arch: str = "", **options):
    context = new_context()
    with context:
        module = load_module(path.read_text(), path.name, context)
        program = load_kernel(module, path.name, kernel, arch)
    return interpret(program, **options)


@pytest.mark.parametrize(
    ("kernel", "arch", "counts"),
    [("pingpong_gfx950", "", (42, 38)), ("pingpong_gfx942", "gfx942", (57, 51))],
)
def test_the_interpreter_finds_s2_wrong_and_explains_every_element(
    kernel: str, arch: str, counts: tuple[int, int]
) -> None:
    """42 hazards (38 under visibility=group) for the gfx950 kernel, 57 and 51 for the gfx942
    one with its 4-byte DMA lanes; all 65,536 elements wrong, each one explained."""
    for rule, count in zip((Visibility.WAVE, Visibility.GROUP), counts, strict=True):
        out = _interpreted(EXAMPLE, kernel, arch, visibility=rule)
        assert (len(out.hazards), out.mismatches, out.unexplained) == (count, 65536, 0), rule


@pytest.mark.parametrize(
    ("kernel", "arch", "shape"),
    [
        ("pingpong_gfx950", "", {}),
        ("pingpong_gfx950", "", {"m": 512, "n": 256, "k": 640}),
        ("pingpong_gfx942", "", {}),
        ("pingpong_gfx942", "gfx942", {}),
    ],
)
def test_the_interpreter_finds_the_fixed_s2_exact(kernel: str, arch: str, shape: dict) -> None:
    for rule in Visibility:
        out = _interpreted(FIXED, kernel, arch, visibility=rule, **shape)
        assert out.correct and not out.hazards, (rule, [h.message() for h in out.hazards[:3]])
