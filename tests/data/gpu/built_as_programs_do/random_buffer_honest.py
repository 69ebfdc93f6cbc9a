"""Honest: the reference's random buffer, drawn as it draws it, then relu(x + noise) in one Triton kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, noise_ptr, out_ptr, n, features, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    noise = tl.load(noise_ptr + offs % features, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x + noise, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.register_buffer("noise", torch.randn(features), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not x.is_cuda or x.dtype != torch.float32 or x.dim() != 2 or x.shape[-1] != self.noise.shape[0] \
                or torch.is_grad_enabled() and x.requires_grad \
                or torch.autograd.forward_ad.unpack_dual(x).tangent is not None:
            return torch.relu(x + self.noise)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        if n:
            add_relu_kernel[(triton.cdiv(n, 1024),)](x, self.noise, out, n, x.shape[-1], BLOCK=1024)
        return out
