"""The judge on a real GPU: timing, baselines, and recovery from a CUDA illegal address. Skipped without CUDA."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from adaexplore_core.devices import cuda_device_count
from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.task import TaskSpec

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "adaexplore_core" / "examples"

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(cuda_device_count() == 0, reason="needs a CUDA GPU")]


@pytest.fixture(scope="module")
def pool():
    with JudgePool(JudgeConfig(devices=("cuda:0",), workers_per_device=1, timeout_s=120)) as p:
        yield p


def test_valid_candidate_is_timed_against_eager_and_compile(pool):
    task = TaskSpec.parse(str(EXAMPLES / "fused_bias_gelu.py"))
    verdict = pool.judge(task, (EXAMPLES / "fused_bias_gelu_triton.py").read_text())
    assert verdict.ok, verdict.to_json()
    t = verdict.timing
    assert t is not None and t.candidate_ms > 0 and t.eager_ms > 0 and t.iterations >= 20
    # the estimate is the geometric mean of the rounds' ratios, the times pooled medians: close, not equal
    assert t.speedup_vs_eager_low <= t.speedup_vs_eager <= t.speedup_vs_eager_high
    assert t.speedup_vs_eager == pytest.approx(t.eager_ms / t.candidate_ms, rel=0.15)
    assert t.candidate_host_ms > 0 and t.eager_host_ms > 0
    assert verdict.env["gpu"] and verdict.env["capability"]
    assert any(c.name == "after_timing" and c.passed for c in verdict.checks)
    # the lower-bound roofline: measured peaks of a datacenter GPU, a fraction in (0, 1.5]
    assert t.peak_gbps and t.peak_gbps > 100 and t.peak_tflops and t.peak_tflops > 1
    assert t.min_bytes and t.min_bytes > 0 and t.flops is not None
    assert t.roofline_bound in ("memory", "compute") and 0 < t.roofline_fraction <= 1.5


def test_illegal_address_is_a_verdict_and_the_pool_recovers(pool):
    task = TaskSpec.parse(str(EXAMPLES / "fused_bias_gelu.py"))
    bad = pool.judge(task, (ROOT / "tests" / "data" / "gpu" / "illegal_address.py").read_text())
    assert bad.verdict == "invalid" and bad.stage in ("runtime", "crash"), bad.to_json()
    good = pool.judge(task, (EXAMPLES / "fused_bias_gelu_triton.py").read_text())
    assert good.ok, good.to_json()


def test_cli_judge_json_on_gpu():
    out = subprocess.run([sys.executable, "-m", "adaexplore_core.cli", "judge", str(EXAMPLES / "fused_bias_gelu.py"),
                          str(EXAMPLES / "fused_bias_gelu_triton.py"), "--device", "cuda", "--json"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    import json
    data = json.loads(out.stdout)
    assert data["verdict"] == "valid" and data["timing"]["eager_ms"] > 0


@pytest.mark.parametrize("name", ["cross_entropy_module_fp32", "causal_lm_cross_entropy_bf16",
                                  "gpt2_token_position_embedding_bf16"])
def test_references_that_index_are_judged_without_losing_the_cuda_context(pool, name):
    """A trial the reference refuses (a -100 target where ignore_index is -1, positions beyond the table) is
    asked on the CPU first: on the GPU it would be a device-side assert ("The judge failed", H200 2026-12-02)."""
    from adaexplore_core.proposers.base import ProposalRequest
    from adaexplore_core.proposers.builtin.proposer import BuiltinProposer
    task = TaskSpec.parse(str(ROOT / "benchmarks" / "realistic" / f"{name}.py"))
    candidate = BuiltinProposer("cuda").initial(ProposalRequest(task=task), 1)[0].source
    verdict = pool.judge(task, candidate)
    assert verdict.verdict != "error", verdict.to_json()


def test_the_device_time_of_a_call_leaves_out_the_hosts_time_to_launch_it():
    """A call that spends 1 ms on the host before a tiny kernel: the events see the kernel, the host's clock the
    millisecond (without the spin queued before the start event, the events saw both)."""
    import time

    import torch

    from adaexplore_core.judge import timing

    def slow_to_launch(x):
        time.sleep(0.001)
        return x + 1

    device = torch.device("cuda:0")
    fresh = timing.FreshInputs([[torch.ones(1024, device=device)]], seed=0)
    m = timing.measure(slow_to_launch, fresh, device, timing.TimingConfig(budget_ms=5, min_iterations=20))
    device_ms, host_ms = timing.quartiles(m.samples)[0], timing.quartiles(m.host_ms)[0]
    assert host_ms > 1.0 and device_ms < 0.2, (device_ms, host_ms)
    assert m.uncovered <= len(m.samples) // 10


@pytest.mark.parametrize("name, reference", [("detects_gpu_build", "ref_example"),
                                             ("fast_only_when_gpu_built", "ref_example"),
                                             ("plain_tensor_attribute", "ref_table"),
                                             ("triton_in_constructor", "ref_table"),
                                             ("baked_width_when_cpu_built", "ref_example")])
def test_the_candidate_is_built_as_programs_build_it(pool, name, reference):
    """Red team (2026-12-03): the judge built ModelNew with the GPU as default device, which no program does;
    each of these was certified on the H200 and wrong, slower or raising in a program that builds the module
    on the CPU and moves it."""
    folder = ROOT / "tests" / "data" / "gpu" / "built_as_programs_do"
    verdict = pool.judge(TaskSpec.parse(str(folder / f"{reference}.py")), (folder / f"{name}.py").read_text())
    assert verdict.verdict == "invalid", verdict.to_json()


def test_a_reference_with_a_random_non_persistent_buffer_is_built_as_the_candidate_is(pool):
    """Red team (2026-12-03): the reference was built on the GPU, the candidate on the CPU: a buffer outside the
    state_dict drawn at build time differed, and the honest candidate was invalid. Such a reference is built on
    the CPU and moved too."""
    folder = ROOT / "tests" / "data" / "gpu" / "built_as_programs_do"
    verdict = pool.judge(TaskSpec.parse(str(folder / "ref_random_buffer.py")),
                         (folder / "random_buffer_honest.py").read_text())
    assert verdict.ok, verdict.to_json()


def test_seeding_moves_the_gpu_generator_on_as_a_programs_has_drawn():
    """Red team (2026-12-03): a generator just seeded is the judge's mark. After ``seed_everything`` the GPU's
    Philox offset is not 0 (as just seeded) but an offset drawn from the seed: the same for the same seed."""
    script = (
        "import torch\n"
        "from adaexplore_core.task import seed_everything\n"
        "torch.zeros(1, device='cuda')\n"
        "offsets = []\n"
        "for seed in (5, 5, 6):\n"
        "    seed_everything(seed)\n"
        "    offsets.append(int(torch.cuda.get_rng_state().view(torch.int64)[1]))\n"
        "    torch.rand(8, device='cuda')\n"
        "print(offsets)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    first, again, other = json.loads(done.stdout.strip().splitlines()[-1])
    assert first == again and first != other and first > 0 and other > 0, (first, again, other)


def test_every_config_of_an_autotuned_kernel_is_validated_on_the_gpu(pool):
    """Red team b7 on the GPU: the trials run each config in turn (the autotuner may pick any of them); the
    autotuner chooses only before timing, and the trials after timing check its choice."""
    corpus = ROOT / "tests" / "data" / "judge"
    task = TaskSpec.parse(str(corpus / "refs" / "pointwise.py"))
    bad = pool.judge(task, (corpus / "candidates" / "pointwise" / "autotune_second_config_wrong.py").read_text())
    assert bad.verdict == "invalid" and bad.stage == "correctness", bad.to_json()
    good = pool.judge(task, (corpus / "candidates" / "pointwise" / "valid_autotuned.py").read_text())
    assert good.ok and good.timing is not None, good.to_json()
    assert any(c.name == "after_timing" and c.passed for c in good.checks)


def test_a_workspace_kept_between_calls_fails_on_two_streams(pool):
    """Red team b16: two calls at once on two CUDA streams; a module-level workspace is written by both, by a
    Triton kernel (caught with the first stream stalled after its launches) or by torch (stalled before)."""
    folder = ROOT / "tests" / "data" / "gpu" / "two_streams"
    task = TaskSpec.parse(str(folder / "ref_scale_shift.py"))
    for name in ("shared_workspace.py", "torch_written_workspace.py"):
        bad = pool.judge(task, (folder / name).read_text())
        assert bad.verdict == "invalid" and "two streams trial" in bad.reason, bad.to_json()
    good = pool.judge(task, (folder / "own_workspace.py").read_text())
    assert good.ok, good.to_json()
    assert any("two streams trial" in c.detail for c in good.checks if c.name == "program")
