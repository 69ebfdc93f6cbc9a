"""Honest: the reference's draw from numpy's global generator, then the scaled relu in one Triton kernel."""
import numpy

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scaled_relu_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x * scale, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = 1.0 + numpy.random.random()
        if x.dtype != torch.float32 or torch.is_grad_enabled() and x.requires_grad or _has_tangent(x):
            return torch.relu(x * scale)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        if n:
            scaled_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, scale, BLOCK=1024)
        return out
