"""`python -m adaexplore_core.cli judge` as users run it: exit statuses, human and JSON output, messages.

Runs on the CPU (Triton interpreter). The runs that start a judge worker are launched together up front,
two at a time, so that the whole file stays fast; every other run takes well under a second.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "adaexplore_core" / "examples"
REFERENCE = EXAMPLES / "fused_bias_gelu.py"
CANDIDATE = EXAMPLES / "fused_bias_gelu_triton.py"
RUN_TIMEOUT_S = 180
JSON_KEYS = {"verdict", "reason", "checks", "checkpoint_compatible", "timing", "env"}

BROKEN_INIT_REFERENCE = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x


def get_inputs():
    return [torch.randn(4)]


def get_init_inputs():
    raise RuntimeError("init inputs are broken")
'''


def run_cli(*args: str, timeout: float = RUN_TIMEOUT_S) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.run([sys.executable, "-m", "adaexplore_core.cli", "judge", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)


def only_json(stdout: str) -> dict:
    """stdout must be exactly one JSON object (and a newline)."""
    data = json.loads(stdout)            # raises on anything before or after the object
    assert isinstance(data, dict)
    assert stdout.count("\n") == 1 and stdout.endswith("\n")
    return data


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("cli")
    (folder / "broken_init.py").write_text(BROKEN_INIT_REFERENCE, encoding="utf-8")
    source = CANDIDATE.read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "imports_os.py").write_text("".join(source[:3] + ["import os\n"] + source[3:]), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def worker_runs(data_dir):
    """The runs that start a judge worker, started together; each test waits for its own."""
    runs = {
        "valid": (str(REFERENCE), str(CANDIDATE), "--device", "cpu"),
        "valid_json": (str(REFERENCE), str(CANDIDATE), "--device", "cpu", "--json"),
        "broken_init": (str(data_dir / "broken_init.py"), str(CANDIDATE), "--device", "cpu", "--json"),
        "broken_init_human": (str(data_dir / "broken_init.py"), str(CANDIDATE), "--device", "cpu"),
    }
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as executor:
        yield {name: executor.submit(run_cli, *args) for name, args in runs.items()}


def result(worker_runs, name: str) -> subprocess.CompletedProcess:
    return worker_runs[name].result(timeout=RUN_TIMEOUT_S * 2)


# valid candidate ---------------------------------------------------------------------------------------

def test_valid_example_human_output(worker_runs):
    out = result(worker_runs, "valid")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("VALID: ")
    assert "not measured (no GPU)" in out.stdout
    assert "[ok] correctness: 5 trials" in out.stdout
    assert "checkpoint-compatible: yes" in out.stdout
    assert "CPU, Triton interpreter" in out.stdout
    assert "worker log" not in out.stdout


def test_valid_example_json_is_exactly_one_object(worker_runs):
    out = result(worker_runs, "valid_json")
    assert out.returncode == 0, out.stdout + out.stderr
    data = only_json(out.stdout)
    assert JSON_KEYS <= set(data)
    assert data["verdict"] == "valid" and data["stage"] == "ok"
    assert data["timing"] is None
    assert "not measured (no GPU)" in data["timing_note"]
    assert data["checkpoint_compatible"] is True
    assert data["trials"] >= 5 + 7           # 5 on fresh inputs, 7 repeated calls, then the out-of-range ones
    assert all(c["passed"] for c in data["checks"]) and {c["name"] for c in data["checks"]} >= {
        "load", "weights", "correctness", "triton_launched"}
    assert data["env"]["device"] == "cpu" and data["env"]["triton_interpreter"] is True


# candidates and references the judge refuses -----------------------------------------------------------

def test_invalid_candidate_names_the_line(data_dir):
    out = run_cli(str(REFERENCE), str(data_dir / "imports_os.py"), "--device", "cpu")
    assert out.returncode == 1, out.stdout + out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("INVALID: Rejected before running: line 4: import of 'os' is not allowed")
    assert "[FAIL] guard: line 4:" in out.stdout


def test_invalid_candidate_json(data_dir):
    out = run_cli(str(REFERENCE), str(data_dir / "imports_os.py"), "--device", "cpu", "--json")
    assert out.returncode == 1
    data = only_json(out.stdout)
    assert (data["verdict"], data["stage"]) == ("invalid", "guard")
    assert data["checks"][0]["name"] == "guard" and data["checks"][0]["passed"] is False
    assert "line 4" in data["reason"]


def test_get_init_inputs_raising_is_a_reference_error(worker_runs):
    out = result(worker_runs, "broken_init")
    assert out.returncode == 1, out.stdout + out.stderr
    data = only_json(out.stdout)
    assert (data["verdict"], data["stage"]) == ("error", "reference")
    assert "get_init_inputs() raised RuntimeError: init inputs are broken" in data["reason"]


def test_get_init_inputs_raising_human_output(worker_runs):
    out = result(worker_runs, "broken_init_human")
    assert out.returncode == 1
    assert out.stdout.startswith("ERROR: ") and "get_init_inputs() raised RuntimeError" in out.stdout


# usage errors: exit status 2, a message on stderr, nothing on stdout -----------------------------------

def assert_usage_error(out: subprocess.CompletedProcess, *phrases: str) -> None:
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stdout == ""
    for phrase in phrases:
        assert phrase in out.stderr, out.stderr


def test_missing_reference(tmp_path):
    missing = tmp_path / "no_reference.py"
    assert_usage_error(run_cli(str(missing), str(CANDIDATE), "--device", "cpu"),
                       "adaexplore judge: reference file not found:", "no_reference.py")


def test_missing_candidate(tmp_path):
    missing = tmp_path / "no_candidate.py"
    assert_usage_error(run_cli(str(REFERENCE), str(missing), "--device", "cpu", "--json"),
                       "adaexplore judge: candidate file not found:", "no_candidate.py")


def test_no_such_class_is_a_usage_error_naming_the_classes():
    assert_usage_error(run_cli(f"{REFERENCE}::NoSuchClass", str(CANDIDATE), "--device", "cpu", "--json"),
                       "adaexplore judge: the reference", "has no class 'NoSuchClass'",
                       "(classes in the file: Model; pick one with FILE.py::ClassName)")


def test_bad_class_name_after_colons():
    assert_usage_error(run_cli(f"{REFERENCE}::1bad", str(CANDIDATE), "--device", "cpu"),
                       "'1bad' is not a class name")


def test_too_few_trials():
    assert_usage_error(run_cli(str(REFERENCE), str(CANDIDATE), "--device", "cpu", "--trials", "2"),
                       "--trials", "at least 5 trials are required")


def test_unknown_device():
    assert_usage_error(run_cli(str(REFERENCE), str(CANDIDATE), "--device", "bogus"),
                       "unknown device 'bogus'", "use auto, cpu, cuda or cuda:N")


def test_negative_memory_limit_is_a_usage_error():
    assert_usage_error(run_cli(str(REFERENCE), str(CANDIDATE), "--device", "cpu", "--memory-mb", "-1"),
                       "--memory-mb")


def test_cuda_without_gpu():
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA GPU is visible here")
    assert_usage_error(run_cli(str(REFERENCE), str(CANDIDATE), "--device", "cuda"),
                       "no CUDA GPU is visible", "--device cpu")
