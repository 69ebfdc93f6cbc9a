# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: last-k mean in one Triton kernel, the k rows read as one masked tile of next_power_of_2(k) rows."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def last_k_mean_kernel(x_ptr, p_ptr, out_ptr, S, D, k, sb, ss, K_TILE: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    offs_d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    rows = S - k + tl.arange(0, K_TILE)
    mask = (rows[:, None] < S) & (offs_d[None, :] < D)
    v = tl.load(x_ptr + b * sb + rows[:, None] * ss + offs_d[None, :], mask=mask, other=0.0)
    p = tl.load(p_ptr + offs_d, mask=offs_d < D, other=0.0)
    tl.store(out_ptr + b * D + offs_d, tl.sum(v, axis=0) / k * p, mask=offs_d < D)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor, k: int) -> torch.Tensor:
        if (torch.is_grad_enabled() and (x.requires_grad or self.proj.requires_grad)) or _has_tangent(x) \
                or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 or x.dim() != 3 \
                or self.proj.dtype != torch.float32 or x.shape[0] == 0 \
                or not isinstance(k, int) or isinstance(k, bool) or k <= 0 or x.shape[2] != self.proj.shape[0]:
            return x[:, -k:, :].mean(1) * self.proj
        x = x.contiguous()
        B, S, D = x.shape
        kk = min(k, S)
        out = torch.empty(B, D, dtype=x.dtype, device=x.device)
        last_k_mean_kernel[(B, triton.cdiv(D, 16))](x, self.proj.contiguous(), out, S, D, kk, x.stride(0), x.stride(1),
                                                     K_TILE=triton.next_power_of_2(kk), BLOCK_D=16)
        return out
