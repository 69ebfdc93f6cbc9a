"""Search results that survive editor restarts: diskcache, JSON values only, in a private directory.

Storage is ``adaexplore_core.jsonstore``: JSON keys and values only (pickled rows are refused, never
loaded), in a directory created 0700.

Keys: ``result:<content key>`` holds a finished search's result; the content key hashes the class text, its
example inputs and the environment fingerprint. ``latest:<uri>#<class>`` names the newest result for a
class of a document, so a result whose class text has changed since is found and shown as stale.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from diskcache import Timeout as CacheBusy

from adaexplore_core.jsonstore import PickledRowError, open_json_cache, private_directory

log = logging.getLogger(__name__)
SCHEMA_VERSION = 1
MEMO_SECONDS = 60.0
MEMO_ROWS = 10_000
STAMP_INTERVAL_S = 0.1


def content_key(class_source: str, inputs_text: str, fingerprint: str) -> str:
    digest = hashlib.sha256()
    for part in (str(SCHEMA_VERSION), class_source, inputs_text, fingerprint):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:32]


class ResultCache:
    """Finished results by content key, and the newest result per (document, class)."""

    def __init__(self, directory: Path, memo_seconds: float = MEMO_SECONDS) -> None:
        self.directory = private_directory(Path(directory) / "results")
        self._cache = open_json_cache(self.directory)
        self._memo: dict[str, tuple[float, Any]] = {}
        self._memo_stamp: tuple[int, ...] = ()
        self._stamped_at = -1.0
        self._db_files = [str(self.directory / "cache.db"), str(self.directory / "cache.db-wal")]
        self.memo_seconds = memo_seconds

    def put(self, key: str, uri: str, class_name: str, result: dict[str, Any]) -> None:
        json.dumps(result)                     # only JSON-able values go in
        self._cache.set(f"result:{key}", result)
        self._cache.set(f"latest:{uri}#{class_name}", key)
        self._memo.clear()

    def get(self, key: str) -> dict[str, Any] | None:
        return self._read(f"result:{key}")

    def latest(self, uri: str, class_name: str) -> tuple[str, dict[str, Any]] | None:
        """(content key, result) of the newest result for this class of this document."""
        key = self._read(f"latest:{uri}#{class_name}")
        if not isinstance(key, str):
            return None
        result = self.get(key)
        return (key, result) if result is not None else None

    def _stamp(self) -> tuple[int, ...]:
        """Modification times of the cache's SQLite files: they change whenever any process writes."""
        stamps = []
        for path in self._db_files:
            try:
                stamps.append(os.stat(path).st_mtime_ns)
            except OSError:
                stamps.append(0)
        return tuple(stamps)

    def _read(self, key: str) -> Any:
        """A row, remembered while no process has written to the cache (a code-lens request on a long file
        reads hundreds of rows) and for at most ``memo_seconds``; the files are checked for writes at most
        every STAMP_INTERVAL_S."""
        now = time.monotonic()
        if now - self._stamped_at >= STAMP_INTERVAL_S:
            self._stamped_at = now
            stamp = self._stamp()
            if stamp != self._memo_stamp:
                self._memo.clear()
                self._memo_stamp = stamp
        memo = self._memo.get(key)
        if memo is not None and now - memo[0] < self.memo_seconds:
            return memo[1]
        try:
            value = self._cache.get(key)
        except PickledRowError:
            raise
        except (ValueError, OSError, zlib.error, UnicodeDecodeError):   # a corrupt row: as if absent
            value = None
        if len(self._memo) > MEMO_ROWS:
            self._memo.clear()
        self._memo[key] = (now, value)
        return value

    def close(self) -> None:
        self._cache.close()


@dataclass(frozen=True)
class CacheProblem:
    """Why the cache is off: the folder, what went wrong, and whether ``clear`` may remove the folder (it
    holds only the cache's own files)."""

    directory: Path
    error: str
    clearable: bool

    def message(self) -> str:
        fix = "Clear it (the results it holds are lost), or move it away" if self.clearable else \
            "Move it away or clear it, or make it writable"
        return (f"AdaExplore: the result cache in {self.directory} cannot be used ({self.error}). The server runs "
                f"without it: results are not kept between sessions. {fix}, or set adaexplore.cacheDir to "
                "another folder.")


class SessionResults:
    """Results the folder could not store, in memory: the server still shows them until it ends."""

    def __init__(self) -> None:
        self.results: dict[str, dict[str, Any]] = {}
        self.latest_keys: dict[tuple[str, str], str] = {}

    def put(self, key: str, uri: str, class_name: str, result: dict[str, Any]) -> None:
        self.results[key] = result
        self.latest_keys[uri, class_name] = key

    def get(self, key: str) -> dict[str, Any] | None:
        return self.results.get(key)

    def latest(self, uri: str, class_name: str) -> tuple[str, dict[str, Any]] | None:
        key = self.latest_keys.get((uri, class_name))
        return (key, self.results[key]) if key is not None else None


_BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
_CORRUPT = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
_CACHE_FILE = re.compile(r"cache\.db(-wal|-shm|-journal)?|[0-9a-f]{2}")


class GuardedCache:
    """The result cache, or none: when the folder cannot be opened, read or written (read-only, corrupt),
    the server runs without it; ``on_problem`` hears of it once."""

    def __init__(self, directory: Path, on_problem: Callable[[CacheProblem], None]) -> None:
        self.base = Path(directory)
        self.on_problem = on_problem
        self.problem: CacheProblem | None = None
        self._cache: ResultCache | None = None
        self._session = SessionResults()

    def get(self, key: str) -> dict[str, Any] | None:
        found = self._call(lambda cache: cache.get(key))
        return found if found is not None else self._session.get(key)

    def latest(self, uri: str, class_name: str) -> tuple[str, dict[str, Any]] | None:
        unsaved = self._session.latest(uri, class_name)
        return unsaved if unsaved is not None else self._call(lambda cache: cache.latest(uri, class_name))

    def put(self, key: str, uri: str, class_name: str, result: dict[str, Any]) -> None:
        """Store a result; when the folder cannot (off, or busy for long), this session keeps it."""
        if self._call(lambda cache: cache.put(key, uri, class_name, result) or True) is None:
            self._session.put(key, uri, class_name, result)

    def _call(self, operation: Callable[[ResultCache], Any]) -> Any:
        if self.problem is not None:
            return None
        try:
            if self._cache is None:
                self._cache = ResultCache(self.base)
            return operation(self._cache)
        except (PickledRowError, CacheBusy) as e:                 # one row, or another process writes for long
            log.warning("%s: %s", self.base, e or "busy")
            return None
        except (OSError, sqlite3.Error) as e:
            if getattr(e, "sqlite_errorcode", None) in _BUSY:     # locked: a miss, not a broken cache
                log.warning("%s: %s", self.base, e)
            else:
                self._fail(e)
            return None

    def _fail(self, error: Exception) -> None:
        results = self.base / "results"
        corrupt = getattr(error, "sqlite_errorcode", None) in _CORRUPT       # not read-only, full or I/O errors
        self.problem = CacheProblem(self.base, f"{type(error).__name__}: {error}",
                                    clearable=corrupt and _only_cache_files(results))
        self.close()
        self.on_problem(self.problem)

    def clear(self) -> bool:
        """Remove the cache's folder of results (only when it holds only the cache's files), then use it again."""
        results = self.base / "results"
        if self.problem is None or not self.problem.clearable or not _only_cache_files(results):
            return False
        try:
            shutil.rmtree(results)
        except OSError:
            return False
        self.problem = None
        return True

    def close(self) -> None:
        if self._cache is not None:
            try:
                self._cache.close()
            except (OSError, sqlite3.Error):
                pass
            self._cache = None


def _only_cache_files(results: Path) -> bool:
    try:
        return results.is_dir() and not results.is_symlink() and \
            all(_CACHE_FILE.fullmatch(p.name) for p in results.iterdir())
    except OSError:
        return False
