"""Liger-Kernel beside eager PyTorch and torch.compile on the realistic suite's modules it covers (forward only).

    python benchmarks/liger_anchor_gpu.py --out results.json [--rounds 2]

For each module below, the reference from ``benchmarks/realistic`` is built at its declared sizes on the GPU, and
three forwards are timed under ``torch.no_grad()`` with ``triton.testing.do_bench`` (median, L2 cleared between
calls): eager, ``torch.compile`` (default mode, compiled before timing) and the same function through Liger-Kernel's
own functional API, called the way a user would call it on the module's tensors. Liger's output is compared with
eager's first (relative L2 error), so only the same function is timed. Each round times all three again, in turn,
so the spread between rounds is the noise. Liger-Kernel is carried as a wheel; without it the script says so and
exits 2.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import statistics
import sys
from pathlib import Path
from typing import Any, Callable

import torch

SUITE = Path(__file__).resolve().parent / "realistic"


def _rms_norm(liger: Any) -> Callable[..., Any]:
    return lambda model, x: liger.liger_rms_norm(x, model.weight, model.variance_epsilon, casting_mode="llama",
                                                 in_place=False)


def _swiglu(liger: Any) -> Callable[..., Any]:
    return lambda model, gate_up: liger.liger_swiglu(*gate_up.chunk(2, dim=-1))


def _mlp(liger: Any) -> Callable[..., Any]:
    return lambda model, x: model.down_proj(liger.liger_swiglu(model.gate_proj(x), model.up_proj(x)))


def _cross_entropy(liger: Any) -> Callable[..., Any]:
    def call(model: Any, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        criterion = model.criterion
        return liger.liger_cross_entropy(logits, target, ignore_index=criterion.ignore_index,
                                         label_smoothing=criterion.label_smoothing)
    return call


def _causal_lm_loss(liger: Any) -> Callable[..., Any]:
    def call(model: Any, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        vocab = logits.shape[-1]
        return liger.liger_cross_entropy(logits[..., :-1, :].reshape(-1, vocab), labels[..., 1:].reshape(-1),
                                         ignore_index=model.ignore_index, label_smoothing=model.label_smoothing)
    return call


MODULES: dict[str, Callable[[Any], Callable[..., Any]]] = {
    "llama_rmsnorm_bf16": _rms_norm,
    "hf_llama_rmsnorm_bf16": _rms_norm,
    "swiglu_chunk_bf16": _swiglu,
    "llama_mlp_bf16": _mlp,
    "hf_llama_mlp_bf16": _mlp,
    "cross_entropy_module_fp32": _cross_entropy,
    "causal_lm_cross_entropy_bf16": _causal_lm_loss,
}


def load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"realistic_{name}", SUITE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    out, ref = out.double(), ref.double()
    return float((out - ref).norm() / ref.norm().clamp_min(1e-30))


def bench_module(name: str, liger: Any, rounds: int) -> dict[str, Any]:
    from triton.testing import do_bench
    try:
        source = load(name)
    except ImportError as e:
        return {"module": name, "skipped": f"cannot import: {e}"}
    torch.manual_seed(0)
    model = source.Model(*source.get_init_inputs()).cuda().eval()
    inputs = [x.cuda() for x in source.get_inputs()]
    compiled = torch.compile(model)
    through_liger = MODULES[name](liger)
    calls = {"eager": lambda: model(*inputs), "compile": lambda: compiled(*inputs),
             "liger": lambda: through_liger(model, *inputs)}
    with torch.no_grad():
        expected = calls["eager"]()
        errors = {who: relative_error(calls[who](), expected) for who in ("compile", "liger")}
        times: dict[str, list[float]] = {who: [] for who in calls}
        for _ in range(rounds):
            for who, call in calls.items():
                times[who].append(do_bench(call, warmup=25, rep=200, return_mode="median"))
    entry: dict[str, Any] = {"module": name, "relative_error": errors,
                             "ms": {who: [round(t, 5) for t in ts] for who, ts in times.items()}}
    median = {who: statistics.median(ts) for who, ts in times.items()}
    entry["liger_vs_eager"] = round(median["eager"] / median["liger"], 3)
    entry["liger_vs_compile"] = round(median["compile"] / median["liger"], 3)
    return entry


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modules", nargs="*", default=list(MODULES))
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("liger_anchor_gpu: needs a CUDA GPU", file=sys.stderr)
        return 2
    try:
        import liger_kernel.transformers.functional as liger
    except ImportError as e:
        print(f"liger_anchor_gpu: Liger-Kernel is not installed ({e}); carry its wheel", file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    results: dict[str, Any] = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
                               "liger_kernel": importlib.metadata.version("liger-kernel"), "modules": []}
    out = Path(args.out)
    for name in args.modules:
        try:
            entry = bench_module(name, liger, args.rounds)
        except Exception as e:  # one module's failure is recorded, the others still run
            entry = {"module": name, "error": f"{type(e).__name__}: {e}"}
        results["modules"].append(entry)
        out.write_text(json.dumps(results, indent=1))
        print(json.dumps(entry), flush=True)
    print(f"{'module':32} {'eager ms':>18} {'compile ms':>18} {'liger ms':>18} {'liger/compile':>13}")
    for e in results["modules"]:
        if "ms" in e:
            ms = {k: "/".join(f"{t:.4f}" for t in v) for k, v in e["ms"].items()}
            print(f"{e['module']:32} {ms['eager']:>18} {ms['compile']:>18} {ms['liger']:>18} "
                  f"{e['liger_vs_compile']:>13}")
        else:
            print(f"{e['module']:32} {e.get('skipped') or e.get('error')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
