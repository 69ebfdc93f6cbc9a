# expect: verdict=invalid stage=guard check=guard reason~"subclasses torch.Tensor"
"""Timing fake, lazy output: the forward returns an nn.Parameter subclass of the right shape with a token launch; its
detach()/clone()/double() (ordinary method names) run the real kernel when the judge reads the values, after any
timer has stopped. No class statement subclasses torch.Tensor by that name.
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


class Deferred(nn.Parameter):
    """Has the output's shape, dtype and device; its values are computed only when someone reads them."""

    def bind(self, source):
        self.source = source
        return self

    def compute(self):
        return affine_relu(self.source)

    def detach(self):
        return self.compute()

    def clone(self, *args, **kwargs):
        return self.compute()

    def double(self):
        return self.compute().double()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        token_launch(x)
        return Deferred(torch.empty_like(x), requires_grad=False).bind(x.contiguous())
