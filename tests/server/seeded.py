"""Results written straight into a result cache, as a finished search would leave them, so that tests of how
results are presented need not run a search first. The key is computed the way the server documents it
(class text, example inputs, interpreter | torch | triton | device | proposer)."""
from __future__ import annotations

import importlib.metadata
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from adaexplore_server import analysis
from adaexplore_server.cache import ResultCache, content_key

MODULE = textwrap.dedent('''\
    import torch
    import torch.nn as nn

    batch_size, features = 4, 64


    class Scale(nn.Module):
        """x * 2 + 1, then GELU."""

        def __init__(self, features: int):
            super().__init__()
            self.features = features

        def forward(self, x):
            return torch.nn.functional.gelu(x * 2.0 + 1.0)


    def get_inputs():
        return [torch.randn(batch_size, features)]


    def get_init_inputs():
        return [features]
''')

BEST_SOURCE = textwrap.dedent('''\
    import torch
    import torch.nn as nn
    import triton
    import triton.language as tl

    batch_size, features = 4, 64


    @triton.jit
    def affine_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n_elements
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x * 2.0 + 1.0, mask=mask)


    class ModelNew(nn.Module):
        def __init__(self, features: int):
            super().__init__()
            self.features = features

        def forward(self, x):
            out = torch.empty_like(x)
            n = x.numel()
            affine_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
            return torch.nn.functional.gelu(out)


    def get_inputs():
        return [torch.randn(batch_size, features)]


    def get_init_inputs():
        return [features]
''')

UNTIMED_BEST = {"timed": False, "speedup_vs_eager": None, "description": "one fused affine kernel",
                "checks": [{"name": "values", "passed": True}]}


def fingerprint(device: str = "cpu", proposer: str = "builtin") -> str:
    versions = []
    for name in ("torch", "triton"):
        try:
            versions.append(importlib.metadata.version(name))
        except importlib.metadata.PackageNotFoundError:
            versions.append("missing")
    return "|".join([sys.executable, *versions, device, proposer])


def seed(cache_dir: Path, uri: str, text: str, class_name: str, best: dict[str, Any] | None,
         device: str = "cpu", **extra: Any) -> dict[str, Any]:
    module = next(m for m in analysis.find_modules(text) if m.name == class_name)
    inputs = analysis.inputs_text(text, module)
    result = {"class": class_name, "digest": module.digest(), "uri": uri, "job": "job-seeded",
              "finished": time.time(), "steps": 12, "valid": 1 if best else 0, "best": best,
              "best_source": BEST_SOURCE if best else "", "device": device, "proposer": "builtin",
              "inputs": inputs, "fingerprint": fingerprint(device), **extra}
    cache = ResultCache(cache_dir)
    cache.put(content_key(module.source, inputs, fingerprint(device)), uri, class_name, result)
    cache.close()
    return result
