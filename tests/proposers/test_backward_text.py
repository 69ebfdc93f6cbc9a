"""Backward kernels as text (backward.py): derivative formulas printed as Triton, which kernels get one, and
what the generated file says. Running them is backward_cases.py's job (the interpreter)."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from adaexplore_core.proposers.base import ProposalError, ProposalRequest
from adaexplore_core.proposers.builtin import backward, codegen, derivative
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer
from adaexplore_core.task import TaskSpec

DATA = Path(__file__).resolve().parents[1] / "data" / "proposers"


def _plans(name: str):
    spec = TaskSpec.parse(str(DATA / name))
    return BuiltinProposer(device_type="cpu").plans(ProposalRequest(task=spec))


def test_derivative_formulas_print_as_triton_expressions():
    g, y, x = backward.Expr("g"), backward.Expr("y"), backward.Expr("x")
    relu, = derivative.vjp("relu", g, y, [x])
    assert relu.text == "tl.where((((x) <= (0.0))) != 0, tl.zeros_like(g), g)"
    da, db = derivative.vjp("mul", g, y, [x, 2.0])
    assert da.text == "((g) * (2.0))" and db.text == "((g) * (x))"
    sig, = derivative.vjp("sigmoid", g, y, [x])
    assert sig.text == "((((g) * (y))) * (((1.0) - (y))))"
    clamp, = derivative.vjp("clamp", g, y, [x], {"min": -1.0, "max": 2.0})
    assert "((x) == (x)) | ((x) != (x))" in clamp.text      # True everywhere, NaN included, then the bounds
    assert "tl.exp" in derivative.vjp("mish", g, y, [x])[0].text


def test_a_torch_function_with_no_triton_form_is_refused():
    with pytest.raises(ProposalError, match="no Triton form"):
        torch.cumsum(backward.Expr("x"), 0)


def test_only_kernels_with_a_derivative_for_every_op_get_a_backward():
    captured, plan = _plans("pointwise_chain.py")[0]
    assert all(backward.no_backward_reason(k, plan) is None for k in plan.kernels)
    captured, plan = _plans("log_softmax.py")[0]
    reasons = [backward.no_backward_reason(k, plan) for k in plan.kernels]
    assert any(r and "kernel has no backward yet" in r for r in reasons), reasons


def test_the_file_ties_forward_and_backward_kernels_or_keeps_the_fallback():
    captured, plan = _plans("pointwise_chain.py")[0]
    source = codegen.generate(captured, plan, device_type="cpu")
    assert "'autograd': True" in source and "autograd through Triton backward kernels" in source
    assert "_backward_kernel[grid]" in source and "torch.autograd.Function" in source
    assert "def recomputed_grads(" in source        # a backward with grad mode on: the ops in torch
    captured, plan = _plans("log_softmax.py")[0]
    source = codegen.generate(captured, plan, device_type="cpu")
    assert "'autograd': False" in source and "no autograd" in source
    assert "_backward_kernel" not in source and "torch.autograd.Function" not in source
