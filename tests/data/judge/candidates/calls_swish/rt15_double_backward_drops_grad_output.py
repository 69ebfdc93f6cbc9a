# expect: verdict=invalid stage=correctness check=gradients reason~"second order"
# WRONG (red team 2026-12-04, a12): the double backward returns None for grad_output: a critic head gets no grad.
# Swish with a Triton forward and a Triton backward that is itself differentiable: the backward is a second
# autograd.Function (SwishBackward) whose forward is the Triton backward kernel and whose backward (the double
# backward, for gradient penalties) differentiates the recomputed first derivative w.r.t. x and beta; the
# grad_output is treated as a constant of the first backward.
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


def first_derivatives(g, x, beta):
    s = torch.sigmoid(beta * x)
    ds = s * (1 - s)
    return g * (s + beta * x * ds), (g * x * x * ds).sum(0)


class SwishBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, g, x, beta):
        g = g.contiguous()
        gx = torch.empty_like(x)
        gb_rows = torch.empty_like(x)
        n = x.numel()
        swish_bwd_kernel[(triton.cdiv(n, 1024),)](g, x, beta, gx, gb_rows, n, D=x.shape[-1], BLOCK=1024)
        ctx.save_for_backward(g, x, beta)
        return gx, gb_rows.sum(0)

    @staticmethod
    def backward(ctx, ggx, ggb):
        g, x, beta = ctx.saved_tensors
        with torch.enable_grad():
            xd = x.detach().requires_grad_()
            bd = beta.detach().requires_grad_()
            gx, gb = first_derivatives(g.detach(), xd, bd)
            dx, db = torch.autograd.grad((gx, gb), (xd, bd), (ggx, ggb), create_graph=torch.is_grad_enabled())
        return None, dx, db


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
        return SwishBackward.apply(g, x, beta)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self, D):
        super().__init__()
        self.beta = nn.Parameter(torch.ones(D))

    def forward(self, x):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == self.beta.shape[0] and x.dtype == torch.float32
                and self.beta.dtype == torch.float32 and x.is_contiguous()
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None):
            return SwishFn.apply(x, self.beta)
        return x * torch.sigmoid(self.beta * x)
