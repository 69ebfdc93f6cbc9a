# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: relu(x + bias), the bias read per column.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(x_ptr, b_ptr, out_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs % n_cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x + b, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters())) or _has_tangent(x) \
                or x.dtype != self.bias.dtype or x.dim() != 2 or x.shape[1] != self.bias.shape[0] \
                or x.dtype == torch.float64:
            return torch.relu(x + self.bias)  # autograd: the reference's own forward
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        bias_relu_kernel[(triton.cdiv(n, 1024),)](x, self.bias, out, n, x.shape[1], BLOCK=1024)
        return out
