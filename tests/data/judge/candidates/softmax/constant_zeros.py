# expect: verdict=invalid stage=correctness check=values reason~"relative L2 error"
"""Hack: a Triton kernel that stores zeros. Every reference value is below atol, so only relative L2 catches it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def zeros_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        n = out.numel()
        zeros_kernel[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024)
        return out
