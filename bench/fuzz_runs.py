"""One tool run of ``fuzz_tools.py`` and how it ends.

The tools run in-process in a worker process (a tool's start would dominate), their fds 1 and 2
redirected to files; a worker that dies is a crash, one that outlives the timeout a hang, and
either is restarted.  ``classify`` names the outcome of a run that finished (``OUTCOMES``).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

OUTCOMES = (
    "success",
    "diagnostic",
    "silent failure",
    "internal error",
    "traceback",
    "crash",
    "hang",
    "partial output",
)


@dataclass(frozen=True)
class Job:
    """One tool run: ``tool`` with ``argv`` (``{input}`` and ``{output}`` filled in the worker's
    scratch folder); ``output_on_failure`` is True where a failed run may leave its output,
    ``silent_one`` where exit 1 without an error line is a result (``viz --diff``: differ)."""

    tool: str
    argv: tuple[str, ...]
    data: bytes
    original: bytes
    output_on_failure: bool = False
    silent_one: bool = False


def _worker(conn) -> None:
    """Run jobs from ``conn`` in-process until it sends None."""
    from warpsched.tools import compile, opt, run, translate, tune, viz

    tune.has_gpu = lambda: False  # the no-GPU path: parse and check, never compile
    mains = {
        "opt": opt.main,
        "translate": translate.main,
        "compile": compile.main,
        "run": run.main,
        "viz": viz.main,
        "tune": tune.main,
    }
    while (job := conn.recv()) is not None:
        with tempfile.TemporaryDirectory(prefix="fuzz-") as scratch:
            folder = Path(scratch)
            (folder / "in").mkdir()
            source, original = folder / "in" / "input.mlir", folder / "in" / "original.mlir"
            source.write_bytes(job.data)
            original.write_bytes(job.original)
            out = folder / "out"
            out.mkdir()
            names = {"input": source, "original": original, "output": out / "result"}
            argv = [a.format(**{k: str(v) for k, v in names.items()}) for a in job.argv]
            streams = [os.open(folder / name, os.O_WRONLY | os.O_CREAT) for name in ("1", "2")]
            saved = [os.dup(1), os.dup(2)]
            sys.stdout.flush(), sys.stderr.flush()
            os.dup2(streams[0], 1), os.dup2(streams[1], 2)
            try:
                status = mains[job.tool](argv)
            finally:
                sys.stdout.flush(), sys.stderr.flush()
                os.dup2(saved[0], 1), os.dup2(saved[1], 2)
                for fd in (*streams, *saved):
                    os.close(fd)
            err = (folder / "2").read_text(errors="replace")
            left = sorted(p.name for p in out.iterdir())
        conn.send((status, err, left))


class Worker:
    """One worker process, restarted when it dies, hangs or has run ``RESTART_EVERY`` jobs."""

    RESTART_EVERY = 300

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.context = multiprocessing.get_context("spawn")
        self.worker = self._start()
        self.done = 0

    def _start(self):
        parent, child = self.context.Pipe()
        process = self.context.Process(target=_worker, args=(child,), daemon=True)
        process.start()
        child.close()
        return process, parent

    def run(self, job: Job) -> tuple[str, str]:
        """The outcome of ``job`` and its stderr."""
        self.done += 1
        if self.done % self.RESTART_EVERY == 0:  # in-process runs accumulate MLIR contexts
            self.close()
            self.worker = self._start()
        process, conn = self.worker
        conn.send(job)
        if not conn.poll(self.timeout):
            process.kill()
            process.join()
            self.worker = self._start()
            return "hang", ""
        try:
            status, err, left = conn.recv()
        except (EOFError, OSError):  # the worker died mid-job
            process.join()
            self.worker = self._start()
            return "crash", f"worker exit {process.exitcode}"
        return classify(job, status, err, left), err

    def close(self) -> None:
        self.worker[1].send(None)
        self.worker[0].join()


def classify(job: Job, status: int, err: str, left: list[str]) -> str:
    """The outcome of one finished run."""
    if "Traceback (most recent call last)" in err:
        return "traceback"
    if "internal error" in err:
        return "internal error"
    if status not in (0, 1):
        return "crash"
    stray = [name for name in left if not name.startswith("result")]
    if stray or (status == 1 and left and not job.output_on_failure):
        return "partial output"
    if status == 0 or (job.silent_one and "error:" not in err):
        return "success"
    return "diagnostic" if "error:" in err else "silent failure"
