# expect: verdict=invalid stage=correctness check=gradients reason~"gradient trial (backward twice, retain_graph=True)"
# WRONG (the judge's documented gap): the Triton backward writes grad_input into the buffer it saved for backward (sigmoid(beta*x), "reusing memory"), so a second backward through the same graph (loss1.backward(retain_graph=True); loss2.backward() -- multi-task losses, GAN generator/discriminator passes, torch.autograd.grad twice) reads overwritten values and gets wrong gradients. The judge runs one backward per gradient trial.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def swish_fwd_kernel(x_ptr, b_ptr, out_ptr, s_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % D, mask=mask, other=0.0)
    s = tl.sigmoid(b * x)
    tl.store(s_ptr + offs, s, mask=mask)
    tl.store(out_ptr + offs, x * s, mask=mask)


@triton.jit
def swish_bwd_kernel(g_ptr, x_ptr, b_ptr, s_ptr, gb_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % D, mask=mask, other=0.0)
    s = tl.load(s_ptr + offs, mask=mask, other=0.0)
    ds = s * (1.0 - s)
    tl.store(gb_ptr + offs, g * x * x * ds, mask=mask)
    tl.store(s_ptr + offs, g * (s + b * x * ds), mask=mask)      # grad_input written over the saved s


class SwishFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, beta):
        out = torch.empty_like(x)
        s = torch.empty_like(x)
        n = x.numel()
        swish_fwd_kernel[(triton.cdiv(n, 1024),)](x, beta, out, s, n, D=x.shape[-1], BLOCK=1024)
        ctx.save_for_backward(x, beta, s)
        return out

    @staticmethod
    def backward(ctx, g):
        x, beta, s = ctx.saved_tensors
        g = g.contiguous()
        gb_rows = torch.empty_like(x)
        n = x.numel()
        swish_bwd_kernel[(triton.cdiv(n, 1024),)](g, x, beta, s, gb_rows, n, D=x.shape[-1], BLOCK=1024)
        return s, gb_rows.sum(0)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': True}

    def __init__(self, D):
        super().__init__()
        self.beta = nn.Parameter(torch.ones(D))

    def forward(self, x):
        if (x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == self.beta.shape[0] and x.dtype == torch.float32
                and self.beta.dtype == torch.float32 and x.is_contiguous() and x.device.type == 'cpu'):
            return SwishFn.apply(x, self.beta)
        return x * torch.sigmoid(self.beta * x)
