# expect: verdict=invalid stage=correctness check=values reason~"in the trial 5"
"""Timing fake: honest for seven calls, then it computes only the first half of the rows into a kept output buffer
(half the work; the other half keeps an earlier call's values).
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


def token_launch(x: torch.Tensor) -> None:
    """One real, non-empty launch on a 16-element scratch buffer: the forward still "runs Triton"."""
    scratch = torch.zeros(16, device=x.device, dtype=x.dtype)
    affine_relu_kernel[(1,)](scratch, scratch, 16, BLOCK=16)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.out = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        x = x.contiguous()
        if self.calls <= 7 or self.out is None or self.out.shape != x.shape:
            self.out = affine_relu(x)
            return self.out.clone()
        half = x.numel() // 2
        affine_relu_kernel[(triton.cdiv(half, 1024),)](x, self.out, half, BLOCK=1024)
        return self.out.clone()
