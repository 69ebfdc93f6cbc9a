# expect: verdict=invalid stage=correctness check=gradients reason~"inputs transposed in memory"
# WRONG (red team 2026-12-04, a2): the forward reads x by its strides, the backward reads the saved x as if contiguous.
# Swish with a Triton forward that reads x through its strides (transposed / sliced inputs need no copy) and a
# Triton backward. The backward kernel reads the saved x with flat indexing.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def swish_fwd_kernel(x_ptr, xs0, xs1, b_ptr, out_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // D
    col = offs % D
    x = tl.load(x_ptr + row * xs0 + col * xs1, mask=mask, other=0.0)
    b = tl.load(b_ptr + col, mask=mask, other=0.0)
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
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        n = x.numel()
        swish_fwd_kernel[(triton.cdiv(n, 1024),)](x, x.stride(0), x.stride(1), beta, out, n, D=x.shape[-1],
                                                  BLOCK=1024)
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
        gx = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        gb_rows = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        n = x.numel()
        swish_bwd_kernel[(triton.cdiv(n, 1024),)](g, x, beta, gx, gb_rows, n, D=x.shape[-1], BLOCK=1024)
        return gx, gb_rows.sum(0)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64]}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self, D):
        super().__init__()
        self.beta = nn.Parameter(torch.ones(D))

    def forward(self, x):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == self.beta.shape[0] and x.dtype == torch.float32
                and self.beta.dtype == torch.float32
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None):
            return SwishFn.apply(x, self.beta)
        return x * torch.sigmoid(self.beta * x)
