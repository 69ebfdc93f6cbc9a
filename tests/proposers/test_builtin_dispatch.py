"""Runs dispatch_cases.py (a built-in patch stays exact when the user's program changes the module or calls it
under autocast or with an optional argument) in a fresh pytest process with TRITON_INTERPRET=1 set before triton
is imported (see test_builtin_envelope.py)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent / "dispatch_cases.py"


def test_dispatch_cases_in_a_fresh_interpreter(tmp_path):
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(CASES),
                           "--basetemp", str(tmp_path / "cases")], capture_output=True, text=True, env=env,
                          timeout=900, cwd=CASES.parents[2])
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert re.search(r"\b16 passed, 1 xfailed\b", done.stdout), done.stdout[-2000:]
