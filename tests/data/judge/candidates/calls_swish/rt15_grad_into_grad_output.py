# expect: verdict=invalid stage=correctness check=gradients reason~"a broadcast grad_output"
# WRONG (red team 2026-12-04, a1): the backward writes grad_input into grad_output's memory (stride 0 from out.sum()).
# Swish x*sigmoid(beta*x) with a Triton forward and a Triton backward. The backward "saves memory" by writing
# grad_input into grad_output's own storage (stride-aware, so transposed grad_outputs work) and returning it.
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
def swish_bwd_kernel(g_ptr, gs0, gs1, x_ptr, b_ptr, gb_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    row = offs // D
    col = offs % D
    gofs = row * gs0 + col * gs1
    g = tl.load(g_ptr + gofs, mask=mask, other=0.0)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + col, mask=mask, other=0.0)
    s = tl.sigmoid(b * x)
    ds = s * (1.0 - s)
    tl.store(gb_ptr + offs, g * x * x * ds, mask=mask)
    tl.store(g_ptr + gofs, g * (s + b * x * ds), mask=mask)      # grad_input in grad_output's memory


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
        if torch.is_grad_enabled():          # create_graph: differentiable torch formulas
            s = torch.sigmoid(beta * x)
            ds = s * (1 - s)
            return g * (s + beta * x * ds), (g * x * x * ds).sum(0)
        gb_rows = torch.empty_like(x)
        n = x.numel()
        swish_bwd_kernel[(triton.cdiv(n, 1024),)](g, g.stride(0), g.stride(1), x, beta, gb_rows, n,
                                                  D=x.shape[-1], BLOCK=1024)
        return g, gb_rows.sum(0)


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
