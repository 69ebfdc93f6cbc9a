"""The judge's envelope stage in this process, on plain torch modules: its failures, what it records, and the
state it leaves behind (modes restored, gradients cleared). The corpus (tests/judge) runs it on candidates."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch

from adaexplore_core.judge.correctness import LaunchCounter
from adaexplore_core.judge.protocol import JudgeRequest
from adaexplore_core.judge.verdict import Check, invalid
from adaexplore_core.judge.worker import Failed, Judging
from adaexplore_core.task import TaskSpec

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "judge" / "refs" / "pointwise.py"


class Task:
    """Only what the stage reads of a task: seeded inputs."""

    def __init__(self, *shapes: tuple[int, ...]) -> None:
        self.shapes = shapes

    def make_inputs(self, seed: int, device: torch.device) -> list[torch.Tensor]:
        g = torch.Generator().manual_seed(seed)
        return [torch.randn(s, generator=g).to(device) for s in self.shapes]


def judging(source: str = "") -> Judging:
    spec = TaskSpec.parse(str(REFERENCE))
    request = JudgeRequest(id=1, task=spec.to_dict(), candidate_source=source, device="cpu", seed=3)
    return Judging(channel=None, request=request, counter=LaunchCounter())


def failure(fn, *args) -> Check:
    with pytest.raises(Failed) as caught:
        fn(*args)
    return caught.value.verdict


class DetachedWeight(torch.nn.Linear):
    """Right values, but the weight is detached: it gets no gradient."""

    def forward(self, x):
        return x @ self.weight.detach().t() + self.bias


class FirstBatchOnly(torch.nn.Linear):
    """Right for 8 rows only: the output is cut to the traced batch."""

    def forward(self, x):
        return super().forward(x)[:8]


class Float32Out(torch.nn.Linear):
    def forward(self, x):
        return super().forward(x).float()


def linear_pair(cls: type = torch.nn.Linear) -> tuple[torch.nn.Module, torch.nn.Module]:
    torch.manual_seed(0)
    reference = torch.nn.Linear(4, 3)
    candidate = cls(4, 3)
    candidate.load_state_dict(reference.state_dict())
    return reference, candidate


def test_the_stage_records_what_it_tried_and_leaves_no_gradients():
    job = judging()
    reference, candidate = linear_pair()
    job.envelope_trials(Task((8, 4)), reference, candidate)
    env = job.envelope
    assert env["declared"] is None and env["shapes_timed"] == [[8, 4]]
    assert [v["shapes"] for v in env["shapes_validated"]] == [[[4, 4]], [[16, 4]], [[7, 4]]]
    assert not any(v["triton"] for v in env["shapes_validated"]) and env["shapes_skipped"] == []
    assert (env["gradients"], env["dtypes"], env["modes"], env["devices"]) == (
        "matched", ["torch.float32", "torch.bfloat16"], ["train", "eval"], ["cpu"])
    assert [c.name for c in job.checks] == ["shapes", "gradients", "dtypes", "modes"]
    assert all(c.passed for c in job.checks)
    assert all(p.grad is None for p in list(reference.parameters()) + list(candidate.parameters()))
    assert reference.training and candidate.training


def test_a_hard_coded_batch_fails_the_shape_trials():
    job = judging()
    verdict = failure(job.shapes, Task((8, 4)), *linear_pair(FirstBatchOnly))
    check = verdict.failed_check()
    assert check.name == "shapes" and "shape trial (B: 8 -> 16)" in check.detail
    assert verdict.reason.endswith("fall back to the original forward where the kernels do not apply)")
    assert [v["label"] for v in job.envelope["shapes_validated"]] == ["shape trial (B: 8 -> 4)"]


def test_a_declared_free_size_must_run_triton():
    source = 'ENVELOPE = {"device_types": ["cpu"], "inputs": [{"dtype": "torch.float32", "sizes": ["B", 4]}]}\n'
    job = judging(source)
    verdict = failure(job.shapes, Task((8, 4)), *linear_pair())
    assert verdict.failed_check().name == "envelope"
    assert "declares B free but took no Triton kernel for B = 4" in verdict.reason
    cuda_only = judging(source.replace('["cpu"]', '["cuda"]'))
    cuda_only.shapes(Task((8, 4)), *linear_pair())            # no Triton claimed on the CPU
    assert cuda_only.checks[-1].name == "shapes" and cuda_only.checks[-1].passed


def test_a_detached_weight_fails_the_gradient_trial_and_its_grads_are_cleared():
    job = judging()
    reference, candidate = linear_pair(DetachedWeight)
    verdict = failure(job.gradients, Task((8, 4)), reference, candidate)
    assert verdict.failed_check().name == "gradients"
    assert "(weight: None where the reference has one)" in verdict.reason
    assert "training through ModelNew must work" in verdict.reason
    assert all(p.grad is None for p in list(reference.parameters()) + list(candidate.parameters()))


def test_outputs_that_do_not_require_grad_fail():
    class NoGrad(torch.nn.Linear):
        def forward(self, x):
            return super().forward(x).detach()

    verdict = failure(judging().gradients, Task((8, 4)), *linear_pair(NoGrad))
    assert verdict.failed_check().name == "gradients" and "output does not require grad" in verdict.reason


def test_differentiable_through_its_inputs_alone_and_not_when_it_raises_with_autograd():
    job = judging()
    reference = torch.nn.Flatten()          # no parameters: differentiable through its input
    job.gradients(Task((8, 4)), reference, copy.deepcopy(reference))
    assert job.envelope["gradients"] == "matched"

    class InPlace(torch.nn.Module):
        def forward(self, x):
            return x.add_(1)                # a leaf that requires grad cannot be updated in place

    job.gradients(Task((8, 4)), InPlace(), InPlace())
    assert job.envelope["gradients"] == "not differentiable" and job.checks[-1].passed


def test_float32_where_the_reference_returns_bfloat16_fails_the_dtype_trial():
    verdict = failure(judging().dtypes, Task((8, 4)), *linear_pair(Float32Out))
    check = verdict.failed_check()
    assert check.name == "dtypes" and "dtype torch.float32, expected torch.bfloat16" in check.detail


def test_the_dtype_trial_needs_float32_throughout():
    job = judging()
    reference, candidate = linear_pair()
    job.dtypes(Task((8, 4)), reference.double(), candidate.double())
    assert job.envelope["dtypes"] == ["torch.float32", "torch.float64"]      # float32 inputs, float64 weights
    assert "not tried" in job.checks[-1].detail


def test_the_mode_trial_switches_and_restores_every_submodule():
    torch.manual_seed(0)
    reference = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5), torch.nn.BatchNorm1d(4))
    reference[2].eval()                                    # mixed modes, as a module built in eval mode
    candidate = copy.deepcopy(reference)
    before = [m.training for m in reference.modules()]
    job = judging()
    job.modes(Task((8, 4)), reference, candidate)          # in eval: no dropout, so both agree
    assert job.envelope["modes"] == ["train", "eval"] and job.checks[-1].passed
    assert [m.training for m in reference.modules()] == before == [m.training for m in candidate.modules()]


def test_a_candidate_that_ignores_the_mode_fails_the_mode_trial():
    class ByMode(torch.nn.Module):
        def forward(self, x):
            return x * (3.0 if self.training else 2.0)

    class EvalAlways(torch.nn.Module):
        def forward(self, x):
            return x * 2.0

    verdict = failure(judging().modes, Task((8, 4)), ByMode().eval(), EvalAlways().eval())
    assert verdict.failed_check().name == "modes" and "train mode trial" in verdict.reason
    assert "must follow model.train() and model.eval()" in verdict.reason


def test_rule_renames_only_what_a_trial_compares():
    job = judging()
    with pytest.raises(Failed) as caught, job.rule("shapes", "shape trial (B: 8 -> 7)", "RULE"):
        raise Failed(invalid("runtime", "The candidate forward raised: E", [Check("runs", False, "E")]))
    verdict = caught.value.verdict
    assert verdict.failed_check() == Check("shapes", False, "shape trial (B: 8 -> 7): E")
    assert verdict.reason == "The candidate forward raised: E (in the shape trial (B: 8 -> 7)): RULE"
    with pytest.raises(Failed) as caught, job.rule("shapes", "shape trial (B: 8 -> 7)", "RULE"):
        raise Failed(invalid("correctness", "changed the global state", [Check("global_state", False, "x")]))
    assert caught.value.verdict.failed_check().name == "global_state"
    assert caught.value.verdict.reason == "changed the global state"


def test_the_cpu_trial_is_not_run_on_the_cpu_judge():
    job = judging()
    job.devices(Task((8, 4)), *linear_pair())
    assert job.envelope["devices"] == ["cpu"] and job.checks == []
