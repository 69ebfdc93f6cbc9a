"""Training steps through the built-in proposer's backward kernels, beside eager PyTorch and torch.compile.

    python benchmarks/backward_gpu.py --out results.json [--rounds 2] [NAME ...]

For each module of ``benchmarks/realistic`` named below (pointwise ones: their plans get backward kernels), the
default plan's candidate is generated for CUDA and built with the reference's weights, in train mode. First
checked: a forward + backward takes the Triton path, launches Triton kernels in the backward, and its output
and input and parameter gradients are within bf16/fp16 rounding of the reference's (relative L2 error against
a float64 evaluation of the reference, both reported). Then one training step (forward, then backward of a
fixed random grad_output; gradients set to None between steps) is timed with ``triton.testing.do_bench``
(median; each step alone, the L2 cleared before it): eager, ``torch.compile`` (default mode, compiled with its
backward before timing) and the candidate, in turn, ``--rounds`` times, so the spread between rounds is the
noise; then LOOP_STEPS steps back to back between two events, as a training loop runs them (the host's
launches overlap the GPU's work: where a step's host time exceeds its GPU time, this is the host's pace). Results go to ``--out`` and a table to
stdout.
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adaexplore_core.judge.correctness import LaunchCounter            # noqa: E402
from adaexplore_core.proposers.base import ProposalRequest             # noqa: E402
from adaexplore_core.proposers.builtin import codegen                  # noqa: E402
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer  # noqa: E402
from adaexplore_core.task import TaskSpec, import_file, load_task       # noqa: E402

SUITE = ROOT / "benchmarks" / "realistic"
LOOP_STEPS = 50            # steps timed back to back (the host's launches overlap the GPU's work)
MODULES = ("swiglu_chunk_bf16", "geglu_bf16", "gelu_tanh_fp16", "hard_swish_explicit_fp16", "logit_softcap_bf16",
           "llama_mlp_bf16", "gpt2_gelu_tanh_mlp_fp16")


def _tensors(value: Any) -> list[torch.Tensor]:
    values = value if isinstance(value, (list, tuple)) else [value]
    return [v for v in values if isinstance(v, torch.Tensor)]


def _rel(got: torch.Tensor, want: torch.Tensor) -> float:
    want = want.double()
    return float((got.double() - want).norm() / want.norm().clamp_min(1e-30))


def _step(model: Any, inputs: list[Any], grads: list[torch.Tensor]) -> None:
    outs = [o for o in _tensors(model(*inputs)) if o.requires_grad]
    torch.autograd.backward(outs, grads)


def _leaves(inputs: list[Any]) -> list[Any]:
    return [x.detach().clone().requires_grad_() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
            for x in inputs]


def _grads_of(model: Any, inputs: list[Any]) -> list[torch.Tensor]:
    return [x.grad for x in inputs if isinstance(x, torch.Tensor) and x.grad is not None] + \
        [p.grad for p in model.parameters() if p.grad is not None]


def measure(name: str, rounds: int, counter: LaunchCounter, folder: Path, device: str = "cuda",
            suite: Path = SUITE) -> dict[str, Any]:
    spec = TaskSpec.parse(str(suite / f"{name}.py"))
    task = load_task(spec)
    captured, plan = BuiltinProposer(device_type=device).plans(ProposalRequest(task=spec))[0]
    source = codegen.generate(captured, plan, device_type=device)
    file = folder / f"{name}_candidate.py"
    file.write_text(source)
    module = import_file(str(file), prefix="backward_bench")
    row: dict[str, Any] = {"module": name, "autograd": module.ModelNew.ENVELOPE["autograd"],
                           "kernels": [k.name for k in plan.kernels]}
    reference = task.build(task.model_class, 0, device).train()
    candidate = task.build(module.ModelNew, 0, device).train()
    candidate.load_state_dict(reference.state_dict())
    inputs = task.make_inputs(1, device)
    ref_in, cand_in = _leaves(inputs), _leaves(inputs)
    outs = [o for o in _tensors(reference(*ref_in)) if o.requires_grad]
    grads = [torch.randn_like(o) for o in outs]
    torch.autograd.backward(outs, grads)
    exact = copy.deepcopy(reference).double()
    exact_in = [x.detach().double().requires_grad_() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                for x in inputs]
    exact_outs = [o for o in _tensors(exact(*exact_in)) if o.requires_grad]
    torch.autograd.backward(exact_outs, [g.double() for g in grads])
    triton_calls = []
    original = candidate._triton_forward
    candidate._triton_forward = lambda *a: triton_calls.append(1) or original(*a)
    with counter.counting() as launches:
        cand_outs = [o for o in _tensors(candidate(*cand_in)) if o.requires_grad]
        forward_launches = counter.count
        torch.autograd.backward(cand_outs, grads)
        if device == "cuda":
            torch.cuda.synchronize()
        backward_launches = counter.count - forward_launches
    candidate._triton_forward = original
    row["triton_path"] = bool(triton_calls)
    row["backward_launches"] = backward_launches
    row["launches"] = launches[0]
    want, got, ref_grads = _grads_of(exact, exact_in), _grads_of(candidate, cand_in), _grads_of(reference, ref_in)
    row["rel_err_output"] = [_rel(c, e) for c, e in zip(cand_outs, exact_outs)]
    row["rel_err_output_eager"] = [_rel(r, e) for r, e in zip(outs, exact_outs)]
    row["rel_err_grads"] = [_rel(c, e) for c, e in zip(got, want)]
    row["rel_err_grads_eager"] = [_rel(r, e) for r, e in zip(ref_grads, want)]
    row["grads_compared"] = len(want) if len(got) == len(want) else f"{len(got)} vs {len(want)}"
    if device != "cuda":                       # a check of the script in the interpreter: no timing
        return row
    from triton.testing import do_bench
    compiled = torch.compile(reference)
    runs = {"eager": reference, "compile": compiled, "candidate": candidate}
    timed_in = {k: _leaves(inputs) for k in runs}
    for key, model in runs.items():                   # warm up: compile (forward and backward), autotune
        for _ in range(3):
            _step(model, timed_in[key], grads)
    torch.cuda.synchronize()
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(rounds):
        for key, model in runs.items():
            leaves = [x for x in timed_in[key] if isinstance(x, torch.Tensor) and x.requires_grad] + \
                list(model.parameters())
            times[key].append(do_bench(lambda: _step(model, timed_in[key], grads), grad_to_none=leaves,
                                       return_mode="median"))
    row["ms"] = times
    loop: dict[str, list[float]] = {k: [] for k in runs}     # steps back to back, as a training loop runs them
    for _ in range(rounds):
        for key, model in runs.items():
            leaves = [x for x in timed_in[key] if isinstance(x, torch.Tensor) and x.requires_grad] + \
                list(model.parameters())
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            for _ in range(LOOP_STEPS):
                for leaf in leaves:
                    leaf.grad = None
                _step(model, timed_in[key], grads)
            end.record()
            torch.cuda.synchronize()
            loop[key].append(start.elapsed_time(end) / LOOP_STEPS)
    row["loop_ms"] = loop
    row["loop_speedup_vs_compile"] = [e / c for e, c in zip(loop["compile"], loop["candidate"])]
    row["speedup_vs_eager"] = [e / c for e, c in zip(times["eager"], times["candidate"])]
    row["speedup_vs_compile"] = [e / c for e, c in zip(times["compile"], times["candidate"])]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", default=list(MODULES))
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--device", default="cuda", help="cpu: the checks only (TRITON_INTERPRET=1, small copies)")
    parser.add_argument("--suite", default=str(SUITE), help="the folder of the modules (default: the realistic suite)")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("backward_gpu: needs a CUDA GPU", file=sys.stderr)
        return 2
    counter = LaunchCounter()
    counter.install()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.names:
            try:
                rows.append(measure(name, args.rounds, counter, Path(tmp), args.device, Path(args.suite)))
            except Exception as e:  # noqa: BLE001 - one module's failure is a row, not the end of the run
                rows.append({"module": name, "error": f"{type(e).__name__}: {e}"[:500]})
            print(json.dumps(rows[-1])[:400], flush=True)
    env = {"gpu": torch.cuda.get_device_name() if args.device == "cuda" else "-", "torch": torch.__version__}
    try:
        import triton
        env["triton"] = triton.__version__
    except ImportError:
        pass
    Path(args.out).write_text(json.dumps({"env": env, "rows": rows}, indent=1))
    print(f"{'module':26} {'eager':>12} {'compile':>12} {'candidate':>12} {'x compile':>10} | loop: "
          f"{'eager':>12} {'compile':>12} {'candidate':>12} {'x compile':>10}")
    for r in rows:
        if "error" in r or "ms" not in r:
            print(f"{r['module']:28} " + (f"ERROR {r['error'][:80]}" if "error" in r else
                                          f"checked: backward launches {r['backward_launches']}, gradient errors "
                                          f"{[round(e, 5) for e in r['rel_err_grads']]}"))
            continue
        ms = r["ms"]
        fmt = lambda v: "/".join(f"{x:.3f}" for x in v)              # noqa: E731
        lp = r["loop_ms"]
        print(f"{r['module']:26} {fmt(ms['eager']):>12} {fmt(ms['compile']):>12} {fmt(ms['candidate']):>12} "
              f"{fmt(r['speedup_vs_compile']):>10} | loop: {fmt(lp['eager']):>12} {fmt(lp['compile']):>12} "
              f"{fmt(lp['candidate']):>12} {fmt(r['loop_speedup_vs_compile']):>10}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
