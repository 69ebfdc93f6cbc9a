"""The kernels of the built-in proposer's candidates compile for an NVIDIA Hopper GPU (sm_90, ttir to cubin)
on this GPU-less machine (tests/support/hopper_compile.py): the first five candidates (the distinct plans
come first) of each reference in tests/data/proposers, the first two of KernelBench levels 1 and 2
(shrunk). The interpreter runs of the other tests check what the kernels compute; this checks what only the
compiler refuses."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
from support.kernelbench import kernelbench_dir, shrunk_source  # noqa: E402

PLANS_COMPILED = 5        # default, split bias, Triton GEMM, unfused, unfolded: initial() gives distinct plans first

HARNESS = TESTS / "support" / "hopper_compile.py"
REFERENCES = sorted((TESTS / "data" / "proposers").glob("*.py"))


def compile_all(paths: list[Path], candidates: int = 2) -> list[dict]:
    done = subprocess.run([sys.executable, str(HARNESS), "--candidates", str(candidates), *map(str, paths)],
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def failures(rows: list[dict]) -> list[str]:
    return [f"{Path(r['reference']).name} [{r['description']}]:\n{r['error']}" for r in rows if "error" in r]


def test_the_reference_modules_compile_for_hopper():
    rows = compile_all(REFERENCES, candidates=PLANS_COMPILED)
    assert not failures(rows), "\n\n".join(failures(rows))
    compiled = [r for r in rows if "kernels" in r]
    assert len(compiled) >= 2 * len(REFERENCES) and all(r["kernels"] for r in compiled), rows


@pytest.mark.kernelbench
@pytest.mark.skipif(kernelbench_dir() is None, reason="../shared/kernelbench is absent")
def test_kernelbench_candidates_compile_for_hopper(tmp_path):
    paths = []
    for level in ("level1", "level2"):
        for path in sorted((kernelbench_dir() / level).glob("*.py")):
            file = tmp_path / f"{level}_{path.name}"
            file.write_text(shrunk_source(path), encoding="utf-8")
            paths.append(file)
    rows = compile_all(paths)
    assert not failures(rows), "\n\n".join(failures(rows))
    assert sum(1 for r in rows if r.get("kernels")) >= 100, rows     # levels 1 and 2: 76 problems supported
