# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: two-pass mean and variance per row.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def standardize_kernel(x_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    tl.store(out_ptr + row * n_cols + cols, (d / tl.sqrt(var + eps)).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad or _has_tangent(x) or x.dtype == torch.float64:
            return torch.nn.functional.layer_norm(x, (x.shape[-1],))  # autograd: the reference's own forward
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        standardize_kernel[(rows,)](x, out, cols, 1e-5, BLOCK=triton.next_power_of_2(cols))
        return out
