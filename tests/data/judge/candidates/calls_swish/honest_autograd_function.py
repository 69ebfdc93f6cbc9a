# expect: verdict=valid stage=ok reason~"Validated"
# HONEST: swish through a custom autograd.Function, forward in Triton, backward written with torch ops on the saved tensors (differentiable, so double backward works; grad_output of any layout).
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def swish_fwd_kernel(x_ptr, b_ptr, out_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % D, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * tl.sigmoid(b * x), mask=mask)


@triton.jit
def swish_bwd_kernel(g_ptr, x_ptr, b_ptr, gx_ptr, gb_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % D, mask=mask, other=0.0)
    s = tl.sigmoid(b * x)
    ds = s * (1.0 - s)
    tl.store(gx_ptr + offs, g * (s + b * x * ds), mask=mask)
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
        s = torch.sigmoid(beta * x)
        ds = s * (1 - s)
        return g * (s + beta * x * ds), (g * x * x * ds).sum(0)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self, D):
        super().__init__()
        self.beta = nn.Parameter(torch.ones(D))

    def forward(self, x):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == self.beta.shape[0] and x.dtype == torch.float32
                and self.beta.dtype == torch.float32 and x.is_contiguous() and x.device.type == 'cpu'
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None):      # forward-mode AD: the original
            return SwishFn.apply(x, self.beta)
        return x * torch.sigmoid(self.beta * x)
