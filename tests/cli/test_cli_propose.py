"""`python -m adaexplore_core.cli propose` as users run it: validated candidates written to --out, their
descriptions printed, and clear exit statuses for unsupported modules and bad arguments.

Runs on the CPU (Triton interpreter). The one run that judges candidates and the runs that only fail fast
start together up front; the written candidates are then re-checked with `adaexplore judge`.
"""
from __future__ import annotations

import concurrent.futures
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "proposers"
REFERENCE = DATA / "linear_epilogue.py"          # three plans: fused, bias split, one kernel per op
UNSUPPORTED = DATA / "unsupported"
RUN_TIMEOUT_S = 300


def run_cli(command: str, *args: str, timeout: float = RUN_TIMEOUT_S) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.run([sys.executable, "-m", "adaexplore_core.cli", command, *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("propose") / "candidates"     # does not exist yet: propose creates it


@pytest.fixture(scope="module")
def runs(out_dir):
    """Every propose run, started together; each test waits for its own."""
    commands = {
        "propose": (str(REFERENCE), "--device", "cpu", "--n", "2", "--out", str(out_dir)),
        "control_flow": (str(UNSUPPORTED / "control_flow.py"), "--device", "cpu", "--out", str(out_dir / "x")),
        "conv_only": (str(UNSUPPORTED / "conv_only.py"), "--device", "cpu", "--out", str(out_dir / "y")),
    }
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as executor:
        yield {name: executor.submit(run_cli, "propose", *args) for name, args in commands.items()}


def result(runs, name: str) -> subprocess.CompletedProcess:
    return runs[name].result(timeout=RUN_TIMEOUT_S * 2)


def written(out_dir: Path) -> list[Path]:
    return sorted(out_dir.glob("*.py"))


def test_propose_writes_n_candidates_and_prints_their_descriptions(runs, out_dir):
    out = result(runs, "propose")
    assert out.returncode == 0, out.stdout + out.stderr
    files = written(out_dir)
    assert [f.name for f in files] == ["candidate_01.py", "candidate_02.py"], out.stdout
    descriptions = []
    for file in files:
        header = file.read_text(encoding="utf-8").splitlines()[:2]
        match = re.fullmatch(r"# AdaExplore built-in candidate: (.+)", header[0])
        assert match, header
        assert header[1].startswith("# Judge: "), header
        descriptions.append(match.group(1))
        assert str(file) in out.stdout, out.stdout
        assert f"    {match.group(1)}" in out.stdout, out.stdout
    assert descriptions[0] != descriptions[1]
    assert all("Triton kernel(s)" in d for d in descriptions), descriptions
    assert "validated, not timed (no GPU)" in out.stdout
    assert out.stdout.rstrip().endswith(f"2 validated candidate(s) in {out_dir}"), out.stdout
    assert "rejected" not in out.stderr, out.stderr


def test_written_candidates_pass_adaexplore_judge(runs, out_dir):
    assert result(runs, "propose").returncode == 0
    files = written(out_dir)
    assert len(files) == 2
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as executor:
        judged = list(executor.map(lambda f: run_cli("judge", str(REFERENCE), str(f), "--device", "cpu"), files))
    for file, out in zip(files, judged):
        assert out.returncode == 0, f"{file}\n{out.stdout}{out.stderr}"
        assert out.stdout.startswith("VALID: "), out.stdout
        assert "checkpoint-compatible: yes" in out.stdout, out.stdout


def test_unsupported_module_exits_2_with_the_reason(runs, out_dir):
    out = result(runs, "control_flow")
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stdout == ""
    assert out.stderr.startswith("adaexplore propose: unsupported: the forward cannot be captured by torch.fx")
    assert "at line 8" in out.stderr
    assert not (out_dir / "x").exists(), "an unsupported module must not leave an output folder"


def test_nothing_to_fuse_exits_2(runs):
    out = result(runs, "conv_only")
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stdout == ""
    assert "adaexplore propose: unsupported: nothing to fuse" in out.stderr and "conv2d" in out.stderr


@pytest.mark.parametrize("value", ["0", "-3"])
def test_non_positive_n_is_rejected(value, tmp_path):
    out = run_cli("propose", str(REFERENCE), "--device", "cpu", "--n", value, "--out", str(tmp_path / "c"))
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stdout == ""
    assert "--n" in out.stderr and "must be a positive whole number" in out.stderr, out.stderr
    assert not (tmp_path / "c").exists()


def test_missing_reference_exits_2(tmp_path):
    out = run_cli("propose", str(tmp_path / "nowhere.py"), "--device", "cpu", "--out", str(tmp_path / "c"))
    assert out.returncode == 2, out.stdout + out.stderr
    assert "adaexplore propose: reference file not found:" in out.stderr and "nowhere.py" in out.stderr


def test_broken_constructor_exits_2_without_a_traceback(tmp_path):
    out = run_cli("propose", str(UNSUPPORTED / "broken_constructor.py"), "--device", "cpu",
                  "--out", str(tmp_path / "c"))
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    assert "adaexplore propose:" in out.stderr and "in_channels must be divisible by groups" in out.stderr
