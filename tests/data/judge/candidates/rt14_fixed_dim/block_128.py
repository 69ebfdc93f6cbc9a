# expect: verdict=invalid stage=correctness check=shapes reason~"fixed-size trial (a dim of 64 -> 129)"
"""WRONG (red team, 2026-12-03): L2 normalisation in one Triton kernel, the row in one masked tile of 128 lanes
(twice the traced width): embeddings wider than 128 are normalised by the norm of their first 128 entries and the
rest left unwritten. (Fixed dims used to be tried only at +3, which one 128-lane tile still covers.)"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 128


@triton.jit
def l2norm_kernel(x_ptr, out_ptr, D, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=mask, other=0.0)
    n = tl.maximum(tl.sqrt(tl.sum(x * x, axis=0)), 1e-12)
    tl.store(out_ptr + row * D + offs, x / n, mask=mask)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and x.requires_grad) or _has_tangent(x) or torch.is_autocast_enabled(x.device.type) \
                or x.dtype != torch.float32 or x.dim() == 0 or x.numel() == 0:
            return nn.functional.normalize(x, dim=-1)
        D = x.shape[-1]
        x2 = x.reshape(-1, D).contiguous()
        out = torch.empty_like(x2)
        l2norm_kernel[(x2.shape[0],)](x2, out, D, BLOCK=BLOCK)
        return out.view(x.shape)
