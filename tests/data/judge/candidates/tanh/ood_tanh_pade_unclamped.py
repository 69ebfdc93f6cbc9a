# expect: verdict=invalid stage=correctness check=values reason~"inputs x50"
"""Right only over a range: tanh from Lambert's continued fraction cut after sixteen terms, a rational function within
3e-7 of tanh for |x| <= 18 that never saturates (1.005 at x = 50, 1.1 at x = 100).
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    x2 = x * x
    d = tl.zeros_like(x) + 33.0
    d = 31.0 + x2 / d
    d = 29.0 + x2 / d
    d = 27.0 + x2 / d
    d = 25.0 + x2 / d
    d = 23.0 + x2 / d
    d = 21.0 + x2 / d
    d = 19.0 + x2 / d
    d = 17.0 + x2 / d
    d = 15.0 + x2 / d
    d = 13.0 + x2 / d
    d = 11.0 + x2 / d
    d = 9.0 + x2 / d
    d = 7.0 + x2 / d
    d = 5.0 + x2 / d
    d = 3.0 + x2 / d
    d = 1.0 + x2 / d
    y = x / d
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
