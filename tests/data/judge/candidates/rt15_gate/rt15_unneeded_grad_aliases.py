# expect: verdict=invalid stage=correctness check=gradients reason~"only input 1 requires grad"
# WRONG (red team 2026-12-04, a6): a gradient nobody needs is written into the other gradient's buffer.
# Gate x * sigmoid(g) * scale: Triton forward; one Triton backward kernel writes all three gradients. A gradient
# nobody needs gets no buffer of its own: its pointer is one of the other buffers (it is overwritten anyway).
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def gate_fwd(x_ptr, g_ptr, s_ptr, out_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    s = tl.load(s_ptr + offs % D, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * tl.sigmoid(g) * s, mask=mask)


@triton.jit
def gate_bwd(go_ptr, x_ptr, g_ptr, s_ptr, gx_ptr, gg_ptr, gsr_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    go = tl.load(go_ptr + offs, mask=mask, other=0.0)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    s = tl.load(s_ptr + offs % D, mask=mask, other=0.0)
    sg = tl.sigmoid(g)
    tl.store(gsr_ptr + offs, go * x * sg, mask=mask)
    tl.store(gg_ptr + offs, go * x * s * sg * (1.0 - sg), mask=mask)
    tl.store(gx_ptr + offs, go * sg * s, mask=mask)


class GateFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, g, scale):
        out = torch.empty_like(x)
        n = x.numel()
        gate_fwd[(triton.cdiv(n, 256),)](x, g, scale, out, n, D=x.shape[1], BLOCK=256)
        ctx.save_for_backward(x, g, scale)
        return out

    @staticmethod
    def backward(ctx, go):
        x, g, scale = ctx.saved_tensors
        nx, ng, ns = ctx.needs_input_grad
        if torch.is_grad_enabled():
            sg = torch.sigmoid(g)
            return go * sg * scale, go * x * scale * sg * (1 - sg), (go * x * sg).sum(0)
        go = go.contiguous()
        n = x.numel()
        rows = torch.empty_like(x)
        gx = torch.empty_like(x) if nx else None
        gg = torch.empty_like(g) if ng else None
        if gx is None and gg is None:
            gx = gg = torch.empty_like(x)
        gate_bwd[(triton.cdiv(n, 256),)](go, x, g, scale, gx if gx is not None else gg,
                                         gg if gg is not None else gx, rows, n, D=x.shape[1], BLOCK=256)
        return (gx if nx else None), (gg if ng else None), (rows.sum(0) if ns else None)


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
        if (x.dim() == 2 and x.shape == g.shape and x.shape[1] == D
                and x.dtype == torch.float32 and g.dtype == torch.float32 and self.scale.dtype == torch.float32
                and x.is_contiguous() and g.is_contiguous()
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None
                and torch.autograd.forward_ad.unpack_dual(g).tangent is None):
            return GateFn.apply(x, g, self.scale)
        return x * torch.sigmoid(g) * self.scale
