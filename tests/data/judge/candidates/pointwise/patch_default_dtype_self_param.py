# expect: verdict=invalid stage=guard check=guard reason~"module 'torch'"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch: the default dtype switched to float64 at import through a `self`-named parameter (self.set_default_dtype is
not a dotted torch name to the guard): get_inputs now makes float64 tensors and the reference computes in float64.
The kernel is dtype-generic, so it still matches.
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


def _configure(self):
    self.set_default_dtype(torch.float64)


_configure(torch)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return affine_relu(x)
