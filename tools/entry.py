"""What every warpsched tool shares: no traceback ever escapes, one way to write the output, and
a process that ends as soon as its work is done (``exit_now``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import NoReturn, TextIO

from warpsched.core.atomic import write_atomic
from warpsched.toolchain.extras import missing_module_message


class GuardedStream:
    """A standard stream as a tool writes it: a write that fails (a closed descriptor, a full
    disk, a closed pipe) is recorded in ``lost``, never raised, so the tool ends with one error
    line instead of a traceback.  ``stream`` is None when the descriptor was closed at start."""

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.lost: str | None = None  # why output was lost; None while nothing was

    def _attempt(self, write: Callable[[], object]) -> None:
        if self.lost is not None:
            return
        if self.stream is None:
            self.lost = "it is closed"
            return
        try:
            write()
        except (OSError, ValueError) as exc:  # ValueError: the file object was closed
            self.lost = getattr(exc, "strerror", None) or str(exc)

    @property
    def buffer(self) -> GuardedStream:
        """Itself: ``write`` takes bytes too, as a text stream's ``buffer`` does."""
        return self

    def write(self, data: str | bytes) -> int:
        if data:
            self._attempt(lambda: self._write(data))
        return len(data)

    def _write(self, data: str | bytes) -> None:
        if isinstance(data, bytes):  # after the text written so far
            self.stream.flush()
            self.stream.buffer.write(data)
        else:
            self.stream.write(data)

    def flush(self) -> None:
        if self.stream is not None:
            self._attempt(self.stream.flush)

    def isatty(self) -> bool:
        try:
            return self.stream is not None and self.stream.isatty()
        except ValueError:
            return False


def guarded_main(prog: str, run: Callable[[list[str]], int], argv: list[str] | None) -> int:
    """``run(argv)`` (``sys.argv[1:]`` by default) with every escape turned into an exit status.

    argparse's ``SystemExit`` keeps its meaning (0 for ``--help``, 1 otherwise),
    Ctrl-C exits 1, a module an extra provides that cannot be imported is one
    ``<prog>: error: cannot import 'mlir' (...); install warpsched[toolchain]: ...`` line
    (``warpsched.toolchain.extras``), and any other exception is reported as one
    ``<prog>: error: internal error: ...`` line; each exits 1.  stdout and stderr are
    ``GuardedStream``s while ``run`` runs: output that cannot be written to stdout (closed,
    full, a closed pipe) is one ``<prog>: error: cannot write to standard output`` line and
    status 1; with nothing written, a closed stdout is no error.
    """
    argv = sys.argv[1:] if argv is None else argv
    saved = sys.stdout, sys.stderr
    out, err = GuardedStream(sys.stdout), GuardedStream(sys.stderr)
    sys.stdout, sys.stderr = out, err  # type: ignore[assignment]
    try:
        status = _status(prog, run, argv)
        out.flush()
        if out.lost is not None:
            print(f"{prog}: error: cannot write to standard output: {out.lost}", file=err)
            status = status or 1
        err.flush()
        return status
    finally:
        sys.stdout, sys.stderr = saved


def _status(prog: str, run: Callable[[list[str]], int], argv: list[str]) -> int:
    try:
        return run(argv)
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 1
    except KeyboardInterrupt:
        return 1
    except ImportError as exc:  # a module an extra provides, imported where the tool needs it
        message = missing_module_message(exc)
        what = message or f"internal error: {type(exc).__name__}: {exc}"
        print(f"{prog}: error: {what}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - the last line of defence against tracebacks
        print(f"{prog}: error: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


def write_output(prog: str, path: str, data: str | bytes) -> int:
    """Write ``data`` to stdout (``path`` is ``-``) or atomically to ``path``; the exit status.

    An unwritable ``path`` is one ``<prog>: error: cannot write ...`` line and status 1.
    """
    if path == "-":
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        return 0
    try:
        write_atomic(path, data)
    except OSError as exc:
        print(f"{prog}: error: cannot write '{path}': {exc.strerror}", file=sys.stderr)
        return 1
    return 0


def exit_now(status: int) -> NoReturn:
    """End a tool's process with ``status``, skipping the interpreter's teardown.

    A tool's ``main`` has written its artefact (atomically) and printed everything before it
    returns; the teardown would only free the MLIR context, LLVM and a few hundred modules,
    30-80 ms of a cold ``warpsched-compile`` (docs/hopper-gemm.md, "Compile time").  The
    console scripts and ``python -m warpsched.tools.<tool>`` end here; ``main`` itself returns
    normally, for callers in the same process.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: the descriptor was closed when the process started
                stream.flush()
        except (OSError, ValueError):  # a closed pipe: the normal exit would lose it too
            pass
    os._exit(status)


def console_script(main: Callable[[], int]) -> Callable[[], NoReturn]:
    """``main`` as a console script (what ``pyproject.toml`` and ``python -m`` call): run it,
    then ``exit_now`` with its status."""

    def cli() -> NoReturn:
        exit_now(main())

    return cli
