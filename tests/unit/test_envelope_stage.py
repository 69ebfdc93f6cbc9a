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

    def init_args(self) -> list:
        return []                               # the constructor trial: nothing to vary


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
    assert [v["shapes"] for v in env["shapes_validated"]] == [[[4, 4]], [[16, 4]], [[7, 4]], [[1, 4]], [[133, 4]],
                                                              [[35, 4]]]
    assert not any(v["triton"] for v in env["shapes_validated"]) and env["shapes_skipped"] == []
    assert (env["gradients"], env["dtypes"], env["modes"], env["devices"], env["layouts"]) == (
        "matched", ["torch.float32", "torch.bfloat16", "torch.float16", "torch.float64"], ["train", "eval"],
        ["cpu"], ["contiguous", "transposed", "sliced"])
    assert [c.name for c in job.checks] == ["shapes", "fixed_sizes", "layouts", "settings", "constructor",
                                            "gradients", "dtypes", "modes", "weights", "program"]
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
    reference = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU())
    reference[1].eval()                                    # mixed modes, as a module with frozen statistics
    candidate = copy.deepcopy(reference)
    before = [m.training for m in reference.modules()]
    job = judging()
    job.modes(Task((8, 4)), reference, candidate)
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


class CenteredScaled(torch.nn.Module):
    """1000 * (z - mean(z)) for z = x + b, with a scalar b: b's gradient is exactly 0, and float32 leaves
    rounding noise of about 1e-2 in it, like a norm layer after a bias in a real block."""

    def __init__(self) -> None:
        super().__init__()
        self.b = torch.nn.Parameter(torch.tensor([0.5]))

    def forward(self, x):
        z = x + self.b
        return 1000 * (z - z.mean(-1, keepdim=True))


class CenteredScaledFloat64(CenteredScaled):
    """The same, computed in float64: its gradient of b is closer to the exact 0 than the reference's."""

    def forward(self, x):
        z = x.double() + self.b.double()
        return (1000 * (z - z.mean(-1, keepdim=True))).float()


def test_gradients_the_reference_gets_wrong_are_judged_against_float64():
    reference, candidate = CenteredScaled(), CenteredScaledFloat64()
    job = judging()
    job.gradients(Task((8, 4096)), reference, candidate)
    assert job.envelope["gradients"] == "matched" and job.checks[-1].passed
    x = Task((8, 4096)).make_inputs(3, torch.device("cpu"))[0]
    for model in (reference, candidate):                  # the float32 gradients differ by more than atol
        model(x).mul(torch.randn(8, 4096)).sum().backward()
    assert abs(float(reference.b.grad - candidate.b.grad)) > 1e-4


def test_the_gradient_trial_is_deterministic_and_restores_the_flags():
    seen = []

    class Recording(torch.nn.Linear):
        def forward(self, x):
            seen.append((torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.deterministic))
            return super().forward(x)

    job = judging()
    job.gradients(Task((8, 4)), *linear_pair(Recording))
    # 16 trials (no odd or largest size: no size trials ran; one input: no broadcast, no input alone), the
    # two of two calls before a backward calling twice
    assert seen == [(True, True)] * 18 and job.checks[-1].passed
    assert not torch.are_deterministic_algorithms_enabled() and not torch.backends.cudnn.deterministic


def test_a_candidate_that_turns_determinism_off_fails():
    class Nondeterministic(torch.nn.Linear):
        def forward(self, x):
            torch.use_deterministic_algorithms(False)
            return super().forward(x)

    verdict = failure(judging().gradients, Task((8, 4)), *linear_pair(Nondeterministic))
    assert verdict.failed_check().name == "global_state" and "determinism flags" in verdict.reason
    assert not torch.are_deterministic_algorithms_enabled()


class NoAutograd(torch.autograd.Function):
    """A Triton path stand-in: the forward's values with no gradient for the weight or bias."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(weight)
        return x @ weight.t() + bias

    @staticmethod
    def backward(ctx, grad):
        (weight,) = ctx.saved_tensors
        return grad @ weight, None, None


class FallsBackOnlyForInputGrad(torch.nn.Linear):
    """Takes the original path only when the input requires grad: training on data does not."""

    def forward(self, x):
        if torch.is_grad_enabled() and x.requires_grad:
            return super().forward(x)
        return NoAutograd.apply(x, self.weight, self.bias)


class FallsBackOnlyForWeightGrad(torch.nn.Linear):
    """Takes the original path only when the weight requires grad: a frozen layer loses its input gradient."""

    def forward(self, x):
        if torch.is_grad_enabled() and self.weight.requires_grad:
            return super().forward(x)
        return (x.detach() @ self.weight.t() + self.bias).detach()


class FallsBackOnlyInTraining(torch.nn.Linear):
    def forward(self, x):
        if self.training:
            return super().forward(x)
        return NoAutograd.apply(x, self.weight, self.bias)


@pytest.mark.parametrize("cls, label", [(FallsBackOnlyForInputGrad, "inputs without grad"),
                                        (FallsBackOnlyForWeightGrad, "parameters frozen"),
                                        (FallsBackOnlyInTraining, "gradient trial in eval mode")])
def test_each_way_training_calls_a_module_is_tried(cls, label):
    reference, candidate = linear_pair(cls)
    verdict = failure(judging().gradients, Task((8, 4)), reference, candidate)
    assert verdict.failed_check().name == "gradients" and label in verdict.failed_check().detail
    assert reference.training and candidate.training and all(p.requires_grad for p in candidate.parameters())


class AssignsGrad(torch.nn.Linear):
    """Writes its weight's gradient instead of adding to it: gradient accumulation breaks."""

    def forward(self, x):
        out = super().forward(x)
        if out.requires_grad:
            out.register_hook(lambda g: setattr(self.weight, "grad", None))
        return out


class ScalesItsInputInBackward(torch.nn.Linear):
    """Reuses its input's memory in backward (as a kernel writing dX into X would)."""

    def forward(self, x):
        if x.requires_grad:
            x.register_hook(self.scale_input(x))
        return super().forward(x)

    @staticmethod
    def scale_input(x):
        def hook(grad):
            x.data.mul_(2)
        return hook


class WeightAsBuffer(torch.nn.Module):
    """The reference's weight registered as a buffer: an optimizer would no longer train it."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.register_buffer("weight", torch.zeros(out_features, in_features))
        self.bias = torch.nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        return x @ self.weight.t() + self.bias


def test_gradients_must_accumulate_and_leave_inputs_and_the_parameter_set_alone():
    verdict = failure(judging().gradients, Task((8, 4)), *linear_pair(AssignsGrad))
    assert verdict.failed_check().name == "gradients" and ".grad accumulating" in verdict.failed_check().detail
    verdict = failure(judging().gradients, Task((8, 4)), *linear_pair(ScalesItsInputInBackward))
    assert verdict.failed_check().name == "inputs_unchanged" and "in its forward or backward" in verdict.reason
    torch.manual_seed(0)
    reference = torch.nn.Linear(4, 3)
    candidate = WeightAsBuffer(4, 3)
    candidate.load_state_dict(reference.state_dict())
    verdict = failure(judging().gradients, Task((8, 4)), reference, candidate)
    assert verdict.failed_check().name == "parameters" and "('weight', True)" in verdict.reason


class CountedLinear(torch.nn.Linear):
    """nn.Linear that records the sizes it is built with."""

    built: list[tuple[int, int]] = []

    def __init__(self, in_features: int, out_features: int) -> None:
        CountedLinear.built.append((in_features, out_features))
        super().__init__(in_features, out_features)


def test_a_constructor_pair_the_reference_refuses_is_tried_on_inputs_of_the_new_size():
    """in_features changed: the reference raises on get_inputs' inputs, so no ModelNew is built for those (on
    the GPU the first pairs are built on the CPU: seconds for a large Linear); the inputs' dims of the old size
    then take the new one (red team 2026-12-04: LayerNorm(D) with a fixed block), and the pair is compared."""
    from adaexplore_core.task import LoadedTask

    spec = TaskSpec.parse(str(REFERENCE))
    task = LoadedTask(spec=spec, model_class=torch.nn.Linear, get_inputs=lambda: [torch.randn(8, 4)],
                      get_init_inputs=lambda: [4, 3])
    reference, candidate = linear_pair(CountedLinear)
    CountedLinear.built.clear()
    job = judging()
    job.constructor(task, reference, candidate)
    assert CountedLinear.built == [(5, 3), (4, 4), (3, 3), (4, 2), (9, 3), (4, 7)]
    (check,) = job.checks
    assert check.passed and "the reference does not accept get_inputs' inputs there" not in check.detail
    assert "argument 0: 4 -> 5) matched the reference (the inputs' dims of size 4 at 5)" in check.detail
    assert "argument 1: 3 -> 7) matched the reference" in check.detail


class ZeroRowsPastTheTable(torch.nn.Embedding):
    """Rows of zeros for ids outside the table, where torch raises (red team 16, a8)."""

    def forward(self, ids):
        inside = (ids >= 0) & (ids < self.num_embeddings)
        return torch.nn.functional.embedding(ids.clamp(0, self.num_embeddings - 1), self.weight) \
            * inside.unsqueeze(-1)


class NanRowsPastTheTable(ZeroRowsPastTheTable):
    """NaN rows there instead: not raising either (a read past a weight can find NaN in freed memory)."""

    def forward(self, ids):
        out = super().forward(ids)
        return out.masked_fill(((ids < 0) | (ids >= self.num_embeddings)).unsqueeze(-1), float("nan"))


@pytest.mark.parametrize("cls, refused", [(torch.nn.Embedding, True), (NanRowsPastTheTable, False),
                                          (ZeroRowsPastTheTable, False)])
def test_where_the_reference_raises_the_candidate_must_raise(cls, refused):
    reference = torch.nn.Embedding(10, 4)
    candidate = cls(10, 4)
    candidate.load_state_dict(reference.state_dict())
    ids = [torch.tensor([3, 12, 5])]
    job = judging()
    if refused:
        job.refused_alike(reference, candidate, ids, "ids trial", "out_of_distribution")
    else:
        verdict = failure(job.refused_alike, reference, candidate, ids, "ids trial", "out_of_distribution")
        assert verdict.failed_check().name == "out_of_distribution" and "the reference raises" in verdict.reason
