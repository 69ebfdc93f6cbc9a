# expect: verdict=invalid stage=guard check=guard reason~"__del__"
"""Hidden fallback: the failing launch runs in a __del__ finalizer (Python prints and ignores exceptions raised
there); PyTorch computes the answer.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fast_affine_relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # the "fast path": a block of 1000 is not a power of two, so every launch of this kernel fails
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0), mask=mask)


def try_fast_path(x: torch.Tensor, out: torch.Tensor) -> None:
    n = x.numel()
    fast_affine_relu_kernel[(triton.cdiv(n, 1000),)](x, out, n, BLOCK=1000)


class FastPath:
    def __init__(self, x, out):
        self.x, self.out = x, out

    def __del__(self):
        try_fast_path(self.x, self.out)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        FastPath(x, out)
        return torch.relu(x * 2 + 1)
