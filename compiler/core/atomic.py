"""Output files written so that readers see the old file or the whole new one.

The rule (``write_atomic``): only a regular file, or a path that does not exist yet, is replaced
atomically (a temporary file beside it, then a rename).  Anything else at the path (a device such
as ``/dev/null`` or ``/dev/full``, a FIFO, a socket) is opened and written in place: renaming over
it would replace the device node itself, which root is allowed to do.  A symbolic link is followed
to its final target, and the rule applies there, so the link survives and the file it names gets
the data.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` to ``path``: atomically onto a regular or new file, directly onto anything else.

    Symbolic links are resolved first (``os.path.realpath``), so a link given as ``path`` keeps
    pointing at its target and the target receives the data.  Raises ``OSError`` as the
    underlying calls do (a missing folder, no permission, a full disk).
    """
    target = Path(os.path.realpath(path))
    payload = data.encode() if isinstance(data, str) else data
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        _write_in_place(target, payload)
        return
    _replace_atomically(target, payload)


def _write_in_place(target: Path, payload: bytes) -> None:
    """Open ``target`` (a device, FIFO or socket) for writing and write ``payload`` through it."""
    with open(target, "wb", buffering=0) as handle:
        view = memoryview(payload)
        while view:
            written = handle.write(view)
            view = view[written:]


def _replace_atomically(target: Path, payload: bytes) -> None:
    """Write ``payload`` to a temporary file beside ``target``, then rename it over ``target``.

    The temporary name is short and fixed in shape (``.ws-XXXXXXXX.tmp``), so a target whose own
    name is near the file system's limit still gets a temporary file.
    """
    fd, tmp = tempfile.mkstemp(prefix=".ws-", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
