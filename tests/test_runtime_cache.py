"""KernelCache and cache_key: round trip, key sensitivity, atomic writes, corrupt entries."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from pathlib import Path

import pytest

import warpsched
from warpsched.runtime import CACHE_SCHEMA, KernelCache, cache_key, default_cache_dir

BASE = {
    "source": "sched.kernel @gemm {}",
    "name": "gemm",
    "target": "sm_90a",
    "options": {"num_stages": 4, "block": [128, 256, 64]},
}


def key(**changes) -> str:
    fields = {**BASE, **changes}
    return cache_key(fields.pop("source"), fields.pop("name"), fields.pop("target"), **fields)


def test_round_trip(tmp_path):
    cache = KernelCache(tmp_path)
    k = key()
    assert cache.get(k) is None and cache.metadata(k) is None
    path = cache.put(k, b"\x7fELF cubin", {"smem_bytes": 200704, "threads": 384})
    digest = hashlib.sha256(b"\x7fELF cubin").hexdigest()
    assert path == tmp_path / k[:2] / f"{k}.{digest[:16]}.bin"
    assert path.read_bytes() == b"\x7fELF cubin"
    assert cache.get(k) == b"\x7fELF cubin"
    assert cache.metadata(k) == {"smem_bytes": 200704, "threads": 384}
    assert cache.entry(k) == (b"\x7fELF cubin", {"smem_bytes": 200704, "threads": 384})
    record = json.loads((tmp_path / k[:2] / f"{k}.json").read_text())
    assert record["schema"] == CACHE_SCHEMA and record["key"] == k and record["size"] == 10
    assert record["artefact"] == path.name and record["sha256"] == digest
    assert KernelCache(tmp_path).get(k) == b"\x7fELF cubin"  # a fresh instance reads it back
    cache.put(k, b"replacement", {})
    assert cache.get(k) == b"replacement" and cache.metadata(k) == {}


def test_key_is_sha256_hex_and_deterministic():
    k = key()
    assert len(k) == 64 and int(k, 16) >= 0 and k == key()


@pytest.mark.parametrize(
    "change",
    [
        {"source": BASE["source"] + " "},
        {"name": "gemm2"},
        {"target": "sm_100a"},
        {"options": {"num_stages": 3, "block": [128, 256, 64]}},
        {"options": {"num_stages": 4, "block": [128, 256, 64], "swizzle": 128}},
        {"options": {}},
        {"version": "0.1.1"},
        {"schema": CACHE_SCHEMA + 1},
    ],
)
def test_key_changes_with_every_input(change):
    assert key(**change) != key()


def test_key_ignores_option_order_and_tuple_vs_list():
    reordered = {"block": (128, 256, 64), "num_stages": 4}
    assert key(options=reordered) == key()
    assert key(version=warpsched.__version__) == key()
    assert key(options=None) == key(options={})


def test_fields_cannot_collide_by_concatenation():
    assert cache_key("ab", "c", "t") != cache_key("a", "bc", "t")


def test_bad_inputs():
    with pytest.raises(TypeError, match="options must be JSON-serialisable"):
        key(options={"fn": object()})
    with pytest.raises(TypeError, match="source must be a str"):
        cache_key(b"bytes", "gemm", "sm_90a")
    cache = KernelCache("/nonexistent")
    for bad in ["../../etc/passwd", "ABC", key().upper(), key()[:-1]]:
        with pytest.raises(ValueError, match="64 lowercase hex digits"):
            cache.get(bad)
    with pytest.raises(TypeError, match="artefact must be bytes"):
        cache.put(key(), "text")


def test_directory_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPSCHED_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    assert KernelCache().directory == tmp_path / "c"
    path = KernelCache().put(key(), b"x")
    assert path.parent == tmp_path / "c" / key()[:2] and path.read_bytes() == b"x"
    monkeypatch.delenv("WARPSCHED_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "warpsched"
    monkeypatch.setenv("WARPSCHED_CACHE_DIR", "")
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "warpsched"


def _record_path(root: Path, k: str) -> Path:
    return root / k[:2] / f"{k}.json"


@pytest.mark.parametrize(
    "damage",
    [
        "truncate_artefact",
        "flip_artefact_byte",
        "delete_artefact",
        "delete_metadata",
        "garbage_metadata",
        "metadata_not_object",
        "metadata_other_key",
        "metadata_old_schema",
        "metadata_not_utf8",
        "artefact_name_escapes",
        "artefact_of_another_key",
    ],
)
def test_corrupt_entry_is_a_miss_and_put_repairs_it(tmp_path, damage):
    cache, k = KernelCache(tmp_path), key()
    bin_path = cache.put(k, b"0123456789abcdef", {"threads": 128})
    json_path = _record_path(tmp_path, k)
    record = json.loads(json_path.read_text())
    if damage == "truncate_artefact":
        bin_path.write_bytes(b"01234567")
    elif damage == "flip_artefact_byte":
        bin_path.write_bytes(b"0123456789abcdeF")
    elif damage == "delete_artefact":
        bin_path.unlink()
    elif damage == "delete_metadata":
        json_path.unlink()
    elif damage == "garbage_metadata":
        json_path.write_text('{"schema": 1, "key": ')
    elif damage == "metadata_not_object":
        json_path.write_text("[1, 2]")
    elif damage == "metadata_other_key":
        json_path.write_text(json.dumps({**record, "key": key(name="other")}))
    elif damage == "metadata_old_schema":
        json_path.write_text(json.dumps({**record, "schema": CACHE_SCHEMA - 1}))
    elif damage == "metadata_not_utf8":
        json_path.write_bytes(b"\xff\xfe{}")
    elif damage == "artefact_name_escapes":
        json_path.write_text(json.dumps({**record, "artefact": "../../etc/passwd"}))
    elif damage == "artefact_of_another_key":
        other = cache.put(key(name="other"), b"0123456789abcdef")
        (tmp_path / k[:2] / other.name).write_bytes(b"0123456789abcdef")
        json_path.write_text(json.dumps({**record, "artefact": other.name}))
    assert cache.get(k) is None and cache.metadata(k) is None
    cache.put(k, b"0123456789abcdef", {"threads": 128})
    assert cache.get(k) == b"0123456789abcdef"


def test_put_leaves_no_temporary_files(tmp_path):
    cache = KernelCache(tmp_path)
    for i in range(5):
        cache.put(key(name=f"k{i}"), bytes([i]) * 100, {"i": i})
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert sorted(p.suffix for p in files) == [".bin"] * 5 + [".json"] * 5
    assert not [p for p in files if p.name.startswith(".")]


def test_crash_between_artefact_and_record_keeps_the_old_entry(tmp_path, monkeypatch):
    cache, k = KernelCache(tmp_path), key()
    cache.put(k, b"old artefact", {"v": 1})
    real_replace = os.replace

    def crash_on_metadata(src, dst):
        if str(dst).endswith(".json"):
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_metadata)
    with pytest.raises(OSError, match="disk full"):
        cache.put(k, b"new artefact", {"v": 2})
    monkeypatch.setattr(os, "replace", real_replace)
    digest = hashlib.sha256(b"new artefact").hexdigest()
    assert (tmp_path / k[:2] / f"{k}.{digest[:16]}.bin").exists()  # the new artefact landed ...
    assert cache.get(k) == b"old artefact"  # ... but the committed entry is still the old one
    assert cache.metadata(k) == {"v": 1}
    assert [p.name for p in tmp_path.rglob("*.tmp")] == []  # and the temp file was removed
    cache.put(k, b"new artefact", {"v": 2})
    assert cache.get(k) == b"new artefact"


def test_unserialisable_metadata_writes_nothing(tmp_path):
    cache, k = KernelCache(tmp_path), key()
    with pytest.raises(TypeError, match="metadata must be JSON-serialisable"):
        cache.put(k, b"artefact", {"bad": {1, 2}})
    assert not any(tmp_path.rglob("*"))


def test_interleaved_writers_cannot_tear_an_entry(tmp_path):
    """Writer A's artefact, then B's artefact and record, then A's record: A's entry is whole."""
    cache, k = KernelCache(tmp_path), key()
    cache.put(k, b"artefact A", {"by": "A"})
    record_a = _record_path(tmp_path, k).read_bytes()
    cache.put(k, b"artefact B", {"by": "B"})
    assert cache.get(k) == b"artefact B"
    _record_path(tmp_path, k).write_bytes(record_a)  # A's record renamed last
    assert cache.get(k) == b"artefact A" and cache.metadata(k) == {"by": "A"}


def _writer(directory: str, k: str, tag: int, rounds: int) -> None:
    cache = KernelCache(directory)
    for _ in range(rounds):
        cache.put(k, bytes([tag]) * (4096 + tag), {"tag": tag})


def test_concurrent_writers_and_reader(tmp_path):
    """Readers see a miss or one writer's complete artefact with its own metadata, never a mix."""
    k, rounds = key(), 60
    ctx = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    writers = [
        ctx.Process(target=_writer, args=(str(tmp_path), k, tag, rounds)) for tag in (1, 2, 3)
    ]
    for w in writers:
        w.start()
    cache, seen = KernelCache(tmp_path), set()
    while any(w.is_alive() for w in writers):
        artefact = cache.get(k)
        if artefact is not None:
            tag = artefact[0]
            assert artefact == bytes([tag]) * (4096 + tag)
            seen.add(tag)
    for w in writers:
        w.join()
        assert w.exitcode == 0
    final = cache.get(k)
    assert final is not None and final == bytes([final[0]]) * (4096 + final[0])
    assert cache.metadata(k) == {"tag": final[0]}
    assert not list(tmp_path.rglob("*.tmp"))
