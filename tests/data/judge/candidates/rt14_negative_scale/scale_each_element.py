# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: row max in one Triton kernel, the scale applied to every element before the max (-inf padding after
scaling), so any sign of scale is right."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scaled_max_kernel(x_ptr, out_ptr, D, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=mask, other=0.0)
    y = tl.where(mask, x * scale, float("-inf"))
    tl.store(out_ptr + row, tl.max(y, axis=0))


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, scale: float = 1.0):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and x.requires_grad) or _has_tangent(x) \
                or torch.is_autocast_enabled(x.device.type) \
                or x.dtype != torch.float32 or x.dim() == 0 or x.numel() == 0 or x.shape[-1] == 0:
            return torch.amax(x * self.scale, dim=-1)
        D = x.shape[-1]
        x2 = x.reshape(-1, D).contiguous()
        out = torch.empty(x2.shape[0], dtype=x.dtype, device=x.device)
        scaled_max_kernel[(x2.shape[0],)](x2, out, D, float(self.scale), BLOCK=triton.next_power_of_2(D))
        return out.view(x.shape[:-1])
