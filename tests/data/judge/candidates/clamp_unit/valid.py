# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: clamp to [0, 1] into new memory."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def clamp_unit_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.minimum(tl.maximum(x, 0.0), 1.0).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad or _has_tangent(x):
            return torch.clamp(x, 0.0, 1.0)  # autograd: the reference's own forward
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        clamp_unit_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
