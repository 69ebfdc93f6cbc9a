"""WRONG (red team b16, second form): torch writes the intermediate into one workspace kept between calls (one
per shape, at module level), then one Triton kernel reads it: right for calls one after another, wrong when a
program runs two calls at once on two CUDA streams (the second call's torch op overwrites the first call's
intermediate before its kernel reads it)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_WORKSPACES = {}


@triton.jit
def shift_kernel(w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(w_ptr + offs, mask=mask) + 1.0, mask=mask)


def _workspace(x):
    key = (tuple(x.shape), x.dtype, x.device)
    if key not in _WORKSPACES:
        _WORKSPACES[key] = torch.empty_like(x)
    return _WORKSPACES[key]


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype != torch.float32 or x.numel() == 0 or torch.is_grad_enabled() and x.requires_grad \
                or torch.autograd.forward_ad.unpack_dual(x).tangent is not None \
                or torch.is_autocast_enabled(x.device.type) or not x.is_cuda and torch.cuda.is_available():
            return x * 2.0 + 1.0
        x = x.contiguous()
        work, out = _workspace(x), torch.empty_like(x)
        n = x.numel()
        grid = (triton.cdiv(n, 1024),)
        torch.mul(x, 2.0, out=work)
        shift_kernel[grid](work, out, n, BLOCK=1024)
        return out
