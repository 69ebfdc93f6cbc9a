# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: one program per row, two-pass mean and variance, then the affine weight and bias.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=1.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = d / tl.sqrt(var + eps) * w + b
    tl.store(out_ptr + row * n_cols + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.norm = nn.LayerNorm(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters())) or _has_tangent(x)) \
                or torch.is_autocast_enabled(x.device.type) or self.norm._forward_hooks or self.norm._forward_pre_hooks \
                or x.dim() != 2 or tuple(x.shape[1:]) != tuple(self.norm.normalized_shape) \
                or torch.float64 in (x.dtype, self.norm.weight.dtype):
            return self.norm(x)  # autograd: the reference's own forward
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        layer_norm_kernel[(rows,)](x, self.norm.weight, self.norm.bias, out, cols, self.norm.eps,
                                   BLOCK=triton.next_power_of_2(cols))
        return out
