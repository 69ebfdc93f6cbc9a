"""(Run by test_builtin_backward.py, in a fresh process with TRITON_INTERPRET=1.) Backward kernels: for every
reference of tests/data/proposers whose built-in plans have one (pointwise kernels only), each plan's
ModelNew trains through Triton: its ENVELOPE says autograd, a grad-mode call takes the Triton path, the
backward launches Triton kernels, and the outputs, input and parameter gradients and a second-order
gradient (a gradient penalty, through the torch form of each kernel) equal the reference's; at another
batch size too.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from adaexplore_core.judge.correctness import LaunchCounter
from adaexplore_core.proposers.base import ProposalError, ProposalRequest
from adaexplore_core.proposers.builtin import codegen
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer
from adaexplore_core.task import TaskSpec, import_file, load_task

DATA = Path(__file__).resolve().parents[1] / "data" / "proposers"
REFERENCES = sorted(DATA.glob("*.py")) + sorted((DATA / "real_code").glob("*.py"))
COUNTER = LaunchCounter()
COUNTER.install()
with_backward: list[str] = []            # "reference/plan" that got backward kernels (checked at the end)


def _tensors(value: Any) -> list[torch.Tensor]:
    values = value if isinstance(value, (list, tuple)) else [value]
    return [v for v in values if isinstance(v, torch.Tensor)]


def _close(got: Any, want: Any, what: str) -> None:
    assert (got is None) == (want is None), f"{what}: {got is None} vs {want is None}"
    if want is None:
        return
    tol = 1e-4 if want.dtype in (torch.float32, torch.float64) else 3e-2
    torch.testing.assert_close(got, want, atol=tol, rtol=tol, equal_nan=True, msg=lambda m: f"{what}: {m}")


def _candidates(path: Path, folder: Path) -> list[tuple[str, Any, Any]]:
    """(plan label, the reference model, ModelNew with the same weights) for each plan with backward kernels."""
    spec = TaskSpec.parse(str(path))
    task = load_task(spec)
    proposer = BuiltinProposer(device_type="cpu")
    try:
        plans = proposer.plans(ProposalRequest(task=spec))
    except ProposalError:
        return []
    found = []
    for i, (captured, plan) in enumerate(plans):
        try:
            source = codegen.generate(captured, plan, device_type="cpu")
        except ProposalError:
            continue
        file = folder / f"{path.stem}_plan{i}.py"          # the interpreter reads kernels' source from the file
        file.write_text(source)
        module = import_file(str(file), prefix="candidate_backward")
        if not module.ModelNew.ENVELOPE["autograd"]:
            assert "_backward_kernel" not in source
            continue
        reference = task.build(task.model_class, 0, "cpu")
        candidate = task.build(module.ModelNew, 0, "cpu")
        candidate.load_state_dict(reference.state_dict())
        found.append((f"{path.stem}/plan{i}", task, reference, candidate))
    return found


def _leaves(inputs: list[Any]) -> list[Any]:
    return [x.detach().clone().requires_grad_() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
            for x in inputs]


def _train_step(model: Any, inputs: list[Any], grads: list[torch.Tensor]) -> tuple[list[torch.Tensor], list[Any]]:
    model.zero_grad(set_to_none=True)
    outs = [o for o in _tensors(model(*inputs)) if o.requires_grad]
    sum((o * g).sum() for o, g in zip(outs, grads)).backward()
    return outs, [x.grad if isinstance(x, torch.Tensor) else None for x in inputs] + \
        [p.grad for p in model.parameters()]


@pytest.mark.parametrize("path", REFERENCES, ids=[p.stem for p in REFERENCES])
def test_backward_kernels_train_as_the_reference(path: Path, tmp_path):
    pairs = _candidates(path, tmp_path)
    if not pairs:
        pytest.skip("no plan with backward kernels")
    for label, task, reference, candidate in pairs:
        sizes = candidate.ENVELOPE["inputs"][0].get("sizes") or [0]
        for seed, resize in ((1, False), (2, True)):
            inputs = task.make_inputs(seed, "cpu")
            if resize:                                   # another batch size, on the Triton path too
                if not isinstance(sizes[0], str) or len(inputs) > 1:
                    continue
                inputs[0] = torch.cat([inputs[0], inputs[0][:1]])
            ref_in, cand_in = _leaves(inputs), _leaves(inputs)
            calls = []
            original = candidate._triton_forward
            candidate._triton_forward = lambda *a: calls.append(1) or original(*a)
            with torch.random.fork_rng():
                ref_out = [o for o in _tensors(reference(*ref_in)) if o.requires_grad]
            if not ref_out:
                pytest.skip("the reference's outputs do not require grad")
            grads = [torch.randn_like(o) for o in ref_out]
            want_out, want = _train_step(reference, ref_in, grads)
            with COUNTER.counting() as launches:
                got_out, got = _train_step(candidate, cand_in, grads)
            candidate._triton_forward = original
            assert calls, f"{label}: the grad-mode call did not take the Triton path"
            assert launches[0] >= 2, f"{label}: no Triton launch in the backward ({launches[0]} in all)"
            for i, (g, w) in enumerate(zip(got_out, want_out)):
                _close(g, w, f"{label} output {i}")
            for i, (g, w) in enumerate(zip(got, want)):
                _close(g, w, f"{label} gradient {i}")
        # second order: a gradient penalty differentiates the backward (the torch form of each kernel)
        x_ref, x_cand = _leaves(task.make_inputs(3, "cpu")), _leaves(task.make_inputs(3, "cpu"))
        penalties = []
        for model, xs in ((reference, x_ref), (candidate, x_cand)):
            model.zero_grad(set_to_none=True)
            first = next((x for x in xs if isinstance(x, torch.Tensor) and x.requires_grad), None)
            if first is None:
                break
            out = sum(o.sum() for o in _tensors(model(*xs)) if o.requires_grad)
            g, = torch.autograd.grad(out, first, create_graph=True, allow_unused=True)
            if g is None or not g.requires_grad:      # linear in the input: no second order to compare
                assert model is reference, f"{label}: the candidate's gradient is not differentiable"
                break
            (g * g).sum().backward()
            penalties.append([first.grad] + [p.grad for p in model.parameters()])
        if len(penalties) == 2:
            for i, (g, w) in enumerate(zip(penalties[1], penalties[0])):
                _close(g, w, f"{label} second-order gradient {i}")
        with_backward.append(label)


def test_enough_references_train_through_triton():
    """Run last (file order): the backward covers the pointwise references, not one or two."""
    assert len(with_backward) >= 8, with_backward
