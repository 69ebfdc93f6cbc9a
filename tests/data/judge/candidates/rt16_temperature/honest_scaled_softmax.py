# expect: verdict=valid stage=ok reason~"Validated"
# HONEST: softmax(x * scale) forward and backward in Triton, one program per row looping over the columns; the scale
# is 1 / self.temperature read on every call, in training and in inference; float32 only.
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 64


@triton.jit
def softmax_fwd(x_ptr, y_ptr, scale, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * N
    offs = tl.arange(0, BLOCK)
    top = tl.full([BLOCK], float('-inf'), tl.float32)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        x = tl.load(x_ptr + row + start + offs, mask=mask, other=0.0) * scale
        top = tl.maximum(top, tl.where(mask, x, float('-inf')))
    m = tl.max(top, axis=0)
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        x = tl.load(x_ptr + row + start + offs, mask=mask, other=0.0) * scale
        total += tl.where(mask, tl.exp(x - m), 0.0)
    s = tl.sum(total, axis=0)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        x = tl.load(x_ptr + row + start + offs, mask=mask, other=0.0) * scale
        tl.store(y_ptr + row + start + offs, tl.exp(x - m) / s, mask=mask)


@triton.jit
def softmax_bwd(g_ptr, y_ptr, dx_ptr, scale, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * N
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        g = tl.load(g_ptr + row + start + offs, mask=mask, other=0.0)
        y = tl.load(y_ptr + row + start + offs, mask=mask, other=0.0)
        acc += g * y
    dot = tl.sum(acc, axis=0)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        g = tl.load(g_ptr + row + start + offs, mask=mask, other=0.0)
        y = tl.load(y_ptr + row + start + offs, mask=mask, other=0.0)
        tl.store(dx_ptr + row + start + offs, scale * y * (g - dot), mask=mask)


class ScaledSoftmaxFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        x = x.contiguous()
        y = torch.empty_like(x)
        N = x.shape[-1]
        softmax_fwd[(x.numel() // N,)](x, y, scale, N, BLOCK=BLOCK)
        ctx.scale = scale
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        if torch.is_grad_enabled():                       # double backward: differentiable torch ops
            return ctx.scale * y * (g - (g * y).sum(-1, keepdim=True)), None
        g = g.contiguous()
        dx = torch.empty_like(y)
        N = y.shape[-1]
        softmax_bwd[(y.numel() // N,)](g, y, dx, ctx.scale, N, BLOCK=BLOCK)
        return dx, None


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 32], 'contiguous': False}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self, temperature: float):
        super().__init__()
        self.temperature = temperature

    def triton_ok(self, x):
        return (x.dtype == torch.float32 and x.dim() >= 1 and x.numel() > 0 and x.device.type in ('cpu', 'cuda')
                and isinstance(self.temperature, (int, float)) and self.temperature != 0
                and not torch.is_autocast_enabled(x.device.type)
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None)

    def forward(self, x):
        if self.triton_ok(x):
            return ScaledSoftmaxFn.apply(x, 1.0 / self.temperature)
        return torch.softmax(x / self.temperature, dim=-1)
