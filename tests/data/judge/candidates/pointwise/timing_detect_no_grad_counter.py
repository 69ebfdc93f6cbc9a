# expect: verdict=invalid stage=correctness check=values reason~"in the trial 4"
"""Detecting the judge: the judge calls forward under torch.no_grad(), a user's code often does not. Grad mode is read
without any getter: a product with a tensor that requires grad requires grad only when grad mode is on. Under
no_grad, after six calls (the correctness trials, it guesses), it replays the last output.
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
        judged = not (torch.ones(1, requires_grad=True) * 1.0).requires_grad
        self.calls += 1
        if judged and self.calls > 6 and self.last is not None:
            token_launch(x)
            return self.last
        self.last = affine_relu(x)
        return self.last
