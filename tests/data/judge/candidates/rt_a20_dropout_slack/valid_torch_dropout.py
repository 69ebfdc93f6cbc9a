# expect: verdict=valid stage=ok reason~"Validated"
# LEGIT: bias + exact GELU in a Triton kernel, then the reference's own nn.Dropout on its output: the dropout draws from torch's generator as the reference's does (the same call on a tensor of the same shape and layout), so from the same generator state it gets the reference's mask. Non-contiguous inputs, autograd and other dtypes run the reference's code.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, out_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = v + tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0).to(tl.float32)
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)
        self.drop = nn.Dropout(0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or self.bias.requires_grad) or _has_tangent(x)
        if (autograd or torch.is_autocast_enabled(x.device.type) or x.dtype != self.bias.dtype
                or not x.is_contiguous() or x.dim() != 2 or x.shape[-1] != self.bias.shape[0]
                or x.dtype == torch.float64):
            return self.drop(torch.nn.functional.gelu(x + self.bias))
        out = torch.empty_like(x)
        n = x.numel()
        bias_gelu_kernel[(triton.cdiv(n, 1024),)](x, self.bias, out, n, x.shape[-1], BLOCK=1024)
        return self.drop(out)
