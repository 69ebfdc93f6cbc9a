"""Runs backward_cases.py (built-in candidates train through Triton backward kernels, gradients equal the
reference's) in a fresh pytest process with TRITON_INTERPRET=1 set before triton is imported."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CASES = Path(__file__).resolve().parent / "backward_cases.py"


def test_backward_cases_in_a_fresh_interpreter(tmp_path):
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(CASES),
                           "--basetemp", str(tmp_path / "cases")], capture_output=True, text=True, env=env,
                          timeout=280, cwd=CASES.parents[2])
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]
