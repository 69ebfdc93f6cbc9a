# expect: verdict=invalid stage=correctness check=settings reason~"settings trial (drop.p changed)"
"""WRONG (red team, 2026-12-03): fc by torch, exact GELU in Triton, then F.dropout at the rate given to the
constructor (kept in self._p) instead of the dropout module's p: a trainer that schedules dropout by setting
model.drop.p keeps dropping at the initial rate. (Float settings trials used to skip dropout modules.)"""
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
        self._p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fc, drop = self.fc, self.drop
        if (torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))) \
                or _has_tangent(x) or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 \
                or fc.weight.dtype != torch.float32 or drop._forward_hooks or drop._forward_pre_hooks:
            return drop(F.gelu(fc(x)))
        h = fc(x).contiguous()
        out = torch.empty_like(h)
        n = h.numel()
        if n:
            gelu_kernel[(triton.cdiv(n, 256),)](h, out, n, BLOCK=256)
        return F.dropout(out, self._p, drop.training)
