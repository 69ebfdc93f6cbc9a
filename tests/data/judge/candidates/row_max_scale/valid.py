# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: divide each row by its maximum, found with a -inf start and -inf padding.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def max_scale_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf")).to(tl.float32)
    scale = tl.max(x, axis=0)
    tl.store(out_ptr + row * n_cols + cols, (x / scale).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad or _has_tangent(x) or x.dtype == torch.float64:
            return x / x.amax(dim=1, keepdim=True)  # autograd: the reference's own forward
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        max_scale_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
