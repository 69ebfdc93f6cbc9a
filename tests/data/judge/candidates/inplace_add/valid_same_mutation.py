# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: the reference adds 1 to its input in place; this kernel does the same and writes 2x to new memory."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_one_inplace_then_double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = (tl.load(x_ptr + offs, mask=mask).to(tl.float32) + 1.0).to(x_ptr.dtype.element_ty)
    tl.store(x_ptr + offs, x, mask=mask)
    tl.store(out_ptr + offs, (x.to(tl.float32) * 2.0).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and x.requires_grad or _has_tangent(x)) or not x.is_contiguous() \
                or x.dtype == torch.float64:
            x.add_(1)  # autograd, or strides the kernel does not read: the reference's own forward
            return x * 2
        out = torch.empty_like(x)
        n = x.numel()
        add_one_inplace_then_double_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
