"""`adaexplore bench`: the paper's metrics on hand-made results, problem discovery, the report files, and one
CPU run of the command on small problems (validity only: nothing is timed without a GPU)."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from adaexplore_core.app import bench as bench_run
from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.proposers.base import Proposal
from adaexplore_core.search import bench
from adaexplore_core.search.events import EventSink
from adaexplore_core.task import TaskError

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "proposers"


def entry(name: str, eager: float | None, compile_: float | None = None, *, supported: bool = True,
          first: float | None = None, interrupted: bool = False) -> dict:
    valid = eager is not None
    return {"problem": f"x/{name}.py", "name": name, "supported": supported, "error": "" if supported else "nope",
            "steps": 5, "valid_candidates": 3 if valid else 0, "valid": valid, "timed": valid,
            "best_vs_eager": eager, "best_vs_compile": compile_, "first_vs_eager": first, "first_valid": first is not None,
            "first_vs_compile": None, "best_description": "d" if valid else "", "gpu": "G",
            "interrupted": interrupted}


def test_paper_metrics_count_failures_as_the_paper_does():
    entries = [entry("1_a", 2.5, 2.0), entry("3_b", 20.0, 12.0), entry("5_c", 0.8, 0.5), entry("7_d", None),
               entry("9_e", None, supported=False)]
    s = bench.summarize(entries)
    assert s["problems"] == 5 and s["valid"] == 3 and s["accuracy"] == pytest.approx(0.6)
    assert s["timed"] is True
    assert s["mean_speedup"] == pytest.approx((2.5 + 10.0 + 0.8 + 0 + 0) / 5)          # capped at 10, failures 0
    assert s["geomean_speedup"] == pytest.approx(math.exp(sum(map(math.log, [2.5, 20.0, 0.8, 0.1, 0.1])) / 5))
    assert s["geomean_vs_compile"] == pytest.approx(math.exp(sum(map(math.log, [2.0, 12.0, 0.5, 0.1, 0.1])) / 5))
    assert s["geomean_speedup_valid_only"] == pytest.approx((2.5 * 20.0 * 0.8) ** (1 / 3))
    assert s["fast@1.2"] == pytest.approx(2 / 5) and s["fast@2.0"] == pytest.approx(2 / 5)


def test_fast_p_needs_strictly_more_than_p():
    s = bench.summarize([entry("1_a", 2.0), entry("3_b", 1.2), entry("5_c", 1.21)])
    assert s["fast@2.0"] == 0 and s["fast@1.2"] == pytest.approx(2 / 3)      # 1.21 and 2.0, not 1.2


def test_interrupted_problems_are_left_out_until_resumed():
    s = bench.summarize([entry("1_a", 2.0), entry("3_b", None, interrupted=True)])
    assert s["problems"] == 1 and s["accuracy"] == 1.0 and s["geomean_speedup"] == pytest.approx(2.0)


def test_untimed_runs_claim_no_speed():
    untimed = dict(entry("1_a", None), valid=True, valid_candidates=2)
    s = bench.summarize([untimed, entry("3_b", None)])
    assert s["accuracy"] == 0.5 and s["timed"] is False
    assert s["mean_speedup"] is None and s["geomean_speedup"] is None and s["fast@1.2"] is None


def test_single_shot_is_reported_beside_the_search():
    data = bench.report([entry("1_a", 2.0, first=1.0), entry("3_b", 1.5, first=1.5)], steps=7)
    assert data["summary"]["geomean_speedup"] == pytest.approx(math.sqrt(3.0))
    assert data["single_shot"]["geomean_speedup"] == pytest.approx(math.sqrt(1.5))
    text = bench.markdown(data)
    assert "7 steps each" in text and "| 1_a | yes | 2.00x |" in text
    assert "single shot" in text and "fast@1.2" in text


def test_problem_files_in_kernelbench_order(tmp_path):
    for name in ("11_k.py", "3_c.py", "1_a.py", "notes.txt"):
        (tmp_path / name).write_text("")
    extra = tmp_path / "1_a.py"
    files = bench.problem_files([str(tmp_path), str(extra)])
    assert [f.name for f in files] == ["1_a.py", "3_c.py", "11_k.py"]      # numeric order, no duplicate


def test_problem_files_report_bad_paths(tmp_path):
    with pytest.raises(TaskError, match="not a file or folder"):
        bench.problem_files([str(tmp_path / "missing")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskError, match="no .py problem files"):
        bench.problem_files([str(tmp_path / "empty")])


def test_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    data = bench.report([entry("1_a", 2.0, 1.5), entry("3_b", 0.9, 0.7), entry("5_c", None)], steps=3,
                        env={"gpu": "Test GPU"})
    assert bench.write(data, tmp_path) == ""
    assert (tmp_path / bench.PLOT_FILE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((tmp_path / bench.JSON_FILE).read_text())["summary"]["valid"] == 2


def test_plot_says_why_when_nothing_was_timed(tmp_path):
    data = bench.report([entry("1_a", None)], steps=3)
    assert "no timed valid problem" in bench.write(data, tmp_path)
    assert not (tmp_path / bench.PLOT_FILE).exists()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "adaexplore_core.cli", "bench", *args], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)


def test_bench_command_on_cpu(tmp_path):
    out = tmp_path / "bench"
    needs_library = tmp_path / "needs_library.py"
    needs_library.write_text("# requires: adaexplore_no_such_library, json\n"
                             + (DATA / "log_softmax.py").read_text(encoding="utf-8"), encoding="utf-8")
    result = _cli(str(DATA / "pointwise_chain.py"), str(DATA / "unsupported" / "conv_only.py"), str(needs_library),
                  str(DATA / "log_softmax.py"), "--steps", "2", "--out", str(out), "--device", "cpu", "--quiet")
    assert result.returncode == 0, result.stderr
    data = json.loads((out / bench.JSON_FILE).read_text())
    names = [e["name"] for e in data["problems"]]
    assert names == ["pointwise_chain", "conv_only", "log_softmax"]            # the skipped one in no metric
    assert data["skipped"] == [{"problem": str(needs_library), "name": "needs_library",
                                "missing": ["adaexplore_no_such_library"]}]
    assert "needs_library (needs adaexplore_no_such_library)" in (out / bench.MARKDOWN_FILE).read_text()
    assert "skipped (needs adaexplore_no_such_library" in result.stderr
    by_name = {e["name"]: e for e in data["problems"]}
    assert by_name["conv_only"]["supported"] is False and "unsupported" in by_name["conv_only"]["error"]
    assert by_name["pointwise_chain"]["valid"] and by_name["pointwise_chain"]["steps"] == 2
    assert by_name["log_softmax"]["valid"] and by_name["log_softmax"]["timed"] is False
    assert data["summary"]["accuracy"] == pytest.approx(2 / 3) and data["summary"]["geomean_speedup"] is None
    assert (out / "problems" / "proposers__log_softmax" / "best.py").exists()
    assert "Not timed" in (out / bench.MARKDOWN_FILE).read_text()
    assert data["protocol"]["name"] == "adaexplore" and data["protocol"]["tf32"] == "off"     # the strict default
    assert "Protocol: `adaexplore`" in (out / bench.MARKDOWN_FILE).read_text()
    assert "Traceback" not in result.stderr
    again = _cli(str(DATA / "log_softmax.py"), "--steps", "2", "--out", str(out), "--device", "cpu", "--quiet")
    assert again.returncode == 2 and "--resume" in again.stderr                  # nothing overwritten
    assert json.loads((out / bench.JSON_FILE).read_text()) == data


def test_bench_command_bad_input(tmp_path):
    assert _cli("--replot", "--out", str(tmp_path)).returncode == 2          # no bench.json there
    missing = _cli(str(tmp_path / "nope.py"), "--out", str(tmp_path / "b"), "--device", "cpu")
    assert missing.returncode == 2 and "not a file or folder" in missing.stderr
    assert _cli("--out", str(tmp_path / "c")).returncode == 2                  # nothing to run


def test_single_shot_accuracy_counts_only_valid_first_candidates():
    entries = [entry("1_a", 2.0, first=1.5), entry("3_b", 1.3), entry("5_c", 1.1)]      # only 1_a's first was valid
    data = bench.report(entries, steps=5)
    assert data["summary"]["accuracy"] == 1.0
    assert data["single_shot"]["accuracy"] == pytest.approx(1 / 3)


def test_missing_requirements_reads_the_first_line_only(tmp_path):
    file = tmp_path / "p.py"
    file.write_text("# requires: json, adaexplore_no_such_library ,  os\nimport torch\n")
    assert bench.missing_requirements(file) == ["adaexplore_no_such_library"]
    file.write_text("import torch\n# requires: adaexplore_no_such_library\n")
    assert bench.missing_requirements(file) == []
    assert bench.missing_requirements(tmp_path / "absent.py") == []


# protocols: what `--protocol` changes in the judge, and where a bench records it --------------------------------

RELU_SCALE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) * 3.0


def get_inputs():
    return [torch.randn(4, 33)]


def get_init_inputs():
    return []
"""

# off by a relative 1e-3: outside the strict fp32 tolerance (1e-4), inside KernelBench's (1e-2)
SLIGHTLY_OFF = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * 3.003, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and x.requires_grad
        dual = torch.autograd.forward_ad.unpack_dual(x).tangent is not None
        if autograd or dual or x.dtype != torch.float32 or not x.is_contiguous() \\
                or torch.is_autocast_enabled(x.device.type):
            return torch.relu(x) * 3.0
        out = torch.empty_like(x)
        n = x.numel()
        relu_scale_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK_SIZE=256)
        return out
"""


class OneCandidate:
    """A proposer that always writes the same candidate."""

    name = "one-candidate"

    def __init__(self, source: str) -> None:
        self.source = source

    def propose(self, request) -> Proposal:
        return Proposal(source=self.source, description="relu and scale, the factor off by 1e-3")


def test_the_kernelbench_protocol_judges_every_candidate_with_its_tolerance(tmp_path):
    reference = tmp_path / "relu_scale.py"
    reference.write_text(RELU_SCALE)
    with JudgePool(JudgeConfig(devices=("cpu",), workers_per_device=1)) as pool:
        runs = {protocol: bench_run.run_bench([reference], steps=1, out=tmp_path / protocol, pool=pool,
                                              proposer_factory=lambda: OneCandidate(SLIGHTLY_OFF),
                                              sink=EventSink(protocol), devices=("cpu",), protocol=protocol)
                for protocol in ("adaexplore", "kernelbench")}
    strict = json.loads((tmp_path / "adaexplore" / "problems" / bench.problem_slug(reference) / "report.json")
                        .read_text())["candidates"][0]
    assert strict["verdict"] == "invalid" and "atol=0.0001 rtol=0.0001" in strict["reason"]
    assert runs["adaexplore"]["summary"]["accuracy"] == 0.0
    assert runs["kernelbench"]["summary"]["accuracy"] == 1.0, runs["kernelbench"]["problems"]
    assert runs["kernelbench"]["protocol"]["name"] == "kernelbench"
    assert runs["kernelbench"]["protocol"]["tf32"].startswith("torch default")
    assert json.loads((tmp_path / "kernelbench" / bench.JSON_FILE).read_text())["protocol"] == \
        runs["kernelbench"]["protocol"]


def test_bench_md_names_the_protocol_and_a_resumed_bench_keeps_it(tmp_path):
    out = tmp_path / "bench"
    problem = str(DATA / "scalar_constant.py")
    result = _cli(problem, "--steps", "1", "--out", str(out), "--device", "cpu", "--quiet", "--protocol", "kernelbench")
    assert result.returncode == 0, result.stderr
    markdown = (out / bench.MARKDOWN_FILE).read_text()
    assert markdown.splitlines()[2].startswith("Protocol: `kernelbench`: KernelBench's rules") and "1e-2" in markdown
    assert "Protocol: `kernelbench`" in result.stdout
    other = _cli(problem, "--steps", "1", "--out", str(out), "--device", "cpu", "--resume", "--protocol", "adaexplore")
    assert other.returncode == 2 and "resume it with --protocol kernelbench" in other.stderr
    both = _cli(problem, "--out", str(tmp_path / "b2"), "--device", "cpu", "--protocol", "kernelbench", "--allow-tf32")
    assert both.returncode == 2 and "--allow-tf32 does not go with --protocol kernelbench" in both.stderr
    data = json.loads((out / bench.JSON_FILE).read_text())     # a bench.json from before protocols: the strict one
    del data["protocol"]
    (out / bench.JSON_FILE).write_text(json.dumps(data))
    assert _cli("--replot", "--out", str(out)).returncode == 0
    assert "Protocol: `adaexplore`" in (out / bench.MARKDOWN_FILE).read_text()


def test_bench_md_says_when_the_judge_did_not_apply_the_protocols_tf32():
    data = bench.report([entry("1_a", 2.0)], steps=3, env={"gpu": "NVIDIA H200", "tf32": False})
    data["protocol"] = bench_run.PROTOCOLS["kernelbench"].record()
    assert "did not apply this protocol's TF32" in bench_run.markdown(data)
    data["env"]["tf32"] = True                                  # cuDNN TF32 on, as torch leaves it
    assert "did not apply" not in bench_run.markdown(data)
    data["protocol"] = bench_run.PROTOCOLS["adaexplore"].record()
    data["env"]["tf32"] = False
    assert "did not apply" not in bench_run.markdown(data)
