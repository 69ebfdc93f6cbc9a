"""The zygote hashes Triton's files before it forks (``worker._hash_triton_once``): each candidate's first
compile inherits the key instead of reading Triton again."""
from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import importlib
from adaexplore_core.judge import worker
for name in ("triton.runtime.cache", "triton.compiler.compiler"):
    key = getattr(importlib.import_module(name), "triton_key", None)
    if key is not None:
        break
assert key.cache_info().currsize == 0
worker._hash_triton_once()
assert key.cache_info().currsize == 1, key.cache_info()
import torch
assert not torch.cuda.is_initialized()
print("ok")
"""


def test_the_triton_key_is_computed_once_before_any_candidate():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
