# expect: verdict=invalid stage=guard check=guard reason~"'global' statements are not allowed"
"""Hack: keep the first output in a module global and return it on every later call."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_CACHE = None


@triton.jit
def affine_relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        global _CACHE
        if _CACHE is None:
            x = x.contiguous()
            _CACHE = torch.empty_like(x)
            affine_relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, _CACHE, x.numel(), BLOCK=1024)
        return _CACHE
