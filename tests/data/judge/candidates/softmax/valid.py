# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: one program per row, a masked softmax over the 100 classes, times the reference's scale."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scaled_softmax_kernel(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, (e / tl.sum(e, axis=0) * scale).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad or _has_tangent(x) or x.dtype == torch.float64:
            return torch.softmax(x, dim=1) * 1e-4  # autograd: the reference's own forward
        x = x.contiguous()
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        scaled_softmax_kernel[(n_rows,)](x, out, n_cols, 1e-4, BLOCK=triton.next_power_of_2(n_cols))
        return out
