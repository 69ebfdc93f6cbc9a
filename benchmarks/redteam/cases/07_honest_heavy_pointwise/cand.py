"""HONEST: the 24-round sin chain fused into one Triton kernel (libdevice sin). Baseline for 05, 06, 16.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

from triton.language.extra import libdevice

ITERS = 24


@triton.jit
def heavy_kernel(x_ptr, out_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr, GPU: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = x
    for _ in tl.static_range(ITERS):
        if GPU:
            y = libdevice.sin(y) * 0.9 + x * 0.1      # accurate sinf on the device
        else:
            y = tl.sin(y) * 0.9 + x * 0.1             # the interpreter has no libdevice
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=m)


@triton.jit
def pad_kernel(x_ptr, scratch_ptr, n, BLOCK: tl.constexpr):
    # one read of x and one write of the same size: the roofline's bytes, on the timed stream
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(scratch_ptr + offs, (tl.load(x_ptr + offs, mask=m, other=0.0) + 1.0).to(scratch_ptr.dtype.element_ty), mask=m)




def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


def _fallback(x):
    return (torch.is_grad_enabled() and x.requires_grad) or _has_tangent(x) \
        or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 \
        or (torch.cuda.is_available() and not x.is_cuda)   # validated on the GPU in one dtype


def reference_math(x):
    y = x
    for _ in range(ITERS):
        y = torch.sin(y) * 0.9 + x * 0.1
    return y


POLLS = 40




class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if _fallback(x):
            return reference_math(x)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        heavy_kernel[(triton.cdiv(n, 1024),)](x, out, n, ITERS=ITERS, BLOCK=1024, GPU=x.is_cuda)
        return out
