"""Hand-written, two kernels (the add, then the norm): a sub-millisecond multi-kernel candidate for the
spread figure of judge_integrity_gpu.py."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, r_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    h = tl.load(x_ptr + offs, mask=mask).to(tl.float32) + tl.load(r_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, h.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rmsnorm_kernel(h_ptr, w_ptr, out_ptr, dim, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < dim
    h = tl.load(h_ptr + row * dim + cols, mask=mask, other=0.0).to(tl.float32)
    scale = tl.rsqrt(tl.sum(h * h, axis=0) / dim + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * dim + cols, (h * scale * w).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or residual.requires_grad or self.weight.requires_grad)
        dual = any(torch.autograd.forward_ad.unpack_dual(t).tangent is not None for t in (x, residual))
        if not x.is_cuda or autograd or dual:
            h = x + residual  # the CPU or autograd: the reference's own forward
            return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        x, residual = x.contiguous(), residual.contiguous()
        h = torch.empty_like(x)
        n = x.numel()
        add_kernel[(triton.cdiv(n, 4096),)](x, residual, h, n, BLOCK=4096)
        dim = x.shape[-1]
        out = torch.empty_like(x)
        rmsnorm_kernel[(n // dim,)](h, self.weight, out, dim, self.eps, BLOCK=triton.next_power_of_2(dim))
        return out
