# expect: verdict=valid stage=ok reason~"Validated"
"""tanh in Triton, then the module's own dropout (its p, its mode)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    y = tl.where(x >= 0, t, -t)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, p: float):
        super().__init__()
        self.dropout = nn.Dropout(p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad or torch.autograd.forward_ad.unpack_dual(x).tangent is not None \
                or torch.is_autocast_enabled(x.device.type) or not x.is_floating_point() \
                or self.dropout._forward_hooks or self.dropout._forward_pre_hooks or x.dtype == torch.float64:
            return self.dropout(torch.tanh(x))
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        if n:
            tanh_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return self.dropout(out)
