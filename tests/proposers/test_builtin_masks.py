"""The built-in proposer on attention masks and other tensors made from the input's sizes (the references of
tests/data/proposers/masks): a bool mask buffer sliced by the input's size, a causal mask made in forward from
``torch.ones(t, t).tril()`` or ``torch.full((t, t), -inf).triu(1)``, ``torch.finfo(dtype).min``, bool values in
a kernel (masked_fill, where, comparisons), cos/sin cache buffers sliced to the sequence length.

Every initial candidate is judged on the CPU (the judge's workers run the Triton interpreter) and must be valid,
at the shape variants the judge tries; the default (fused) candidate has the kernels FUSED names.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import torch

from adaexplore_core.judge.pool import JudgeConfig, JudgePool
from adaexplore_core.proposers.base import ProposalRequest
from adaexplore_core.proposers.builtin.capture import RECORDED_FUNCTIONS, capture
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer
from adaexplore_core.task import TaskSpec

DATA = Path(__file__).resolve().parents[1] / "data" / "proposers" / "masks"
REFERENCES = sorted(DATA.glob("*.py"))
COUNT = 4
CONFIG = JudgeConfig(devices=("cpu",), workers_per_device=2, timeout_s=300)
RESULT_TIMEOUT_S = 300
# kernels of the default candidate: a causal or padding softmax is ONE kernel (scores read once, written once)
FUSED = {"causal_buffer": 1, "causal_tril_inline": 1, "additive_triu_mask": 1, "padding_mask_finfo": 1,
         "bool_compare_where": 1, "mask_returned": 1, "rotary_cached": 4}


def task_of(stem: str) -> TaskSpec:
    return TaskSpec.parse(str(DATA / f"{stem}.py"))


@pytest.fixture(scope="module")
def judged():
    """initial(COUNT) for every reference, every candidate judged: stem -> [(proposal, verdict)]."""
    with JudgePool(CONFIG) as pool:
        futures = {}
        for path in REFERENCES:
            task = task_of(path.stem)
            proposals = BuiltinProposer().initial(ProposalRequest(task=task), COUNT)
            futures[path.stem] = [(p, pool.submit(task, p.source, name=f"{path.stem}_{i}.py"))
                                  for i, p in enumerate(proposals)]
        yield {stem: [(p, f.result(timeout=RESULT_TIMEOUT_S)) for p, f in items] for stem, items in futures.items()}


def test_every_reference_has_an_expected_kernel_count():
    assert sorted(FUSED) == [p.stem for p in REFERENCES]


@pytest.mark.parametrize("stem", sorted(FUSED))
def test_every_candidate_is_valid(stem, judged):
    results = judged[stem]
    assert len(results) == COUNT, [p.description for p, _ in results]
    for proposal, verdict in results:
        assert verdict.ok, f"--- {proposal.description}\n{proposal.source}\n--- verdict\n" \
                           f"{json.dumps(verdict.to_dict(), indent=2, sort_keys=True)}"
        shapes = next(c for c in verdict.to_dict()["checks"] if c["name"] == "shapes")
        assert shapes["passed"] and "through Triton" in shapes["detail"], shapes   # sizes are run-time values


@pytest.mark.parametrize("stem", sorted(FUSED))
def test_default_candidate_fuses_the_mask(stem, judged):
    proposal = judged[stem][0][0]
    assert proposal.description.startswith(f"{FUSED[stem]} Triton kernel(s)"), proposal.description


@pytest.mark.parametrize("stem", sorted(FUSED))
def test_kernels_hold_no_size(stem, judged):
    """Sizes are run-time arguments: the only integers a kernel holds are 0 and 1 (a tril's diagonal here)."""
    for proposal, _ in judged[stem]:
        for fn in ast.walk(ast.parse(proposal.source)):
            if isinstance(fn, ast.FunctionDef) and any(ast.unparse(d) == "triton.jit" for d in fn.decorator_list):
                ints = {c.value for c in ast.walk(fn) if isinstance(c, ast.Constant) and type(c.value) is int}
                assert ints <= {0, 1}, f"{fn.name}: {ints}\n{proposal.source}"


def _triton_forward(source: str) -> str:
    cls = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "ModelNew")
    return ast.unparse(next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "_triton_forward"))


@pytest.mark.parametrize("stem, predicate", [("causal_tril_inline", "i3 - i2 <= 0"),
                                             ("additive_triu_mask", "i2 - i1 >= 1")])
def test_causal_mask_made_from_sizes_is_index_arithmetic(stem, predicate, judged):
    """The mask is never a tensor: the kernel compares the element's column with its row, and the forward is
    that one kernel (not even the mask's size and device are computed)."""
    source = judged[stem][0][0].source
    forward = _triton_forward(source)
    assert not any(made in forward for made in ("torch.ones(", "torch.full(", "tril(", "triu(")), forward
    assert len(forward.splitlines()) == 3, forward          # def, the kernel's call, return
    assert predicate in source


def test_mask_buffer_is_read_through_its_slice(judged):
    """The kernel reads the live buffer (a view of its slice, through strides), not a copy made at capture."""
    forward = _triton_forward(judged["causal_buffer"][0][0].source)
    assert "self.bias" in forward and "_tensor_constant" not in forward, forward


def test_capture_records_sizes_buffers_and_finfo_as_graph_nodes():
    before = {name: getattr(torch, name) for name in RECORDED_FUNCTIONS}

    def targets(stem: str) -> set:
        graph = capture(task_of(stem)).graph_module.graph
        return {(n.op, n.target if n.op != "get_attr" else "attr") for n in graph.nodes}
    assert ("call_function", torch.ones) in targets("causal_tril_inline")
    assert ("call_function", torch.full) in targets("additive_triu_mask")
    assert ("call_function", torch.finfo) in targets("padding_mask_finfo")
    assert ("get_attr", "attr") in targets("causal_buffer")
    assert {name: getattr(torch, name) for name in RECORDED_FUNCTIONS} == before   # torch is left as it was
