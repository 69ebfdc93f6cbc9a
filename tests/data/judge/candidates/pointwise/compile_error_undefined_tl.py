# expect: verdict=invalid stage=guard check=guard reason~"triton.language.fast_relu"
"""Broken kernel: calls a tl function that does not exist.

The guard's allowlist of triton.language names refuses it before it runs (on a GPU it would fail in Triton's
compiler, in the interpreter at launch), with a message naming the function.
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
    tl.store(out_ptr + offs, tl.fast_relu(x * 2.0 + 1.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        affine_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
