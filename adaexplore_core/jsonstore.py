"""diskcache with JSON only, in private directories: shared by the rule memory and the server's results.

diskcache pickles by default, and unpickling a row someone else wrote would run their code: these caches
store JSON keys and values and refuse any row stored in pickle mode. Directories are created 0700 (and
tightened to 0700 when they exist). diskcache is imported lazily (the GPU path needs only torch + triton).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

MODE_PICKLE = 4          # diskcache.core.MODE_PICKLE


class PickledRowError(Exception):
    """A cache row stored as a pickle: refused, never loaded."""


def default_cache_dir() -> Path:
    """Where results and the rule memory live by default: ADAEXPLORE_CACHE_DIR, else
    $XDG_CACHE_HOME/adaexplore, else ~/.cache/adaexplore (the engine and the language server share it)."""
    explicit = os.environ.get("ADAEXPLORE_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "adaexplore"


def private_directory(path: Path) -> Path:
    """Create ``path`` (and parents) with mode 0700 for the last component, or tighten it to 0700."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        path.chmod(0o700)
    return path


def json_disk() -> type:
    """diskcache's JSONDisk, refusing pickled rows instead of unpickling them."""
    import diskcache

    class JsonOnlyDisk(diskcache.JSONDisk):
        def fetch(self, mode: int, filename: str, value: Any, read: bool) -> Any:
            if mode == MODE_PICKLE:
                raise PickledRowError("refusing a pickled cache row (this cache stores JSON only)")
            return super().fetch(mode, filename, value, read)

        def get(self, key: Any, raw: bool) -> Any:
            if not raw:
                raise PickledRowError("refusing a pickled cache key (this cache stores JSON only)")
            return super().get(key, raw)

    return JsonOnlyDisk


def open_json_cache(directory: Path) -> Any:
    """A diskcache.Cache in a private ``directory`` with JSON-only rows."""
    import diskcache
    from diskcache.core import MODE_PICKLE as real_mode
    assert real_mode == MODE_PICKLE, "diskcache changed its pickle mode constant"
    return diskcache.Cache(str(private_directory(Path(directory))), disk=json_disk(), disk_compress_level=0)
