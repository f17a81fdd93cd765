"""A content-addressed disk cache for compiled kernels (cubins), in the manner of Triton's.

The key (``cache_key``) is the SHA-256 of everything that decides the artefact:
the source text, the kernel's entry name, the target, the options (sorted,
canonical JSON), the warpsched version and ``CACHE_SCHEMA``. Change any one and
the key changes.

Layout under the cache directory (``$WARPSCHED_CACHE_DIR``, else
``~/.cache/warpsched``)::

    <key[:2]>/<key>.<sha[:16]>.bin   the artefact, named by its own SHA-256
    <key[:2]>/<key>.json             {"schema", "key", "artefact", "sha256", "size", "metadata"}

``put`` writes each file to a temporary file in the same directory and renames
it into place (``os.replace``): first the artefact, then the JSON record that
names it. The JSON rename is the single commit point, so a reader never sees a
partial file, and concurrent writers of one key cannot leave a record pointing
at another writer's artefact: the last record renamed wins, and its artefact
is already in place. ``get`` trusts an entry only if the record parses, names
the same key and schema, and the artefact it names has the recorded SHA-256
and size; anything else (missing, truncated, corrupted) is a miss, and the next
``put`` repairs it. An artefact replaced by different bytes for the same key
leaves its old file behind (cleared with the directory).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from ..core.atomic import write_atomic

__all__ = ["CACHE_SCHEMA", "CACHE_DIR_ENV", "KernelCache", "cache_key", "default_cache_dir"]

CACHE_SCHEMA = 1
CACHE_DIR_ENV = "WARPSCHED_CACHE_DIR"
_KEY = re.compile(r"[0-9a-f]{64}")
_ARTEFACT = re.compile(r"[0-9a-f]{64}\.[0-9a-f]{16}\.bin")


def _canonical(value, what: str) -> str:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{what} must be JSON-serialisable (str, int, float, bool, None, "
            f"lists and str-keyed dicts of them): {exc}"
        ) from None


def _version() -> str:
    from .. import __version__

    return __version__


def cache_key(
    source: str,
    name: str,
    target: str,
    options: Mapping[str, object] | None = None,
    *,
    version: str | None = None,
    schema: int = CACHE_SCHEMA,
) -> str:
    """SHA-256 hex digest over (source, name, target, sorted options, version, schema).

    ``options`` values must be JSON-serialisable; tuples hash like lists.
    ``version`` defaults to ``warpsched.__version__``.
    """
    for field, value in (("source", source), ("name", name), ("target", target)):
        if not isinstance(value, str):
            raise TypeError(f"cache_key: {field} must be a str, got {type(value).__name__}")
    fields = {
        "schema": schema,
        "version": _version() if version is None else version,
        "source": source,
        "name": name,
        "target": target,
        "options": dict(options or {}),
    }
    return hashlib.sha256(_canonical(fields, "options").encode()).hexdigest()


def default_cache_dir() -> Path:
    """``$WARPSCHED_CACHE_DIR`` if set and non-empty, else ``~/.cache/warpsched``."""
    env = os.environ.get(CACHE_DIR_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "warpsched"


class KernelCache:
    """Artefacts and their metadata on disk, addressed by ``cache_key`` digests."""

    def __init__(self, directory: str | os.PathLike | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()

    def _folder(self, key: str) -> Path:
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise ValueError(
                f"cache key must be 64 lowercase hex digits (from cache_key), got {key!r}"
            )
        return self.directory / key[:2]

    def entry(self, key: str) -> tuple[bytes, dict] | None:
        """The artefact and metadata stored under ``key``, read together (one read of the
        record and the artefact), or ``None`` on a miss (absent or not intact)."""
        folder = self._folder(key)
        try:
            record = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
            name = record["artefact"]
            if not isinstance(name, str) or not _ARTEFACT.fullmatch(name) or name[:64] != key:
                return None
            artefact = (folder / name).read_bytes()
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
            return None
        if not isinstance(record.get("metadata"), dict):
            return None
        valid = (
            record.get("schema") == CACHE_SCHEMA
            and record.get("key") == key
            and record.get("size") == len(artefact)
            and record.get("sha256") == hashlib.sha256(artefact).hexdigest()
        )
        return (artefact, record["metadata"]) if valid else None

    def get(self, key: str) -> bytes | None:
        """The artefact stored under ``key``, or ``None`` on a miss (absent or not intact)."""
        entry = self.entry(key)
        return None if entry is None else entry[0]

    def metadata(self, key: str) -> dict | None:
        """The metadata dict stored with ``key``'s artefact, or ``None`` on a miss."""
        entry = self.entry(key)
        return None if entry is None else entry[1]

    def put(self, key: str, artefact: bytes, metadata: Mapping[str, object] | None = None) -> Path:
        """Store ``artefact`` and its JSON-serialisable ``metadata``; return the artefact's path."""
        if not isinstance(artefact, (bytes, bytearray, memoryview)):
            raise TypeError(f"artefact must be bytes, got {type(artefact).__name__}")
        artefact = bytes(artefact)
        folder = self._folder(key)
        digest = hashlib.sha256(artefact).hexdigest()
        artefact_path = folder / f"{key}.{digest[:16]}.bin"
        record = {
            "schema": CACHE_SCHEMA,
            "key": key,
            "artefact": artefact_path.name,
            "sha256": digest,
            "size": len(artefact),
            "metadata": dict(metadata or {}),
        }
        text = _canonical(record, "metadata")
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(artefact_path, artefact)
        write_atomic(folder / f"{key}.json", text.encode())
        return artefact_path
