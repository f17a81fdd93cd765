"""The ISA model's execution on small hand-written kernels: divergence and reconvergence,
barriers between divergent warps, and the errors it raises instead of guessing."""

from __future__ import annotations

import numpy as np
import pytest

from warpsched.nvidia.isa_model import (
    Deadlock,
    Divergence,
    GlobalMemory,
    Hazard,
    Launch,
    MemoryFault,
    NotModelled,
    compile_kernel,
    run,
)

HEAD = """module {
  llvm.mlir.global external @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.func @k(%out: !llvm.ptr<1>) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c2 = llvm.mlir.constant(2 : i32) : i32
    %c3 = llvm.mlir.constant(3 : i32) : i32
    %c32 = llvm.mlir.constant(32 : i32) : i32
    %c64 = llvm.mlir.constant(64 : i32) : i32
    %base = llvm.mlir.addressof @smem : !llvm.ptr<3>
    %dst = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
"""


def _run(body: str, threads: int = 64, smem: int = 256, dependent: bool = False) -> np.ndarray:
    memory = GlobalMemory()
    out = memory.put(np.full(threads, -1, np.int32), "out")
    program = compile_kernel(HEAD + body + "\n  }\n}\n")
    launch = Launch((1, 1, 1), threads, (out,), smem, dependent=dependent)
    run(program, launch, memory)
    return memory.array(out, np.int32, (threads,))


STORE_THEN_WAIT = """
    nvvm.griddepcontrol launch_dependents
    llvm.store %tid, %dst : i32, !llvm.ptr<1>
    nvvm.griddepcontrol wait
    llvm.return"""
WAIT_THEN_STORE = """
    nvvm.griddepcontrol wait
    llvm.store %tid, %dst : i32, !llvm.ptr<1>
    llvm.return"""
ODD_LANES_WAIT = """
    %bit = llvm.and %tid, %c1 : i32
    %odd = llvm.icmp "ne" %bit, %c0 : i32
    llvm.cond_br %odd, ^wait, ^join
  ^wait:
    nvvm.griddepcontrol wait
    llvm.br ^join
  ^join:
    llvm.store %tid, %dst : i32, !llvm.ptr<1>
    llvm.return"""


def test_a_dependent_launch_touches_global_memory_only_after_its_grid_wait():
    """``griddepcontrol.wait``: in a programmatic dependent launch a thread's global access
    before its own wait races with the grid before it (a ``Hazard`` naming the thread; letting
    the next grid in, ``launch_dependents``, is no wait); after it, or in an ordinary launch,
    the access is plain."""
    tid = np.arange(64)
    assert np.array_equal(_run(WAIT_THEN_STORE, dependent=True), tid)
    assert np.array_equal(_run(STORE_THEN_WAIT), tid)
    with pytest.raises(Hazard, match="st.global by thread 0 of CTA 0 before its griddepcontrol"):
        _run(STORE_THEN_WAIT, dependent=True)
    with pytest.raises(Hazard, match="by thread 0 of CTA 0 before"):  # the even lanes never wait
        _run(ODD_LANES_WAIT, dependent=True)


def test_divergent_paths_reconverge_with_block_arguments():
    out = _run("""
    %bit = llvm.and %tid, %c1 : i32
    %odd = llvm.icmp "ne" %bit, %c0 : i32
    llvm.cond_br %odd, ^odd, ^even
  ^odd:
    %a = llvm.mul %tid, %c3 : i32
    llvm.br ^join(%a : i32)
  ^even:
    %b = llvm.mul %tid, %c2 : i32
    llvm.br ^join(%b : i32)
  ^join(%v: i32):
    llvm.store %v, %dst : i32, !llvm.ptr<1>
    llvm.return""")
    tid = np.arange(64)
    assert np.array_equal(out, np.where(tid % 2, 3 * tid, 2 * tid))


def test_a_named_barrier_orders_two_divergent_warps():
    # warp 0 writes shared memory, then both warps meet at bar.sync 1, 64 on different paths;
    # warp 1 then reads what warp 0 wrote
    out = _run("""
    %low = llvm.icmp "ult" %tid, %c32 : i32
    llvm.cond_br %low, ^writer, ^reader
  ^writer:
    %five = llvm.mul %tid, %c3 : i32
    %slot = llvm.getelementptr %base[%tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    llvm.store %five, %slot : i32, !llvm.ptr<3>
    nvvm.barrier id = %c1 number_of_threads = %c64
    llvm.br ^join(%c0 : i32)
  ^reader:
    nvvm.barrier id = %c1 number_of_threads = %c64
    %peer = llvm.sub %tid, %c32 : i32
    %src = llvm.getelementptr %base[%peer] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    %got = llvm.load %src : !llvm.ptr<3> -> i32
    llvm.br ^join(%got : i32)
  ^join(%v: i32):
    llvm.store %v, %dst : i32, !llvm.ptr<1>
    llvm.return""")
    assert np.array_equal(out[32:], 3 * np.arange(32)) and not out[:32].any()


def test_a_barrier_that_never_fills_is_a_deadlock():
    with pytest.raises(
        Deadlock, match=r"threads 0\.\.63 of CTA 0 at \^entry op \d+ \(nvvm.barrier\)"
    ):
        _run("""
    %c96 = llvm.mlir.constant(96 : i32) : i32
    nvvm.barrier id = %c1 number_of_threads = %c96
    llvm.return""")


def test_a_warpgroup_collective_needs_the_whole_warpgroup():
    with pytest.raises(Divergence, match="not by whole warpgroups"):
        _run(
            """
    %low = llvm.icmp "ult" %tid, %c64 : i32
    llvm.cond_br %low, ^half, ^join
  ^half:
    nvvm.wgmma.fence.aligned
    llvm.br ^join
  ^join:
    llvm.return""",
            threads=128,
        )


def _shuffle(source: str, packed: int) -> np.ndarray:
    """Each thread stores ``shfl.sync.idx`` of ``tid * 10`` from lane ``source`` (an SSA
    value of the body) with ``c = packed``, the full member mask."""
    return _run(
        f"""
    %mask = llvm.mlir.constant(-1 : i32) : i32
    %c10 = llvm.mlir.constant(10 : i32) : i32
    %packed = llvm.mlir.constant({packed} : i32) : i32
    %v = llvm.mul %tid, %c10 : i32
    %s = nvvm.shfl.sync idx %mask, %v, {source}, %packed : i32 -> i32
    llvm.store %s, %dst : i32, !llvm.ptr<1>
    llvm.return"""
    )


def test_shfl_sync_idx_reads_the_source_lane_of_each_warp_or_segment():
    """PTX ISA "shfl.sync", idx mode: ``c = 31`` reads lane ``b`` of the thread's own warp (the
    lowering broadcasts lane 0 so that ptxas proves a value warp-uniform); with a segment mask
    (``c = 0x1807``: 8-lane segments) lane ``b & 7`` of the thread's segment; a source past the
    clamp reads the thread's own value."""
    tid = np.arange(64)
    assert np.array_equal(_shuffle("%c0", 31), 10 * (tid // 32 * 32))
    assert np.array_equal(_shuffle("%c3", 31), 10 * (tid // 32 * 32 + 3))
    assert np.array_equal(_shuffle("%c3", 0x1807), 10 * (tid // 8 * 8 + 3))
    assert np.array_equal(_shuffle("%tid", 0x1807), 10 * (tid // 8 * 8 + tid % 8))
    assert np.array_equal(_shuffle("%c3", 0x1802), 10 * tid)  # lane 3 is past the clamp 2
    with pytest.raises(Divergence, match="shfl.sync .* not by whole warps"):
        _run("""
    %mask = llvm.mlir.constant(-1 : i32) : i32
    %c31 = llvm.mlir.constant(31 : i32) : i32
    %low = llvm.icmp "ult" %tid, %c3 : i32
    llvm.cond_br %low, ^few, ^join
  ^few:
    %s = nvvm.shfl.sync idx %mask, %tid, %c0, %c31 : i32 -> i32
    llvm.br ^join
  ^join:
    llvm.return""")


def test_out_of_bounds_and_misaligned_accesses_fault():
    with pytest.raises(MemoryFault, match="outside"):
        _run("""
    %far = llvm.getelementptr %dst[%c32] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    llvm.store %tid, %far : i32, !llvm.ptr<1>
    llvm.return""")
    with pytest.raises(MemoryFault, match="aligned"):
        _run("""
    %odd = llvm.getelementptr %base[%c1] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    llvm.store %tid, %odd : i32, !llvm.ptr<3>
    llvm.return""")


def test_what_is_not_modelled_is_named():
    with pytest.raises(NotModelled, match="inline PTX instruction 'vote.sync.all.pred'"):
        _run("""
    llvm.inline_asm has_side_effects asm_dialect = att "vote.sync.all.pred p, 1, 0xffffffff;", "" : () -> ()
    llvm.return""")
    with pytest.raises(NotModelled, match="'llvm.fneg'"):
        _run("""
    %f = llvm.mlir.constant(1.0 : f32) : f32
    %g = llvm.fneg %f : f32
    llvm.return""")
