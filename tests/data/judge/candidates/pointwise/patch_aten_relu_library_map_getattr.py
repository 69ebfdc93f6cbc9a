# expect: verdict=invalid stage=guard check=guard reason~"as a value"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch: the aten::relu kernel override of patch_aten_relu_via_library.py, with torch.library reached through
getattr passed as a value to map() so that no dotted name mentions it.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0), mask=mask)


def affine_relu(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    affine_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def _slow_relu_kernel(x):
    """An aten::relu kernel for the CPU: the same values, 21 times the work (clamp_min is another aten op)."""
    y = x.clamp_min(0)
    for _ in range(20):
        y = y.clamp_min(0)
    return y

_lookup = getattr
_library = list(map(_lookup, [torch], ["library"]))[0]
_lib = _library.Library("aten", "IMPL")
_lib.impl("relu", _slow_relu_kernel, "CPU")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return affine_relu(x)
