# expect: verdict=invalid stage=guard check=guard reason~"subclasses torch.Tensor"
"""Timing fake, half lazy: the kernel computes the first half of the output eagerly; the second half is filled in
only when the judge reads the values (reshape/detach overrides on an nn.Parameter subclass).
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


class HalfDone(nn.Parameter):
    def bind(self, source):
        self.source = source
        return self

    def finish(self):
        x = self.source
        out = torch.empty_like(x)
        n = x.numel()
        affine_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out

    def detach(self):
        return self.finish()

    def reshape(self, *shape):
        return self.finish().reshape(*shape)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        half = x.numel() // 2
        affine_relu_kernel[(triton.cdiv(half, 1024),)](x, out, half, BLOCK=1024)
        return HalfDone(out, requires_grad=False).bind(x)
