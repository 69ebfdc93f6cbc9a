# expect: verdict=invalid stage=correctness check=values reason~"in the trial 4"
"""Timing fake: honest for six calls (enough for a handful of correctness trials), then it replays the last output
with a token launch.
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
        self.last = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        if self.calls > 6 and self.last is not None:
            token_launch(x)
            return self.last
        self.last = affine_relu(x)
        return self.last
