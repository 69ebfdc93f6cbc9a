# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: fc by torch, exact GELU in Triton, then the dropout module itself (its p and mode as they are now)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476)), mask=mask)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, p: float):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.drop = nn.Dropout(p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fc, drop = self.fc, self.drop
        if (torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))) \
                or _has_tangent(x) or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 \
                or fc.weight.dtype != torch.float32:
            return drop(F.gelu(fc(x)))
        h = fc(x).contiguous()
        out = torch.empty_like(h)
        n = h.numel()
        if n:
            gelu_kernel[(triton.cdiv(n, 256),)](h, out, n, BLOCK=256)
        return drop(out)
