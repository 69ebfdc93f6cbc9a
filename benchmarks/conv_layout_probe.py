"""How much faster is cuDNN on channels-last tensors (TF32 off)? For each KernelBench problem with a
convolution, time the first convolution layer alone in the default layout and in channels-last (input
converted on every call, weight converted once; with and without converting the output back), and the
whole model in eager (eval mode). Medians of triton.testing.do_bench, in ms.

    python benchmarks/conv_layout_probe.py .kb/level2 [--out probe.json]
"""
from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import sys
from pathlib import Path

import torch
import torch.nn as nn
from triton.testing import do_bench

CONVS = (nn.Conv2d, nn.Conv3d, nn.ConvTranspose2d, nn.ConvTranspose3d)


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def median_ms(fn) -> float:
    return do_bench(fn, warmup=50, rep=200, return_mode="median")


def probe(path: Path) -> dict | None:
    problem = load(path)
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = problem.Model(*problem.get_init_inputs()).eval()
        inputs = problem.get_inputs()
    conv = next((m for m in model.modules() if isinstance(m, CONVS)), None)
    if conv is None:
        return None
    x = inputs[0]
    fmt = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
    conv_cl = copy.deepcopy(conv).to(memory_format=fmt)
    with torch.no_grad():
        ref = conv(x)
        got = conv_cl(x.contiguous(memory_format=fmt))
        err = ((got - ref).norm() / ref.norm()).item()
        row = {"problem": path.stem, "conv": type(conv).__name__, "input": list(x.shape),
               "output": list(ref.shape), "rel_err": err,
               "conv_ms": median_ms(lambda: conv(x)),
               "conv_cl_ms": median_ms(lambda: conv_cl(x.contiguous(memory_format=fmt))),
               "conv_cl_back_ms": median_ms(lambda: conv_cl(x.contiguous(memory_format=fmt)).contiguous()),
               "model_ms": median_ms(lambda: model(*inputs))}
    return row


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--out")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    for path in sorted(Path(args.folder).glob("*.py"), key=lambda p: int(p.name.split("_")[0])):
        if "Conv" not in path.name:
            continue
        try:
            row = probe(path)
        except Exception as e:  # noqa: BLE001 - one problem's failure is reported, the rest still run
            row = {"problem": path.stem, "error": f"{type(e).__name__}: {e}"[:300]}
        if row:
            rows.append(row)
            if "error" in row:
                print(row, flush=True)
            else:
                print(f"{row['problem'][:44]:44} conv {row['conv_ms']:7.3f}  cl {row['conv_cl_ms']:7.3f}  "
                      f"cl+back {row['conv_cl_back_ms']:7.3f}  model {row['model_ms']:7.3f}  err {row['rel_err']:.1e}", flush=True)
        torch.cuda.empty_cache()
    if args.out:
        Path(args.out).write_text(json.dumps({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(),
                                              "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
