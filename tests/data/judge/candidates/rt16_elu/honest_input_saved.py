# expect: verdict=valid stage=ok reason~"Validated"
# HONEST: ELU forward and backward in Triton; the backward reads the input, saved with save_for_backward.
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK = 256


@triton.jit
def elu_fwd(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(x > 0, x, tl.exp(x) - 1.0), mask=mask)


@triton.jit
def elu_bwd(g_ptr, x_ptr, dx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(dx_ptr + offs, tl.where(x > 0, g, g * tl.exp(x)), mask=mask)


class EluFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        elu_fwd[(triton.cdiv(x.numel(), BLOCK),)](x, y, x.numel(), BLOCK=BLOCK)
        ctx.save_for_backward(x)
        return y

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        if torch.is_grad_enabled():                       # double backward: differentiable torch ops
            return torch.where(x > 0, g, g * torch.exp(x))
        g = g.contiguous()
        dx = torch.empty_like(x)
        elu_bwd[(triton.cdiv(x.numel(), BLOCK),)](g, x, dx, x.numel(), BLOCK=BLOCK)
        return dx


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 32], 'contiguous': False}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self):
        super().__init__()

    def forward(self, x):
        if (x.dtype == torch.float32 and x.numel() > 0 and x.device.type in ('cpu', 'cuda')
                and not torch.is_autocast_enabled(x.device.type)
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None):
            return EluFn.apply(x)
        return F.elu(x)
