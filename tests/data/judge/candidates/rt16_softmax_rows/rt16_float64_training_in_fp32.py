# expect: verdict=invalid stage=correctness check=gradients reason~"gradient trial in float64"
# WRONG (red team 16, a11): inference falls back for float64; the training path takes it and computes in float32.
# any row count), grad_output made contiguous, the output saved with save_for_backward; float32 only.
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 64


@triton.jit
def softmax_fwd(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * N
    offs = tl.arange(0, BLOCK)
    top = tl.full([BLOCK], float('-inf'), tl.float32)
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + row + start + offs, mask=start + offs < N, other=float('-inf')).to(tl.float32)
        top = tl.maximum(top, x)
    m = tl.max(top, axis=0)
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + row + start + offs, mask=start + offs < N, other=float('-inf')).to(tl.float32)
        total += tl.exp(x - m)
    s = tl.sum(total, axis=0)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        x = tl.load(x_ptr + row + start + offs, mask=mask, other=float('-inf')).to(tl.float32)
        tl.store(y_ptr + row + start + offs, tl.exp(x - m) / s, mask=mask)


@triton.jit
def softmax_bwd(g_ptr, y_ptr, dx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * N
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        g = tl.load(g_ptr + row + start + offs, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + row + start + offs, mask=mask, other=0.0).to(tl.float32)
        acc += g * y
    dot = tl.sum(acc, axis=0)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        g = tl.load(g_ptr + row + start + offs, mask=mask, other=0.0).to(tl.float32)
        y = tl.load(y_ptr + row + start + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(dx_ptr + row + start + offs, y * (g - dot), mask=mask)


class SoftmaxFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        N = x.shape[-1]
        softmax_fwd[(x.numel() // N,)](x, y, N, BLOCK=BLOCK)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        if torch.is_grad_enabled():                       # double backward: differentiable torch ops
            return y * (g - (g * y).sum(-1, keepdim=True))
        g = g.contiguous()
        dx = torch.empty_like(y)
        N = y.shape[-1]
        softmax_bwd[(y.numel() // N,)](g, y, dx, N, BLOCK=BLOCK)
        return dx


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 'S', 32], 'contiguous': False}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self):
        super().__init__()

    def forward(self, x):
        if torch.is_grad_enabled() and x.requires_grad and x.dtype in (torch.float32, torch.float64) \
                and x.numel() > 0 and not torch.is_autocast_enabled(x.device.type):
            return SoftmaxFn.apply(x)         # training: float32 or float64
        if (x.dtype == torch.float32 and x.dim() >= 1 and x.numel() > 0 and x.device.type in ('cpu', 'cuda')
                and not torch.is_autocast_enabled(x.device.type)
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None):
            return SoftmaxFn.apply(x)
        return torch.softmax(x, dim=-1)
