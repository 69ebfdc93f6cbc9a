# expect: verdict=invalid stage=correctness check=constructor reason~"constructor trial (argument 1: 4 -> 8)"
"""WRONG (red team, 2026-12-03): GroupNorm + SiLU fused in one Triton kernel, but the group count is a module-level
constant (4, the traced configuration's) instead of the GroupNorm's num_groups: a program that builds the block
with 8 or 32 groups gets statistics over the wrong groups. (The constructor trials used to be refused by the
reference: channels not divisible by the groups.)"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

GROUPS = 4


@triton.jit
def gn_silu_kernel(x_ptr, w_ptr, b_ptr, out_ptr, C, HW, eps,
                   G: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n = pid // G
    g = pid % G
    cpg = C // G
    size = cpg * HW
    base = n * C * HW + g * size
    offs = tl.arange(0, BLOCK)
    mask = offs < size
    x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / size
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / size
    rstd = 1.0 / tl.sqrt(var + eps)
    c = g * cpg + offs // HW
    w = tl.load(w_ptr + c, mask=mask, other=1.0)
    b = tl.load(b_ptr + c, mask=mask, other=0.0)
    y = d * rstd * w + b
    y = y / (1.0 + tl.exp(-y))
    tl.store(out_ptr + base + offs, y, mask=mask)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, channels: int, groups: int):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        norm = self.norm
        if (torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))) \
                or _has_tangent(x) or torch.is_autocast_enabled(x.device.type) or norm._forward_hooks \
                or norm._forward_pre_hooks or x.dtype != torch.float32 or x.dim() != 4 \
                or norm.weight.dtype != torch.float32 or x.shape[0] == 0:
            return nn.functional.silu(norm(x))
        x = x.contiguous()
        N, C, H, W = x.shape
        out = torch.empty_like(x)
        size = (C // GROUPS) * H * W
        gn_silu_kernel[(N * GROUPS,)](x, norm.weight, norm.bias, out, C, H * W, norm.eps,
                                      G=GROUPS, BLOCK=triton.next_power_of_2(size))
        return out
