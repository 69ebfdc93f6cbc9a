"""Judging on a Ray cluster (app/ray_pool.py) against a real local cluster that declares two GPUs on this CPU
machine: the actors are placed as on GPUs (``GPU: 1`` each) and judge in the Triton interpreter. A bench of
three problems over two actors gives the local pool's verdicts and metrics; a killed actor fails only the
candidate it was judging, which is judged again elsewhere, and one lost twice gets a "node lost" error; the
actors hold none of the calling process's secrets. Skipped without ray (the 'ray' extra), except the test of
the message a command gives without it."""
from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adaexplore_core.app.bench import run_bench
from adaexplore_core.app.wiring import judge_config, make_proposer
from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.search import bench
from adaexplore_core.search.events import EventSink
from adaexplore_core.task import TaskSpec

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = [ROOT / "tests" / "data" / "proposers" / name
            for name in ("pointwise_chain.py", "scalar_constant.py", "broadcast.py")]
SECRET = "OPENAI_API_KEY"
needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                               reason="ray is not installed (pip install 'adaexplore[ray]')")

REFERENCE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) * 3.0


def get_inputs():
    return [torch.randn(4, 33)]


def get_init_inputs():
    return []
'''

CANDIDATE = '''import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_scale_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * 3.0, mask=mask)


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
'''


@pytest.fixture(scope="module")
def cluster():
    """A new local Ray cluster with two declared GPUs, started while the calling process holds an API key."""
    from adaexplore_core.app.ray_pool import ray_session
    saved = os.environ.get(SECRET)
    os.environ[SECRET] = "sk-adaexplore-test-not-a-real-key"
    sigterm, excepthook = signal.getsignal(signal.SIGTERM), sys.excepthook
    try:
        with ray_session("local", num_cpus=2, num_gpus=2, object_store_mb=200):
            yield
    finally:
        if saved is None:
            os.environ.pop(SECRET, None)
        else:
            os.environ[SECRET] = saved
    # ray.init replaces both in this process, where the rest of the suite runs on
    assert signal.getsignal(signal.SIGTERM) == sigterm and sys.excepthook is excepthook


def _config() -> JudgeConfig:
    """One slot per actor (and for the local pool), so both run every search with one candidate at a time."""
    return dataclasses.replace(judge_config(("cpu",)), workers_per_device=1)


def _ray_pool(actors: int = 2):
    from adaexplore_core.app.ray_pool import RayJudgePool
    return RayJudgePool(_config(), device="cpu", actors=actors)


def _task(tmp_path: Path) -> TaskSpec:
    path = tmp_path / "relu_scale.py"
    path.write_text(REFERENCE)
    return TaskSpec.parse(str(path))


def _wait_for(condition, what: str, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _kill(pool, index: int) -> None:
    import ray
    ray.kill(pool.actors[index].handle, no_restart=True)


@needs_ray
def test_optimize_with_ray_auto_starts_a_local_cluster_and_searches(tmp_path):
    """First in the file, before the module's cluster exists: ``--ray auto`` then starts one of its own (one
    declared GPU for --device cpu) and ends it with the command."""
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "adaexplore_core.cli", "optimize", str(PROBLEMS[1]), "--ray",
                             "auto", "--device", "cpu", "--steps", "2", "--out", str(out), "--quiet"],
                            capture_output=True, text=True, timeout=280, cwd=ROOT)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["steps"] == 2 and report["devices"] == ["cpu"]
    assert all(c["verdict"] != "error" for c in report["candidates"]), report["candidates"]
    assert "Traceback" not in result.stderr


@needs_ray
def test_one_actor_per_gpu_and_no_secret_reaches_the_actors(cluster):
    import ray
    assert os.environ[SECRET]                          # the calling process keeps its key
    with _ray_pool() as pool:
        described = ray.get([a.handle.describe.remote() for a in pool.actors])
        _wait_for(lambda: ray.available_resources().get("GPU", 0) == 0, "each actor to hold one of the two GPUs", 10)
        assert [d["device"] for d in described] == ["cpu", "cpu"]
        assert len({d["actor"] for d in described}) == 2
        for d in described:
            assert SECRET not in d["secrets_in_environment"], d
    with pytest.raises(Exception, match="3 judge actors asked for, but the Ray cluster has 2 GPU"):
        _ray_pool(actors=3)


def _candidates(out: Path) -> dict[str, list[tuple[str, str, str]]]:
    """Per problem, each judged candidate's (description, verdict, stage)."""
    found = {}
    for report in sorted((out / "problems").glob("*/report.json")):
        data = json.loads(report.read_text())
        found[report.parent.name] = [(c["description"], c["verdict"], c["stage"]) for c in data["candidates"]]
    return found


@needs_ray
def test_a_bench_of_three_problems_over_two_actors_gives_the_local_pools_metrics(cluster, tmp_path):
    def bench_with(pool, out: Path, sink: EventSink) -> dict:
        return run_bench(PROBLEMS, steps=2, out=out, pool=pool, sink=sink, devices=("cpu",),
                         proposer_factory=lambda: make_proposer("builtin", ("cpu",)))

    with JudgePool(_config()) as local_pool:
        local = bench_with(local_pool, tmp_path / "local", EventSink("local"))
    events = io.StringIO()
    with _ray_pool() as pool:
        spread = bench_with(pool, tmp_path / "ray", EventSink("ray", [events]))
        assert all(actor.judged > 0 for actor in pool.actors), [a.judged for a in pool.actors]
    assert spread["summary"] == local["summary"] and spread["single_shot"] == local["single_shot"]
    keys = ("name", "supported", "valid", "steps", "valid_candidates", "first_valid", "best_description")
    assert [{k: e[k] for k in keys} for e in spread["problems"]] == [{k: e[k] for k in keys} for e in local["problems"]]
    assert [e["name"] for e in spread["problems"]] == ["pointwise_chain", "scalar_constant", "broadcast"]
    assert _candidates(tmp_path / "ray") == _candidates(tmp_path / "local")
    assert all(len(judged) == 2 for judged in _candidates(tmp_path / "ray").values())
    assert json.loads((tmp_path / "ray" / bench.JSON_FILE).read_text()) == spread
    lines = [json.loads(line) for line in events.getvalue().splitlines()]
    started = [i for i, e in enumerate(lines) if e["event"] == "job_started"]
    finished = [i for i, e in enumerate(lines) if e["event"] == "job_finished"]
    assert len({lines[i]["job"] for i in started}) == 3                 # each problem's events under its own job
    assert started[1] < finished[0]                                     # two problems were searched at once


@needs_ray
def test_a_killed_actor_fails_only_the_candidate_it_was_judging(cluster, tmp_path):
    task = _task(tmp_path)
    with _ray_pool() as pool:
        futures = {name: pool.submit(task, CANDIDATE, name=name) for name in ("c1.py", "c2.py", "c3.py")}
        judging = {name: index for index, name in _wait_for(lambda: len(pool.judging()) == 2 and pool.judging(),
                                                            "two candidates with the actors")}
        assert set(judging) == {"c1.py", "c2.py"}                       # c3 waits in the queue
        _kill(pool, judging["c1.py"])
        verdicts = {name: future.result(timeout=300) for name, future in futures.items()}
        assert len(pool.alive_actors()) == 1
    assert verdicts["c2.py"].verdict != "error", verdicts["c2.py"].reason
    assert {(v.verdict, v.stage) for v in verdicts.values()} == {(verdicts["c2.py"].verdict, verdicts["c2.py"].stage)}
    requeued = [c for c in verdicts["c1.py"].checks if c.name == "requeued"]
    assert len(requeued) == 1 and "node lost" in requeued[0].detail
    assert f"actor {judging['c1.py']} on node" in requeued[0].detail
    assert not any(c.name == "requeued" for v in (verdicts["c2.py"], verdicts["c3.py"]) for c in v.checks)


@needs_ray
def test_a_candidate_lost_twice_gets_a_node_lost_error_and_the_run_goes_on_without_actors(cluster, tmp_path):
    task = _task(tmp_path)
    with _ray_pool() as pool:
        future = pool.submit(task, CANDIDATE, name="c1.py")
        [(first, _)] = _wait_for(pool.judging, "the candidate with an actor")
        _kill(pool, first)
        [(second, _)] = _wait_for(lambda: [j for j in pool.judging() if j[0] != first], "the candidate judged again")
        _kill(pool, second)
        verdict = future.result(timeout=120)
        assert verdict.verdict == "error" and verdict.stage == "internal"
        assert "node lost" in verdict.reason and "2 time(s)" in verdict.reason
        after = pool.submit(task, CANDIDATE).result(timeout=10)          # an answer at once, not a hang
        assert after.verdict == "error" and "every Ray judge actor" in after.reason


def test_without_ray_the_commands_say_which_extra_to_install(tmp_path):
    reference = tmp_path / "relu_scale.py"
    reference.write_text(REFERENCE)
    script = ("import sys; sys.modules['ray'] = None\n"        # as if the extra were not installed
              "from adaexplore_core.cli import main\n"
              "sys.exit(main(sys.argv[1:]))")
    for command in (["optimize", str(reference)], ["bench", str(reference), "--out", str(tmp_path / "b")]):
        result = subprocess.run([sys.executable, "-c", script, *command, "--ray", "auto", "--device", "cpu"],
                                capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert result.returncode == 2, result.stderr
        assert "pip install 'adaexplore[ray]'" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "b").exists()


@needs_ray
def test_a_cluster_address_where_nothing_answers_is_a_usage_error_at_once(tmp_path):
    reference = tmp_path / "relu_scale.py"
    reference.write_text(REFERENCE)
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "adaexplore_core.cli", "optimize", str(reference), "--ray",
                             "127.0.0.1:1", "--device", "cpu", "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 2, result.stderr
    assert "nothing answers at 127.0.0.1:1" in result.stderr and "Traceback" not in result.stderr
    assert time.monotonic() - started < 60                    # Ray alone waits minutes for a head that is not there
