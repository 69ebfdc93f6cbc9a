# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: every pooling in one Triton kernel; logsumexp with the row maximum subtracted (a first pass for the
maximum, a second for the sum)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

MODES = {"mean": 0, "max": 1, "min": 2, "sum": 3, "l2": 4, "logsumexp": 5}


@triton.jit
def pool_kernel(x_ptr, s_ptr, out_ptr, S, D, sb, ss, MODE: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = offs < D
    scale = tl.load(s_ptr + offs, mask=mask, other=0.0)
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    if MODE == 1:
        acc = tl.full((BLOCK_D,), float("-inf"), tl.float32)
    if MODE == 2:
        acc = tl.full((BLOCK_D,), float("inf"), tl.float32)
    m = tl.full((BLOCK_D,), float("-inf"), tl.float32)
    shift = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for s in range(0, S):
        v = tl.load(x_ptr + b * sb + s * ss + offs, mask=mask, other=0.0) * scale
        if MODE == 0 or MODE == 3:
            acc += v
        elif MODE == 1:
            acc = tl.maximum(acc, v)
        elif MODE == 2:
            acc = tl.minimum(acc, v)
        elif MODE == 4:
            acc += v * v
        else:
            m = tl.maximum(m, v)
    if MODE == 5:
        shift = tl.where(m == float("-inf"), 0.0, m)
        for s in range(0, S):
            v = tl.load(x_ptr + b * sb + s * ss + offs, mask=mask, other=0.0) * scale
            acc += tl.exp(v - shift)
    if MODE == 0:
        acc = acc / S
    elif MODE == 4:
        acc = tl.sqrt(acc)
    elif MODE == 5:
        acc = tl.log(acc) + shift
    tl.store(out_ptr + b * D + offs, acc, mask=mask)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor, pool: str = "mean") -> torch.Tensor:
        if (torch.is_grad_enabled() and (x.requires_grad or self.scale.requires_grad)) or _has_tangent(x) \
                or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 or x.dim() != 3 \
                or self.scale.dtype != torch.float32 or pool not in MODES or x.shape[0] == 0 or x.shape[1] == 0 \
                or x.shape[2] != self.scale.shape[0]:
            y = x * self.scale
            if pool == "mean":
                return y.mean(1)
            if pool == "max":
                return y.amax(1)
            if pool == "min":
                return y.amin(1)
            if pool == "sum":
                return y.sum(1)
            if pool == "l2":
                return y.norm(dim=1)
            if pool == "logsumexp":
                return torch.logsumexp(y, 1)
            raise ValueError(pool)
        x = x.contiguous()
        B, S, D = x.shape
        out = torch.empty(B, D, dtype=x.dtype, device=x.device)
        pool_kernel[(B, triton.cdiv(D, 32))](x, self.scale.contiguous(), out, S, D, x.stride(0), x.stride(1),
                                             MODE=MODES[pool], BLOCK_D=32)
        return out
