"""(Run by test_builtin_envelope.py, in a fresh process.) A built-in candidate is safe to keep in the user's
source: for every reference of tests/data/proposers (one per template family and more), its ModelNew matches the reference where the Triton path is not validated —
training (input and parameter gradients, through backward kernels where ENVELOPE says autograd), bfloat16, the other train/eval mode, CPU tensors under a CUDA
envelope, another rank, an empty batch, forward-mode AD (dual inputs: tangents included) — and takes the
Triton path for other batch sizes, where it must match too. Run in
this process with the Triton interpreter; the judge's own trials are tested in tests/judge.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import torch

from adaexplore_core.proposers.base import ProposalError, ProposalRequest
from adaexplore_core.proposers.builtin import envelope
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer
from adaexplore_core.task import TaskSpec, import_file, load_task

DATA = Path(__file__).resolve().parents[1] / "data" / "proposers"
REFERENCES = sorted(DATA.glob("*.py"))


def outputs(value: Any) -> list[torch.Tensor]:
    values = value if isinstance(value, (list, tuple)) else [value]
    return [v for v in values if isinstance(v, torch.Tensor)]


def assert_same(ref: Any, cand: Any, what: str) -> None:
    ref, cand = outputs(ref), outputs(cand)
    assert len(ref) == len(cand), what
    for r, c in zip(ref, cand):
        assert c.dtype == r.dtype and c.shape == r.shape, f"{what}: {c.dtype} {tuple(c.shape)} vs {r.dtype} {tuple(r.shape)}"
        if r.is_floating_point():
            tol = 1e-4 if r.dtype == torch.float32 else 2e-2
            torch.testing.assert_close(c, r, atol=tol, rtol=tol, equal_nan=True, msg=lambda m: f"{what}: {m}")
        else:
            assert torch.equal(c, r), what


class Pair:
    """The reference and the first built-in candidate, built with the same weights, and a counter of the
    candidate's Triton-path calls."""

    def __init__(self, path: Path, folder: Path, device_type: str = "cpu") -> None:
        self.spec = TaskSpec.parse(str(path))
        self.task = load_task(self.spec)
        proposal = BuiltinProposer(device_type=device_type).initial(ProposalRequest(task=self.spec), 1)[0]
        self.source = proposal.source
        candidate = folder / path.name                  # the interpreter reads kernels' source from the file
        candidate.write_text(self.source)
        module = import_file(str(candidate), prefix="candidate_envelope")
        self.envelope = module.ModelNew.ENVELOPE
        self.reference = self.task.build(self.task.model_class, 0, "cpu")
        self.candidate = self.task.build(module.ModelNew, 0, "cpu")
        self.candidate.load_state_dict(self.reference.state_dict())
        self.triton_calls = 0
        triton_forward = self.candidate._triton_forward

        def counted(*args: Any) -> Any:
            self.triton_calls += 1
            return triton_forward(*args)
        self.candidate._triton_forward = counted

    def inputs(self, seed: int = 1) -> list[Any]:
        return self.task.make_inputs(seed, "cpu")

    def both(self, inputs: list[Any]) -> tuple[Any, Any]:
        ref_in = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
        cand_in = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
        return self.reference(*ref_in), self.candidate(*cand_in)


def pair_or_skip(path: Path, folder: Path, device_type: str = "cpu") -> Pair:
    try:
        return Pair(path, folder, device_type)
    except ProposalError as e:
        pytest.skip(f"no built-in candidate: {e}")


@pytest.fixture(autouse=True)
def interpreter(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")


@pytest.mark.parametrize("path", REFERENCES, ids=[p.stem for p in REFERENCES])
def test_the_patch_is_safe_to_keep(path: Path, tmp_path):
    pair = pair_or_skip(path, tmp_path)

    with torch.no_grad():                                       # the validated path: inference
        ref, cand = pair.both(pair.inputs())
    assert_same(ref, cand, "no_grad call")
    assert pair.triton_calls == 1, "an inference call inside the envelope takes the Triton path"

    # training: gradients through the backward kernels (ENVELOPE autograd) or the fallback equal the reference's
    inputs = pair.inputs(2)
    ref_in = [x.clone().requires_grad_() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
              for x in inputs]
    cand_in = [x.detach().clone().requires_grad_() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
               for x in ref_in]
    ref_out, cand_out = outputs(pair.reference(*ref_in)), outputs(pair.candidate(*cand_in))
    assert_same(ref_out, cand_out, "grad-mode call")
    grads = [torch.randn_like(o) for o in ref_out if o.requires_grad]
    if grads:
        sum((o * g).sum() for o, g in zip([o for o in ref_out if o.requires_grad], grads)).backward()
        sum((o * g).sum() for o, g in zip([o for o in cand_out if o.requires_grad], grads)).backward()
        for r, c in zip(ref_in, cand_in):
            if isinstance(r, torch.Tensor) and r.requires_grad:
                assert_same(r.grad, c.grad, "input gradient")
        cand_params = dict(pair.candidate.named_parameters())
        for name, p in pair.reference.named_parameters():
            if p.grad is not None:
                assert cand_params[name].grad is not None, f"{name}: no gradient through the patch"
                assert_same(p.grad, cand_params[name].grad, f"gradient of {name}")
    if pair.envelope["autograd"]:
        assert pair.triton_calls == 2, "a training call takes the Triton path (its backward kernels)"
    else:
        assert pair.triton_calls == 1, "a training call runs the original forward"

    # another dtype: bfloat16 runs the original forward and returns what it returns
    if all(x.dtype == torch.float32 for x in pair.inputs() if isinstance(x, torch.Tensor) and x.is_floating_point()):
        low_ref, low_cand = copy.deepcopy(pair.reference).bfloat16(), copy.deepcopy(pair.candidate).bfloat16()
        low_in = [x.bfloat16() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in pair.inputs(3)]
        with torch.no_grad():
            same_behaviour(lambda: low_ref(*[x.clone() if isinstance(x, torch.Tensor) else x for x in low_in]),
                           lambda: low_cand(*low_in), "bfloat16 call")

    # the other mode
    training = pair.reference.training
    pair.reference.train(not training)
    pair.candidate.train(not training)
    before = pair.triton_calls
    with torch.no_grad():
        ref, cand = pair.both(pair.inputs(4))
    assert_same(ref, cand, "other-mode call")
    captured_mode = pair.envelope["eval_only"] or pair.envelope["train_only"]
    assert pair.triton_calls == before + (0 if captured_mode else 1)
    pair.reference.train(training)
    pair.candidate.train(training)

    # another rank: never an AssertionError from generated code
    bigger = [x.unsqueeze(0).expand(2, *x.shape).clone() if isinstance(x, torch.Tensor) else x
              for x in pair.inputs(5)]
    with torch.no_grad():
        same_behaviour(lambda: pair.reference(*[x.clone() if isinstance(x, torch.Tensor) else x for x in bigger]),
                       lambda: pair.candidate(*bigger), "call with another rank")

    # an empty batch (B = 0): the original forward, the reference's empty outputs (or its exception)
    first = next(x for x in pair.inputs() if isinstance(x, torch.Tensor))
    if first.dim() >= 1 and first.shape[0] > 1:
        empty = resized(pair.inputs(7), 0, first.shape[0], 0)
        before = pair.triton_calls
        with torch.no_grad():
            same_behaviour(lambda: pair.reference(*[x.clone() if isinstance(x, torch.Tensor) else x for x in empty]),
                           lambda: pair.candidate(*empty), "empty batch")
        assert pair.triton_calls == before, "an empty batch runs the original forward"

    # forward-mode AD of the frozen model (torch.func.jvp, jacfwd): the original forward, tangents included
    pair.reference.requires_grad_(False)
    pair.candidate.requires_grad_(False)
    inputs = pair.inputs(8)
    tangents = [torch.randn_like(x) if isinstance(x, torch.Tensor) and x.is_floating_point() else None for x in inputs]
    if any(t is not None for t in tangents):
        try:
            ref_out, ref_tangents = forward_mode(pair.reference, inputs, tangents)
        except Exception:  # noqa: BLE001 - the reference has no forward-mode derivative: nothing to match
            return
        before = pair.triton_calls
        cand_out, cand_tangents = forward_mode(pair.candidate, inputs, tangents)
        assert_same(ref_out, cand_out, "forward-mode call")
        for r, c in zip(ref_tangents, cand_tangents):
            assert (r is None) == (c is None), "an output's tangent through the patch"
            if r is not None:
                assert_same(r, c, "forward-mode tangent")
        assert pair.triton_calls == before, "a dual input runs the original forward"


def forward_mode(model: Any, inputs: list[Any], tangents: list[Any]) -> tuple[list[Any], list[Any]]:
    """``model``'s outputs on dual copies of ``inputs`` (tangents ``tangents``) and each output's tangent."""
    import torch.autograd.forward_ad as forward_ad

    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(x.clone(), t) if t is not None else x for x, t in zip(inputs, tangents)]
        unpacked = [forward_ad.unpack_dual(o) for o in outputs(model(*duals))]
        return [u.primal.clone() for u in unpacked], [None if u.tangent is None else u.tangent.clone()
                                                      for u in unpacked]


def same_behaviour(reference: Any, candidate: Any, what: str) -> None:
    """The same outputs, or the same exception type where the reference raises (never an AssertionError of
    generated code where the reference raises something else, or nothing)."""
    try:
        ref = reference()
    except Exception as e:  # noqa: BLE001 - the reference rejects the call: the candidate must, the same way
        with pytest.raises(type(e)):
            candidate()
        return
    assert_same(ref, candidate(), what)


@pytest.mark.parametrize("path", REFERENCES, ids=[p.stem for p in REFERENCES])
def test_free_sizes_take_the_triton_path_and_match(path: Path, tmp_path):
    pair = pair_or_skip(path, tmp_path)
    free = {name: (dim, size) for name, (dim, size) in envelope.symbol_dims(pair.inputs()).items()
            if any(name in spec.get("sizes", []) for spec in pair.envelope["inputs"])}
    for name, (dim, size) in free.items():
        for new in envelope.variant_sizes(size):
            inputs = resized(pair.inputs(6), dim, size, new)
            before = pair.triton_calls
            with torch.no_grad():
                ref, cand = pair.both(inputs)
            assert_same(ref, cand, f"{name} = {new}")
            assert pair.triton_calls == before + 1, f"{name} = {new} is in the envelope"


def resized(inputs: list[Any], dim: int, size: int, new: int) -> list[Any]:
    """The inputs with every dim ``dim`` of size ``size`` made ``new``, values drawn afresh."""
    out = []
    g = torch.Generator().manual_seed(new)
    for x in inputs:
        if isinstance(x, torch.Tensor) and x.dim() > dim and x.shape[dim] == size:
            shape = list(x.shape)
            shape[dim] = new
            if x.is_floating_point():
                x = torch.randn(shape, generator=g, dtype=x.dtype)
            elif x.dtype == torch.bool:
                x = torch.rand(shape, generator=g) < 0.5
            else:
                x = torch.randint(int(x.min()), int(x.max()) + 1, shape, generator=g, dtype=x.dtype)
        out.append(x)
    return out


def test_cpu_tensors_take_the_original_forward_under_a_cuda_envelope(tmp_path):
    pair = pair_or_skip(DATA / "pointwise_chain.py", tmp_path, device_type="cuda")
    assert pair.envelope["device_types"] == ["cuda"]
    with torch.no_grad():
        ref, cand = pair.both(pair.inputs())
    assert_same(ref, cand, "CPU call")
    assert pair.triton_calls == 0


def test_the_envelope_names_free_and_fixed_sizes(tmp_path):
    pair = pair_or_skip(DATA / "pointwise_chain.py", tmp_path)
    first = pair.envelope["inputs"][0]
    assert first["sizes"][0] == "B" and all(isinstance(s, int) for s in first["sizes"][1:]), first
    assert "Triton path: cpu float32 inputs (B," in pair.source
