# expect: verdict=invalid stage=guard check=guard reason~"torch.library"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch below the Python namespaces: torch.library registers a new CPU kernel for aten::relu. torch.relu is still the
same function object, no mode is active, and yet every relu in the process (the reference's) runs this kernel.
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

_lib = torch.library.Library("aten", "IMPL")
_lib.impl("relu", _slow_relu_kernel, "CPU")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return affine_relu(x)
