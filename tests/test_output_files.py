"""Output files: atomic onto regular files and new paths, in place onto devices and FIFOs,
through symbolic links to their targets (``warpsched.core.atomic.write_atomic``), for the
library call and for every tool's ``-o``.

As root, a rename over ``/dev/null`` replaces the device with a regular file, and every later
``>/dev/null`` on the machine then appends to that file.  The fixture ``dev_null_guard``
checks ``/dev/null`` after each test here; should a regression have replaced it, it puts the
device back (``mknod``, as root) before the test fails, so the rest of the suite still runs.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from warpsched.core.atomic import write_atomic

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
DEV_NULL = Path("/dev/null")
NULL_DEVICE = os.makedev(1, 3)


def is_null_device(path: Path) -> bool:
    info = os.stat(path, follow_symlinks=False)
    return stat.S_ISCHR(info.st_mode) and info.st_rdev == NULL_DEVICE


@pytest.fixture(autouse=True)
def dev_null_guard():
    assert is_null_device(DEV_NULL), "/dev/null was already broken before this test"
    yield
    if is_null_device(DEV_NULL):
        return
    if os.geteuid() == 0:
        DEV_NULL.unlink()
        os.mknod(DEV_NULL, 0o666 | stat.S_IFCHR, NULL_DEVICE)
        os.chmod(DEV_NULL, 0o666)
    pytest.fail("the test replaced /dev/null (restored when running as root)")


# ---- the library call -------------------------------------------------------------------------


def test_a_new_file_is_created_and_a_regular_file_is_replaced_whole(tmp_path):
    target = tmp_path / "out.txt"
    write_atomic(target, "first")
    assert target.read_text() == "first"
    inode = target.stat().st_ino
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    assert target.stat().st_ino != inode, "a regular file is replaced by a rename"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"], "no temporary file left"


def test_dev_null_stays_the_null_device():
    write_atomic(DEV_NULL, "discarded\n" * 1000)
    assert is_null_device(DEV_NULL)


def test_a_symbolic_link_keeps_pointing_at_its_target_which_gets_the_data(tmp_path):
    target = tmp_path / "real.mlir"
    target.write_text("old")
    link = tmp_path / "link.mlir"
    link.symlink_to(target.name)
    write_atomic(link, "new")
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_text() == "new"


def test_a_chain_of_links_and_a_dangling_link_resolve_to_the_final_target(tmp_path):
    final = tmp_path / "sub" / "final.txt"
    final.parent.mkdir()
    first, second = tmp_path / "a", tmp_path / "b"
    second.symlink_to(final)
    first.symlink_to(second)
    write_atomic(first, "through two links")  # final does not exist yet: created
    assert final.read_text() == "through two links"
    assert first.is_symlink() and second.is_symlink()


def test_a_link_to_dev_null_writes_through_to_the_device(tmp_path):
    link = tmp_path / "sink"
    link.symlink_to(DEV_NULL)
    write_atomic(link, "gone")
    assert link.is_symlink() and os.readlink(link) == str(DEV_NULL)
    assert is_null_device(DEV_NULL)


def test_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, "through the pipe")
    reader.join(timeout=10)
    assert received == [b"through the pipe"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_full_device_raises_enospc():
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    with pytest.raises(OSError) as caught:
        write_atomic("/dev/full", b"x" * 4096)
    assert caught.value.errno == errno.ENOSPC
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_name_at_the_file_system_limit_still_gets_a_temporary_file(tmp_path):
    target = tmp_path / ("k" * 240 + ".hsaco")  # 246 bytes: the old ".NAME.XXXXXXXX.tmp" was 260
    write_atomic(target, b"\x7fELF")
    assert target.read_bytes() == b"\x7fELF"


# ---- every tool's -o --------------------------------------------------------------------------

TOOL_RUNS = {
    "warpsched-opt": ["opt", "--sched-expand-blocks", str(EXAMPLES / "pingpong_strict.mlir")],
    "warpsched-compile mlir": [
        "compile",
        str(EXAMPLES / "ws_gemm_sm90a.mlir"),
        "--target",
        "sm_90a",
        "--emit=mlir",
    ],
    "warpsched-compile cubin": [
        "compile",
        str(EXAMPLES / "four_wave_strict.mlir"),
        "--target",
        "gfx950",
        "--kernel",
        "four_wave",
    ],
    "warpsched-viz": ["viz", str(EXAMPLES / "pingpong_strict.mlir")],
}


def run_tool(args: list[str], output: Path) -> subprocess.CompletedProcess:
    module, *rest = args
    command = [sys.executable, "-m", f"warpsched.tools.{module}", *rest, "-o", str(output)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("tool", sorted(TOOL_RUNS))
def test_each_tool_writes_o_dev_null_without_replacing_it(tool):
    done = run_tool(TOOL_RUNS[tool], DEV_NULL)
    assert done.returncode == 0, done.stderr
    assert is_null_device(DEV_NULL)


@pytest.mark.parametrize("tool", sorted(TOOL_RUNS))
def test_each_tool_writes_through_a_symbolic_link(tool, tmp_path):
    target = tmp_path / "artefact"
    target.write_text("stale")
    link = tmp_path / "link"
    link.symlink_to(target)
    done = run_tool(TOOL_RUNS[tool], link)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() not in (b"stale", b"")


def test_translate_writes_o_dev_null_and_through_a_link(tmp_path):
    """Also: what ``warpsched-compile --emit=mlir`` prints (with its ``sched.target``) is what
    ``warpsched-translate`` takes."""
    lowered = tmp_path / "k.llvm.mlir"
    made = run_tool(TOOL_RUNS["warpsched-compile mlir"], lowered)
    assert made.returncode == 0, made.stderr
    assert 'sched.target = "sm_90a"' in lowered.read_text()
    done = run_tool(["translate", "--mlir-to-llvmir", str(lowered)], DEV_NULL)
    assert done.returncode == 0, done.stderr
    assert is_null_device(DEV_NULL)
    target = tmp_path / "k.ll"
    link = tmp_path / "k.link.ll"
    link.symlink_to(target)
    done = run_tool(["translate", "--mlir-to-llvmir", str(lowered)], link)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and "define" in target.read_text()


def test_a_full_disk_is_one_write_error_line():
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    done = run_tool(TOOL_RUNS["warpsched-opt"], Path("/dev/full"))
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "warpsched-opt: error: cannot write '/dev/full': No space left on device"
    )
