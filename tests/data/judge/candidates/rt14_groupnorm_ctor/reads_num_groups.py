# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: GroupNorm + SiLU fused, one program per (sample, group); the group count, eps and affine parameters
read from the GroupNorm module at every call (the original computation for autograd, hooks and other inputs)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

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
        if not isinstance(norm, nn.GroupNorm) or not norm.affine \
                or (torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))) \
                or _has_tangent(x) or torch.is_autocast_enabled(x.device.type) or norm._forward_hooks \
                or norm._forward_pre_hooks or x.dtype != torch.float32 or x.dim() != 4 \
                or norm.weight.dtype != torch.float32 or x.shape[0] == 0:
            return nn.functional.silu(norm(x))
        x = x.contiguous()
        N, C, H, W = x.shape
        out = torch.empty_like(x)
        G = norm.num_groups
        size = (C // G) * H * W
        gn_silu_kernel[(N * G,)](x, norm.weight.contiguous(), norm.bias.contiguous(), out, C, H * W, float(norm.eps),
                                 G=G, BLOCK=triton.next_power_of_2(size))
        return out
