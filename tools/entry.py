"""What every warpsched tool's console entry point shares: no traceback ever escapes."""

from __future__ import annotations

import sys
from collections.abc import Callable


def guarded_main(prog: str, run: Callable[[list[str]], int], argv: list[str] | None) -> int:
    """``run(argv)`` (``sys.argv[1:]`` by default) with every escape turned into an exit status.

    argparse's ``SystemExit`` keeps its meaning (0 for ``--help``, 1 otherwise),
    Ctrl-C exits 1, and any other exception is reported as one
    ``<prog>: error: internal error: ...`` line and exits 1.
    """
    argv = sys.argv[1:] if argv is None else argv
    try:
        return run(argv)
    except SystemExit as exc:
        return 0 if exc.code in (0, None) else 1
    except KeyboardInterrupt:
        return 1
    except Exception as exc:  # noqa: BLE001 - the last line of defence against tracebacks
        print(f"{prog}: error: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
