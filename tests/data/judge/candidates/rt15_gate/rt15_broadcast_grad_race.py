# expect: verdict=invalid stage=correctness check=gradients reason~"of size 1 in dim 0"
# WRONG (red team 2026-12-04, a4): a gate broadcast from (1, D) stores its gradient at row stride 0: last writer wins.
# Gate x * sigmoid(g) * scale: Triton forward and backward. g may be broadcast along the batch (a gate shared
# by the batch, shape (1, D)): it is read through its strides, and its gradient is written the same way.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def gate_fwd(x_ptr, g_ptr, gs0, s_ptr, out_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // D
    col = offs % D
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + row * gs0 + col, mask=mask, other=0.0)
    s = tl.load(s_ptr + col, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * tl.sigmoid(g) * s, mask=mask)


@triton.jit
def gate_bwd(go_ptr, x_ptr, g_ptr, gs0, s_ptr, gx_ptr, gg_ptr, gsr_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // D
    col = offs % D
    go = tl.load(go_ptr + offs, mask=mask, other=0.0)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + row * gs0 + col, mask=mask, other=0.0)
    s = tl.load(s_ptr + col, mask=mask, other=0.0)
    sg = tl.sigmoid(g)
    tl.store(gx_ptr + offs, go * sg * s, mask=mask)
    tl.store(gg_ptr + row * gs0 + col, go * x * s * sg * (1.0 - sg), mask=mask)
    tl.store(gsr_ptr + offs, go * x * sg, mask=mask)


class GateFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, g, scale):
        out = torch.empty_like(x)
        n = x.numel()
        ge = g.expand_as(x)
        gate_fwd[(triton.cdiv(n, 256),)](x, ge, ge.stride(0), scale, out, n, D=x.shape[1], BLOCK=256)
        ctx.save_for_backward(x, g, scale)
        return out

    @staticmethod
    def backward(ctx, go):
        x, g, scale = ctx.saved_tensors
        if torch.is_grad_enabled():
            sg = torch.sigmoid(g)
            return go * sg * scale, (go * x * scale * sg * (1 - sg)).sum_to_size(g.shape), \
                (go * x * sg).sum(0)
        go = go.contiguous()
        gx = torch.empty_like(x)
        gg = torch.empty_like(g)
        rows = torch.empty_like(x)
        n = x.numel()
        ge = g.expand_as(x)
        gate_bwd[(triton.cdiv(n, 256),)](go, x, ge, ge.stride(0), scale, gx, gg, rows, n, D=x.shape[1], BLOCK=256)
        return gx, gg, rows.sum(0)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True},
                           {'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self, features: int):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(features))

    def forward(self, x, g):
        D = self.scale.shape[0]
        if (x.dim() == 2 and g.dim() == 2 and x.shape[1] == D and g.shape[1] == D and g.shape[0] in (1, x.shape[0])
                and x.dtype == torch.float32 and g.dtype == torch.float32 and self.scale.dtype == torch.float32
                and x.is_contiguous() and g.is_contiguous() and x.shape[0] >= 1
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None
                and torch.autograd.forward_ad.unpack_dual(g).tangent is None):
            return GateFn.apply(x, g, self.scale)
        return x * torch.sigmoid(g) * self.scale
