# expect: verdict=invalid stage=guard check=guard reason~"ModelNew subclasses the reference class 'Model'"
"""Hack: a copy of the reference class, and ModelNew inherits its forward (overriding nothing useful)."""
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


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * 2 + 1)


class ModelNew(Model):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        affine_relu_kernel[(1,)](x, torch.empty_like(x), 0, BLOCK=1024)
        return super().forward(x)
