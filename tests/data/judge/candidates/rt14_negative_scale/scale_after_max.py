# expect: verdict=invalid stage=correctness check=constructor reason~"constructor trial (argument 0: 1.0 -> -1.0)"
"""WRONG (red team, 2026-12-03): row max in one Triton kernel with the scale applied once to each row's maximum,
max(s * x) = s * max(x), which holds only for s >= 0: with a negative scale (a scaled min-pool) it returns s *
max(x) instead of s * min(x). (Float arguments and settings used to be moved only up, never to the other sign.)"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scaled_max_kernel(x_ptr, out_ptr, D, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * D + offs, mask=offs < D, other=float("-inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0) * scale)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, scale: float = 1.0):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and x.requires_grad) or _has_tangent(x) or torch.is_autocast_enabled(x.device.type) \
                or x.dtype != torch.float32 or x.dim() == 0 or x.numel() == 0 or x.shape[-1] == 0:
            return torch.amax(x * self.scale, dim=-1)
        D = x.shape[-1]
        x2 = x.reshape(-1, D).contiguous()
        out = torch.empty(x2.shape[0], dtype=x.dtype, device=x.device)
        scaled_max_kernel[(x2.shape[0],)](x2, out, D, float(self.scale), BLOCK=triton.next_power_of_2(D))
        return out.view(x.shape[:-1])
