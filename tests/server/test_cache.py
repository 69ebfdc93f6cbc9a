"""cache.py: results by content key in a JSON-only diskcache, in a private directory; pickled rows are refused
and never unpickled; two editors can share one cache."""
from __future__ import annotations

import json
import sqlite3
import multiprocessing
import os
import stat
import threading
import time
import zlib
from pathlib import Path

import diskcache
import pytest

from adaexplore_core.jsonstore import json_disk
from adaexplore_server.cache import GuardedCache, PickledRowError, ResultCache, content_key, private_directory

RESULT = {"best": True, "speedup": 1.25, "kernels": ["a", "b"], "nested": {"x": None, "y": [1, 2.5]},
          "best_source": "import triton\n# é 😀 中\n"}


@pytest.fixture
def results(tmp_path):
    cache = ResultCache(tmp_path)
    yield cache
    cache.close()


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def json_key(key: str) -> bytes:
    """How JsonOnlyDisk stores the key ``key`` (JSON, zlib level 0): what a row must use to be looked up."""
    return zlib.compress(json.dumps(key).encode("utf-8"), 0)


# --- round trip -----------------------------------------------------------------------------------------

def test_put_get_latest_round_trip(results):
    assert results.get("k1") is None
    assert results.latest("file:///a.py", "Net") is None
    results.put("k1", "file:///a.py", "Net", RESULT)
    assert results.get("k1") == RESULT
    assert results.latest("file:///a.py", "Net") == ("k1", RESULT)
    assert results.latest("file:///a.py", "Other") is None
    assert results.latest("file:///b.py", "Net") is None
    assert results.get("k2") is None


def test_latest_follows_the_newest_put(results):
    results.put("k1", "file:///a.py", "Net", {"n": 1})
    results.put("k2", "file:///a.py", "Net", {"n": 2})
    results.put("k3", "file:///a.py", "Other", {"n": 3})
    assert results.latest("file:///a.py", "Net") == ("k2", {"n": 2})
    assert results.latest("file:///a.py", "Other") == ("k3", {"n": 3})
    assert results.get("k1") == {"n": 1}                 # older results stay, by their own key
    results.put("k1", "file:///a.py", "Net", {"n": 10})  # the same key again: overwritten, newest again
    assert results.latest("file:///a.py", "Net") == ("k1", {"n": 10})


def test_large_results_round_trip(results):
    big = {"best_source": "x = 1\n" * 50_000, "log": ["line"] * 5000}     # stored in a file, not the db
    results.put("big", "file:///a.py", "Net", big)
    assert results.get("big") == big


@pytest.mark.parametrize("value", [
    {"tensor": object()},
    {"set": {1, 2}},
    {"bytes": b"\x00"},
    {"path": Path("/tmp")},
    {"nested": [1, {"deep": object()}]},
])
def test_non_json_values_raise_and_store_nothing(tmp_path, value):
    results = ResultCache(tmp_path)
    try:
        with pytest.raises(TypeError):
            results.put("k", "file:///a.py", "Net", value)
        assert results.get("k") is None
        assert results.latest("file:///a.py", "Net") is None
    finally:
        results.close()
    reopened = ResultCache(tmp_path)
    try:
        assert reopened.get("k") is None and reopened.latest("file:///a.py", "Net") is None
    finally:
        reopened.close()


def test_a_failed_put_keeps_the_previous_latest(results):
    results.put("good", "file:///a.py", "Net", {"n": 1})
    with pytest.raises(TypeError):
        results.put("bad", "file:///a.py", "Net", {"n": object()})
    assert results.latest("file:///a.py", "Net") == ("good", {"n": 1})


def test_rows_are_json_on_disk(results):
    """No pickle anywhere: every row's key and value is stored as JSON (raw bytes/text), never MODE_PICKLE."""
    results.put("k1", "file:///a.py", "Net", RESULT)
    results.close()
    plain = diskcache.Cache(str(results.directory), disk=diskcache.JSONDisk, disk_compress_level=0)
    try:
        rows = plain._sql("SELECT raw, mode FROM Cache").fetchall()
        assert len(rows) == 2
        assert all(raw == 1 for raw, _ in rows)
        assert all(mode != diskcache.core.MODE_PICKLE for _, mode in rows)
        assert plain.get("result:k1") == RESULT
        assert plain.get("latest:file:///a.py#Net") == "k1"
    finally:
        plain.close()


def test_the_cache_survives_reopening(tmp_path):
    first = ResultCache(tmp_path)
    first.put("k1", "file:///a.py", "Net", RESULT)
    first.close()
    second = ResultCache(tmp_path)
    try:
        assert second.get("k1") == RESULT
        assert second.latest("file:///a.py", "Net") == ("k1", RESULT)
    finally:
        second.close()


def test_an_open_cache_sees_another_instances_rows(tmp_path):
    """Two editors on one cache: rows one writes reach the other (at once for a row it never read)."""
    one, two = ResultCache(tmp_path), ResultCache(tmp_path)
    try:
        one.put("k1", "file:///a.py", "Net", {"from": "one"})
        assert two.get("k1") == {"from": "one"}
        two.put("k2", "file:///a.py", "Net", {"from": "two"})
        assert one.get("k2") == {"from": "two"}
    finally:
        one.close()
        two.close()


def test_a_row_read_as_absent_shows_up_once_another_instance_writes_it(tmp_path):
    """Reads are remembered, but a row another editor writes is seen at the latest after memo_seconds."""
    one, two = ResultCache(tmp_path, memo_seconds=0.3), ResultCache(tmp_path)
    try:
        assert one.get("k1") is None and one.latest("file:///a.py", "Net") is None
        two.put("k1", "file:///a.py", "Net", {"n": 1})
        deadline = time.monotonic() + 1.5
        while one.latest("file:///a.py", "Net") is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert one.get("k1") == {"n": 1}
        assert one.latest("file:///a.py", "Net") == ("k1", {"n": 1})
        two.put("k2", "file:///a.py", "Net", {"n": 2})
        deadline = time.monotonic() + 1.5
        while one.latest("file:///a.py", "Net")[0] != "k2" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert one.latest("file:///a.py", "Net") == ("k2", {"n": 2})
    finally:
        one.close()
        two.close()


# --- the directory --------------------------------------------------------------------------------------

def test_directory_is_created_0700(tmp_path):
    base = tmp_path / "fresh" / "cache"
    results = ResultCache(base)
    try:
        assert results.directory == base / "results"
        assert results.directory.is_dir()
        assert mode_of(results.directory) == 0o700
    finally:
        results.close()


def test_existing_open_directory_is_tightened(tmp_path):
    (tmp_path / "results").mkdir(mode=0o755)
    (tmp_path / "results").chmod(0o755)
    assert mode_of(tmp_path / "results") == 0o755
    results = ResultCache(tmp_path)
    try:
        assert mode_of(results.directory) == 0o700
    finally:
        results.close()


@pytest.mark.parametrize("mode", [0o777, 0o750, 0o705, 0o711])
def test_private_directory_tightens_any_group_or_other_bit(tmp_path, mode):
    path = tmp_path / "p"
    path.mkdir()
    path.chmod(mode)
    assert private_directory(path) == path
    assert mode_of(path) == 0o700


def test_private_directory_creates_parents(tmp_path):
    path = private_directory(tmp_path / "a" / "b" / "c")
    assert path.is_dir() and mode_of(path) == 0o700


def test_private_directory_under_a_permissive_umask(tmp_path):
    old = os.umask(0)
    try:
        path = private_directory(tmp_path / "u")
    finally:
        os.umask(old)
    assert mode_of(path) == 0o700


def test_default_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    from adaexplore_core.jsonstore import default_cache_dir
    monkeypatch.delenv("ADAEXPLORE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "adaexplore"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "adaexplore"
    monkeypatch.setenv("ADAEXPLORE_CACHE_DIR", str(tmp_path / "explicit"))
    assert default_cache_dir() == tmp_path / "explicit"


# --- pickled rows ---------------------------------------------------------------------------------------

class Boom:
    """Unpickling this creates ``path`` (what an attacker's payload would do, harmlessly)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def write_plain_rows(directory: Path, rows: dict) -> None:
    """Rows written by a plain diskcache.Cache (the default, pickling Disk) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    plain = diskcache.Cache(str(directory))
    try:
        for key, value in rows.items():
            plain.set(key, value)
    finally:
        plain.close()


def test_pickled_row_is_refused(tmp_path):
    write_plain_rows(tmp_path / "results", {json_key("result:evil"): {"best": True, "x": [1, 2]}})
    results = ResultCache(tmp_path)
    try:
        with pytest.raises(PickledRowError, match="pickled"):
            results.get("evil")
    finally:
        results.close()


def test_pickled_latest_row_is_refused(tmp_path):
    write_plain_rows(tmp_path / "results", {json_key("latest:file:///a.py#Net"): ["k1"]})
    results = ResultCache(tmp_path)
    try:
        with pytest.raises(PickledRowError):
            results.latest("file:///a.py", "Net")
    finally:
        results.close()


@pytest.mark.parametrize("padding", [0, 200_000])      # in the db, and in a value file
def test_pickled_payload_is_never_unpickled(tmp_path, padding):
    marker = tmp_path / "unpickled"
    write_plain_rows(tmp_path / "results", {
        json_key("result:evil"): {"pad": "p" * padding, "payload": Boom(str(marker))},
        json_key("latest:file:///a.py#Net"): Boom(str(marker)),
    })
    assert not marker.exists()
    results = ResultCache(tmp_path)
    try:
        with pytest.raises(PickledRowError):
            results.get("evil")
        with pytest.raises(PickledRowError):
            results.latest("file:///a.py", "Net")
        with pytest.raises(PickledRowError):
            results.get("evil")                         # refused again, not remembered as absent
    finally:
        results.close()
    assert not marker.exists()


def test_the_payload_really_runs_when_unpickled(tmp_path):
    """The control for the test above: a plain cache does run the payload."""
    marker = tmp_path / "unpickled"
    write_plain_rows(tmp_path / "plain", {"evil": {"payload": Boom(str(marker))}})
    plain = diskcache.Cache(str(tmp_path / "plain"))
    try:
        plain.get("evil")
    finally:
        plain.close()
    assert marker.exists()


def test_pickled_rows_under_other_keys_do_not_disturb(tmp_path):
    marker = tmp_path / "unpickled"
    write_plain_rows(tmp_path / "results", {"result:evil": Boom(str(marker)), ("tuple", "key"): Boom(str(marker))})
    results = ResultCache(tmp_path)
    try:
        assert results.get("evil") is None                   # a str key is not a JSON key: never looked up
        results.put("k1", "file:///a.py", "Net", RESULT)
        assert results.get("k1") == RESULT
    finally:
        results.close()
    assert not marker.exists()


def test_json_disk_refuses_pickled_keys(tmp_path):
    disk = json_disk()(str(tmp_path))
    with pytest.raises(PickledRowError):
        disk.get(b"\x80\x04K\x01.", False)
    with pytest.raises(PickledRowError):
        disk.fetch(diskcache.core.MODE_PICKLE, None, b"\x80\x04K\x01.", False)


def test_a_truncated_value_file_reads_as_absent(tmp_path):
    results = ResultCache(tmp_path)
    results.put("big", "file:///a.py", "Net", {"best_source": "x = 1\n" * 20_000})
    results.close()
    files = [p for p in (tmp_path / "results").rglob("*.val")]
    assert len(files) == 1
    data = files[0].read_bytes()
    files[0].write_bytes(data[: len(data) // 2])
    reopened = ResultCache(tmp_path)
    try:
        assert reopened.get("big") is None
    finally:
        reopened.close()


def test_a_corrupt_raw_row_reads_as_absent(tmp_path):
    write_plain_rows(tmp_path / "results", {json_key("result:bad"): b"not zlib at all"})
    results = ResultCache(tmp_path)
    try:
        assert results.get("bad") is None
    finally:
        results.close()


def test_a_row_with_bad_json_reads_as_absent(tmp_path):
    write_plain_rows(tmp_path / "results", {json_key("result:bad"): zlib.compress(b"{not json", 0)})
    results = ResultCache(tmp_path)
    try:
        assert results.get("bad") is None
    finally:
        results.close()


# --- content keys ---------------------------------------------------------------------------------------

def test_content_key_is_stable_and_sensitive_to_each_part():
    base = content_key("class A:\n    pass", "functions:def get_inputs(): ...", "python|2.5|3.3|cpu|builtin")
    assert base == content_key("class A:\n    pass", "functions:def get_inputs(): ...", "python|2.5|3.3|cpu|builtin")
    assert len(base) == 32 and int(base, 16) >= 0
    assert content_key("class A:\n    pass ", "functions:def get_inputs(): ...", "python|2.5|3.3|cpu|builtin") != base
    assert content_key("class A:\n    pass", "functions:def get_inputs(): ..", "python|2.5|3.3|cpu|builtin") != base
    assert content_key("class A:\n    pass", "functions:def get_inputs(): ...", "python|2.5|3.3|cuda|builtin") != base


def test_content_key_parts_do_not_run_together():
    assert content_key("ab", "c", "d") != content_key("a", "bc", "d")
    assert content_key("a", "bc", "d") != content_key("a", "b", "cd")
    assert content_key("", "", "x") != content_key("x", "", "")
    assert content_key("é", "😀", "") != content_key("e", "😀", "")


# --- two editors at once --------------------------------------------------------------------------------

def test_two_caches_writing_from_threads(tmp_path):
    one, two = ResultCache(tmp_path), ResultCache(tmp_path)
    errors: list[BaseException] = []

    def write(cache: ResultCache, tag: str) -> None:
        try:
            for i in range(150):
                cache.put(f"{tag}{i}", f"file:///{tag}.py", f"C{i % 5}", {"tag": tag, "i": i, "pad": "x" * (i * 50)})
                assert cache.get(f"{tag}{i}")["i"] == i
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=write, args=(c, t)) for c, t in ((one, "a"), (two, "b"), (one, "c"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    one.close()
    two.close()
    assert not errors, errors
    check = ResultCache(tmp_path)
    try:
        for tag in "abc":
            for i in range(150):
                assert check.get(f"{tag}{i}") == {"tag": tag, "i": i, "pad": "x" * (i * 50)}
            for c in range(5):
                key, result = check.latest(f"file:///{tag}.py", f"C{c}")
                assert key == f"{tag}{145 + c}" and result["i"] == 145 + c
    finally:
        check.close()


def _process_writer(directory: str, tag: str, count: int) -> None:
    cache = ResultCache(Path(directory))
    try:
        for i in range(count):
            cache.put(f"{tag}{i}", "file:///shared.py", f"Net{tag}", {"tag": tag, "i": i, "pad": "y" * (i * 400)})
            cache.put("shared", "file:///shared.py", "Shared", {"tag": tag, "i": i})
    finally:
        cache.close()


def test_two_processes_writing_at_once(tmp_path):
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_process_writer, args=(str(tmp_path), tag, 120)) for tag in ("p", "q")]
    for p in processes:
        p.start()
    for p in processes:
        p.join(timeout=60)
    assert [p.exitcode for p in processes] == [0, 0]
    check = ResultCache(tmp_path)
    try:
        for tag in "pq":
            for i in range(120):
                assert check.get(f"{tag}{i}") == {"tag": tag, "i": i, "pad": "y" * (i * 400)}
            assert check.latest("file:///shared.py", f"Net{tag}") == (f"{tag}119", check.get(f"{tag}119"))
        key, shared = check.latest("file:///shared.py", "Shared")
        assert key == "shared" and shared["i"] == 119 and shared["tag"] in "pq"
    finally:
        check.close()


def locked(guarded: GuardedCache) -> sqlite3.Connection:
    """Another process's long write: an exclusive lock on the cache's database, and a short busy timeout."""
    guarded.put("k", "file:///a.py", "Net", {"n": 1})
    guarded._cache._cache.close()                   # diskcache reconnects with the timeout below
    guarded._cache._cache._timeout = 0.1
    lock = sqlite3.connect(guarded.base / "results" / "cache.db", isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")
    return lock


def test_a_locked_cache_is_busy_not_broken(tmp_path):
    problems: list = []
    guarded = GuardedCache(tmp_path, problems.append)
    lock = locked(guarded)
    try:
        assert guarded.get("not-read-yet") is None                  # SQLITE_BUSY: a miss
        guarded.put("k2", "file:///a.py", "Net", {"n": 2})           # diskcache.Timeout: kept for the session
        assert guarded.get("k2") == {"n": 2} and guarded.latest("file:///a.py", "Net") == ("k2", {"n": 2})
    finally:
        lock.rollback()
        lock.close()
    assert problems == [] and guarded.problem is None               # never offered for clearing
    guarded.put("k3", "file:///a.py", "Net", {"n": 3})
    assert ResultCache(tmp_path).get("k3") == {"n": 3}             # the folder works again
    guarded.close()


def test_an_unusable_folder_keeps_this_sessions_results(tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be\n")
    problems: list = []
    guarded = GuardedCache(blocked, problems.append)
    guarded.put("k", "file:///a.py", "Net", {"n": 1})
    assert len(problems) == 1 and not problems[0].clearable
    assert guarded.get("k") == {"n": 1} and guarded.latest("file:///a.py", "Net") == ("k", {"n": 1})


def test_only_a_corrupt_database_is_offered_for_clearing(tmp_path):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "cache.db").write_bytes(b"this is not an SQLite database" * 100)
    problems: list = []
    guarded = GuardedCache(tmp_path, problems.append)
    assert guarded.get("k") is None
    assert len(problems) == 1 and problems[0].clearable and "not a database" in problems[0].error
