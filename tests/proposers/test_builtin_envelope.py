"""Runs envelope_cases.py (a built-in patch is safe to keep, for every reference of tests/data/proposers) in a
fresh pytest process with TRITON_INTERPRET=1 set before triton is imported: in this process triton may already
be imported without the interpreter, and its library functions (tl.max, ...) then refuse interpreted kernels."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent / "envelope_cases.py"


def test_every_reference_in_a_fresh_interpreter(tmp_path):
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(CASES),
                           "--basetemp", str(tmp_path / "cases")], capture_output=True, text=True, env=env,
                          timeout=1200, cwd=CASES.parents[2])
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert re.search(r"\b8[0-9] passed", done.stdout), done.stdout[-2000:]   # every reference, both tests
