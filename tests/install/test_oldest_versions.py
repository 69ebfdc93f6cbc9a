"""The oldest declared versions at work: an interpreter whose torch, triton, numpy and rich are exactly the floors
of pyproject.toml judges the bundled example and runs a short search on the CPU (Triton interpreter).

Opt-in: set ADAEXPLORE_OLDEST_PYTHON to such an interpreter (its environment holds those versions and not this
project; the source tree is put on its path). Not run by default: torch's CUDA builds of those releases and
their libraries are several GB to download. To make one:

    python3.11 -m venv /tmp/oldest
    /tmp/oldest/bin/pip install torch==2.10.0 numpy==1.24.4 rich==13.0.0   # torch 2.10.0 brings triton 3.6.0
    ADAEXPLORE_OLDEST_PYTHON=/tmp/oldest/bin/python python -m pytest tests/install/test_oldest_versions.py
"""
from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "adaexplore_core" / "examples"
OLDEST = os.environ.get("ADAEXPLORE_OLDEST_PYTHON", "")

pytestmark = pytest.mark.skipif(not OLDEST, reason="set ADAEXPLORE_OLDEST_PYTHON to run (see the docstring)")


def floors() -> dict[str, str]:
    """Distribution -> the version of its '>=' floor, for the core dependencies."""
    found = {}
    for text in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        requirement = Requirement(text)
        (low,) = [s.version for s in requirement.specifier if s.operator == ">="]
        found[requirement.name] = low
    return found


def run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "VIRTUAL_ENV")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([OLDEST, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)


@pytest.mark.timeout(1500)
def test_the_declared_floors_judge_and_search(tmp_path):
    versions = run("-c", "import importlib.metadata as m, json; print(json.dumps({d: m.version(d) for d in "
                         f"{sorted(floors())!r}}}))")
    assert versions.returncode == 0, versions.stderr
    installed = json.loads(versions.stdout)
    for name, low in floors().items():
        got = installed[name].split("+")[0]
        assert tuple(int(x) for x in got.split(".")[:len(low.split("."))]) == tuple(int(x) for x in low.split(".")), \
            f"{name} {installed[name]} is not the declared floor {low}"

    judged = run("-m", "adaexplore_core.cli", "judge", str(EXAMPLES / "fused_bias_gelu.py"),
                 str(EXAMPLES / "fused_bias_gelu_triton.py"), "--device", "cpu")
    assert judged.returncode == 0, judged.stdout + judged.stderr
    assert judged.stdout.startswith("VALID: ") and f"torch {installed['torch']}" in judged.stdout

    out = tmp_path / "out"
    searched = run("-m", "adaexplore_core.cli", "optimize", str(EXAMPLES / "fused_bias_gelu.py"), "--steps", "3",
                   "--device", "cpu", "--out", str(out))
    assert searched.returncode == 0, searched.stdout + searched.stderr
    assert (out / "best.py").is_file() and "ETA" in searched.stderr
