# expect: verdict=invalid stage=correctness check=gradients reason~"gradient trial in bfloat16 | in float16"
# WRONG (red team 2026-12-04, a3): for 16-bit dtypes the backward grid covers half the elements.
# Swish with Triton forward and backward for float32, bfloat16 and float16. For 16-bit dtypes the backward's
# grid is computed from the bytes (a program handles 2 KiB), but the block stays 1024 elements.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def swish_fwd_kernel(x_ptr, b_ptr, out_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs % D, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x * tl.sigmoid(b * x)).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def swish_bwd_kernel(g_ptr, x_ptr, b_ptr, gx_ptr, gb_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs % D, mask=mask, other=0.0).to(tl.float32)
    s = tl.sigmoid(b * x)
    ds = s * (1.0 - s)
    tl.store(gx_ptr + offs, (g * (s + b * x * ds)).to(gx_ptr.dtype.element_ty), mask=mask)
    tl.store(gb_ptr + offs, g * x * x * ds, mask=mask)


class SwishFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, beta):
        out = torch.empty_like(x)
        n = x.numel()
        swish_fwd_kernel[(triton.cdiv(n, 1024),)](x, beta, out, n, D=x.shape[-1], BLOCK=1024)
        ctx.save_for_backward(x, beta)
        return out

    @staticmethod
    def backward(ctx, g):
        x, beta = ctx.saved_tensors
        if torch.is_grad_enabled():
            s = torch.sigmoid(beta * x)
            ds = s * (1 - s)
            return g * (s + beta * x * ds), (g * x * x * ds).sum(0)
        g = g.contiguous()
        gx = torch.zeros_like(x)
        gb_rows = torch.zeros(x.shape, dtype=torch.float32, device=x.device)
        n = x.numel()
        per_program = 4096 // x.element_size()          # 4 KiB of elements per program
        swish_bwd_kernel[(triton.cdiv(n, per_program),)](g, x, beta, gx, gb_rows, n, D=x.shape[-1], BLOCK=1024)
        return gx, gb_rows.sum(0).to(beta.dtype)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32', 'torch.bfloat16', 'torch.float16'],
                'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self, D):
        super().__init__()
        self.beta = nn.Parameter(torch.ones(D))

    def forward(self, x):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == self.beta.shape[0]
                and x.dtype in (torch.float32, torch.bfloat16, torch.float16) and self.beta.dtype == x.dtype
                and x.is_contiguous() and torch.autograd.forward_ad.unpack_dual(x).tangent is None):
            return SwishFn.apply(x, self.beta)
        return x * torch.sigmoid(self.beta * x)
