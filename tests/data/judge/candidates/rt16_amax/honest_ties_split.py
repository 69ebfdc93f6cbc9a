# expect: verdict=valid stage=ok reason~"Validated"
# HONEST: row max forward in Triton; the backward, in Triton, splits the gradient evenly among tied maxima.
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 64


@triton.jit
def row_max_fwd(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    best = tl.full([BLOCK], float('-inf'), tl.float32)
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + row.to(tl.int64) * N + start + offs, mask=start + offs < N, other=float('-inf'))
        best = tl.maximum(best, x)
    tl.store(y_ptr + row, tl.max(best, axis=0))


@triton.jit
def row_max_bwd(g_ptr, x_ptr, y_ptr, dx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    g = tl.load(g_ptr + row)
    m = tl.load(y_ptr + row)
    ties = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        x = tl.load(x_ptr + row.to(tl.int64) * N + start + offs, mask=start + offs < N, other=float('-inf'))
        ties += tl.where(x == m, 1.0, 0.0)
    share = g / tl.sum(ties, axis=0)
    for start in range(0, N, BLOCK):
        mask = start + offs < N
        x = tl.load(x_ptr + row.to(tl.int64) * N + start + offs, mask=mask, other=float('-inf'))
        tl.store(dx_ptr + row.to(tl.int64) * N + start + offs, tl.where(x == m, share, 0.0), mask=mask)


class RowMaxFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        N = x.shape[-1]
        y = torch.empty(x.shape[:-1], dtype=x.dtype, device=x.device)
        row_max_fwd[(x.numel() // N,)](x, y, N, BLOCK=BLOCK)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        N = x.shape[-1]
        if torch.is_grad_enabled():                       # double backward: differentiable torch ops
            ties = (x == y.unsqueeze(-1)).to(g.dtype)
            return ties * (g / ties.sum(-1)).unsqueeze(-1)
        g = g.contiguous()
        dx = torch.empty_like(x)
        row_max_bwd[(y.numel(),)](g, x, y, dx, N, BLOCK=BLOCK)
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
