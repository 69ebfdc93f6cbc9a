# expect: verdict=invalid stage=correctness check=gradients reason~"inputs rounded to integers: ties and zeros"
# WRONG (red team 16, a9): the backward sends each row's whole gradient to the first maximum; torch splits it evenly
# among tied maxima. Right on continuous random inputs, which never tie.
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 64


@triton.jit
def row_max_fwd(x_ptr, y_ptr, idx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    best = tl.full([BLOCK], float('-inf'), tl.float32)
    where = tl.zeros([BLOCK], tl.int32)
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + row.to(tl.int64) * N + start + offs, mask=start + offs < N, other=float('-inf'))
        better = x > best
        where = tl.where(better, start + offs, where)
        best = tl.where(better, x, best)
    m = tl.max(best, axis=0)
    first = tl.min(tl.where(best == m, where, N), axis=0)
    tl.store(y_ptr + row, m)
    tl.store(idx_ptr + row, first)


@triton.jit
def row_max_bwd(g_ptr, idx_ptr, dx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    g = tl.load(g_ptr + row)
    first = tl.load(idx_ptr + row)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        tl.store(dx_ptr + row.to(tl.int64) * N + start + offs, tl.where(start + offs == first, g, 0.0), mask=mask)


class RowMaxFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        N = x.shape[-1]
        rows = x.numel() // N
        y = torch.empty(x.shape[:-1], dtype=x.dtype, device=x.device)
        idx = torch.empty(x.shape[:-1], dtype=torch.int32, device=x.device)
        row_max_fwd[(rows,)](x, y, idx, N, BLOCK=BLOCK)
        ctx.save_for_backward(idx)
        ctx.shape = x.shape
        return y

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        N = ctx.shape[-1]
        if torch.is_grad_enabled():                       # double backward: differentiable torch ops
            hot = torch.nn.functional.one_hot(idx.long(), N).to(g.dtype)
            return hot * g.unsqueeze(-1)
        g = g.contiguous()
        dx = torch.empty(ctx.shape, dtype=g.dtype, device=g.device)
        row_max_bwd[(idx.numel(),)](g, idx, dx, N, BLOCK=BLOCK)
        return dx


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu', 'cuda'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 32], 'contiguous': False}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self):
        super().__init__()

    def forward(self, x):
        if (x.dtype == torch.float32 and x.dim() >= 1 and x.numel() > 0 and x.shape[-1] > 0
                and x.device.type in ('cpu', 'cuda') and not torch.isnan(x).any()
                and not torch.is_autocast_enabled(x.device.type)
                and torch.autograd.forward_ad.unpack_dual(x).tangent is None):
            return RowMaxFn.apply(x)
        return torch.amax(x, dim=-1)
