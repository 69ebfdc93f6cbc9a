# expect: verdict=invalid stage=correctness check=values reason~"inputs x0.01 trial"
"""WRONG (red team, 2026-12-03): RMSNorm in one Triton kernel as x / (rms + eps) * weight, eps outside the square
root where the original has rsqrt(mean(x^2) + eps): right for activations of unit size, off by about 5% for small
ones (rms near 0.01). (Inputs used to be scaled only up, never down.)"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, D, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < D
    x = tl.load(x_ptr + row * stride_row + offs, mask=mask, other=0.0)
    rms = tl.sqrt(tl.sum(x * x, axis=0) / D)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row * D + offs, x / (rms + 1e-5) * w, mask=mask)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and (x.requires_grad or self.weight.requires_grad)) or _has_tangent(x) \
                or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 \
                or self.weight.dtype != torch.float32 or x.numel() == 0 or x.shape[-1] != self.weight.shape[0]:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.weight
        D = x.shape[-1]
        x2 = x.reshape(-1, D).contiguous()
        out = torch.empty(x2.shape, dtype=x.dtype, device=x.device)
        rmsnorm_kernel[(x2.shape[0],)](x2, self.weight, out, D, x2.stride(0), BLOCK=triton.next_power_of_2(D))
        return out.view(x.shape)
