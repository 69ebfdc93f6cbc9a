# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: reads the mask element by element.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def masked_fill_kernel(x_ptr, m_ptr, out_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    x = tl.load(x_ptr + offs, mask=inside).to(tl.float32)
    keep = tl.load(m_ptr + offs, mask=inside, other=0) != 0
    tl.store(out_ptr + offs, tl.where(keep, x, 0.0).to(out_ptr.dtype.element_ty), mask=inside)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and x.requires_grad or _has_tangent(x, mask)) or mask.shape != x.shape:     # broadcast: the original
            return torch.where(mask, x, torch.zeros_like(x))  # autograd: the reference's own forward
        x, mask = x.contiguous(), mask.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        masked_fill_kernel[(triton.cdiv(n, 1024),)](x, mask, out, n, x.shape[1], BLOCK=1024)
        return out
