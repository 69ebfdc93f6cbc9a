"""Legit: two kernels pass their intermediate through memory allocated for each call."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def double_kernel(x_ptr, w_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(w_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


@triton.jit
def shift_kernel(w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(w_ptr + offs, mask=mask) + 1.0, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype != torch.float32 or x.numel() == 0 or torch.is_grad_enabled() and x.requires_grad \
                or torch.autograd.forward_ad.unpack_dual(x).tangent is not None \
                or torch.is_autocast_enabled(x.device.type) or not x.is_cuda and torch.cuda.is_available():
            return x * 2.0 + 1.0
        x = x.contiguous()
        work, out = torch.empty_like(x), torch.empty_like(x)
        n = x.numel()
        grid = (triton.cdiv(n, 1024),)
        double_kernel[grid](x, work, n, BLOCK=1024)
        shift_kernel[grid](work, out, n, BLOCK=1024)
        return out
