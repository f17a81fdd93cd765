"""Reading the disassembly (``amdgpu.isa``) and the fidelity checker's satisfied-by-elision rule, on real ISA.

The 4-wave epilogue repeats ``wait_lgkm(0)`` / ``wait_vm(0)`` with nothing
between that counts on the counter, so LLVM drops the redundant
``s_waitcnt``s (in the reference lowering, ``pin_order=False``; the pinned
default keeps every wait in its window).  The checker accepts a dropped wait only with a proof read off
the ISA; these tests break each part of the proof and watch the wait turn
into a named deviation.
"""

from __future__ import annotations

import re

import pytest
from test_amdgpu_four_wave import FOUR, TILE, s4_schedule

from warpsched.amdgpu import AMDOptions, check_fidelity, compile_schedule
from warpsched.amdgpu.isa import (
    Counter,
    Instruction,
    parse_disassembly,
    straight_line_regions,
)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    return compile_schedule(
        s4_schedule(),
        tmp_path_factory.mktemp("gfx950"),
        tile=TILE,
        options=AMDOptions("gfx950", pin_order=False),
        structure=FOUR,
    )


def _check(ck, text: str):
    return check_fidelity(s4_schedule(), text, ck.lowered.mfma_per_mma, structure=FOUR)


def test_instructions_carry_addresses_and_branch_targets(compiled) -> None:
    isa = parse_disassembly(compiled.disassembly())
    addresses = [insn.address for insn in isa]
    assert None not in addresses and addresses == sorted(addresses)
    branches = [insn for insn in isa if insn.mnemonic.startswith(("s_branch", "s_cbranch"))]
    assert branches and all(insn.target in addresses for insn in branches)
    regions = straight_line_regions(isa)
    back_edge = next(insn for insn in branches if insn.target < insn.address)  # the main loop
    head = addresses.index(back_edge.target)
    assert regions[head] == regions[head - 1] + 1


def test_counters() -> None:
    load = Instruction("buffer_load_dwordx4", "v1, s[4:7], 0 offen lds")
    read = Instruction("ds_read_b128", "v[0:3], v4")
    scalar = Instruction("s_load_dwordx2", "s[0:1], s[2:3], 0x0")
    assert load.increments(Counter.VM) and not load.increments(Counter.LGKM)
    assert (
        read.increments(Counter.LGKM)
        and scalar.increments(Counter.LGKM)
        and not read.increments(Counter.VM)
    )
    assert Instruction("flat_load_dword", "v0, v[0:1]").increments(Counter.VM)
    assert not Instruction("v_mfma_f32_16x16x32_bf16", "").increments(Counter.LGKM)


def test_epilogue_waits_are_satisfied_by_elision_with_a_proof(compiled) -> None:
    result = compiled.fidelity(s4_schedule())
    assert result.elided and all(e.item.phase == "epilogue" for e in result.elided)
    by_address = {insn.address: insn for insn in parse_disassembly(compiled.disassembly())}
    for elided in result.elided:
        assert f"s_waitcnt {by_address[elided.address].operands}" == elided.by
    text = result.render()
    assert f"{result.present} present, {len(result.elided)} satisfied by elision" in text
    assert (
        "epilogue block 1 entry 6 wait_vm(0): satisfied by elision (counter already drained by "
        in text
    )


def _insert_after(text: str, address: int, line: str) -> str:
    lines = text.splitlines()
    at = next(i for i, old in enumerate(lines) if f"// {address:012X}:" in old)
    return "\n".join([*lines[: at + 1], line, *lines[at + 1 :]])


def _vm_elision(ck):
    result = ck.fidelity(s4_schedule())
    return next(e for e in result.elided if e.item.name == "wait_vm(0)")


def test_a_counted_instruction_after_the_draining_wait_refutes_elision(compiled) -> None:
    elided = _vm_elision(compiled)
    text = _insert_after(
        compiled.disassembly(), elided.address, "\tbuffer_load_dword v1, v2, s[4:7], 0 offen lds"
    )
    result = _check(compiled, text)
    assert elided.item in [d.item for d in result.deviations]
    assert elided.item not in [e.item for e in result.elided]


def test_an_instruction_of_the_other_counter_does_not(compiled) -> None:
    elided = _vm_elision(compiled)
    text = _insert_after(compiled.disassembly(), elided.address, "\tds_read_b128 v[0:3], v4")
    assert elided.item in [e.item for e in _check(compiled, text).elided]


def test_a_branch_between_refutes_elision(compiled) -> None:
    elided = _vm_elision(compiled)
    # A conditional branch to the next instruction: the code after it starts a new straight-line region.
    text = compiled.disassembly()
    base = int(re.search(r"^([0-9a-f]+) <warpsched_gemm>:", text, re.M).group(1), 16)
    target = elided.address + 4
    branch = f"\ts_cbranch_scc0 0  // {elided.address + 2:012X}: BF840000 <warpsched_gemm+{target - base:#x}>"
    result = _check(compiled, _insert_after(text, elided.address, branch))
    assert elided.item in [d.item for d in result.deviations]


def test_unresolvable_branch_targets_refute_every_elision(compiled) -> None:
    text = "\n".join(
        line.split(" <warpsched_gemm")[0] for line in compiled.disassembly().splitlines()
    )
    assert straight_line_regions(parse_disassembly(text)) is None
    result = _check(compiled, text)
    baseline = compiled.fidelity(s4_schedule())
    assert result.elided == ()
    refused = {d.item for d in baseline.deviations} | {e.item for e in baseline.elided}
    assert {d.item for d in result.deviations} == refused
