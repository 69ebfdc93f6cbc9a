# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: both outputs (x + y, x * y) from one Triton kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_and_product_kernel(x_ptr, y_ptr, sum_ptr, prod_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(sum_ptr + offs, (x + y).to(sum_ptr.dtype.element_ty), mask=mask)
    tl.store(prod_ptr + offs, (x * y).to(prod_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor):
        if (torch.is_grad_enabled() and (x.requires_grad or y.requires_grad) or _has_tangent(x, y)) \
                or x.shape != y.shape or torch.float64 in (x.dtype, y.dtype):
            return x + y, x * y  # autograd: the reference's own forward
        x, y = x.contiguous(), y.contiguous()
        total, product = torch.empty_like(x), torch.empty_like(x)
        n = x.numel()
        sum_and_product_kernel[(triton.cdiv(n, 1024),)](x, y, total, product, n, BLOCK=1024)
        return total, product
