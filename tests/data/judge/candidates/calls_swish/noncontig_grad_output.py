# expect: verdict=invalid stage=correctness check=gradients reason~"gradient trial (a non-contiguous grad_output)"
# WRONG: a custom autograd.Function whose Triton backward reads grad_output with flat contiguous indexing (no .contiguous(), no strides); a backward that receives a non-contiguous grad_output -- the model output transposed or permuted before the loss (y.t() @ v, y.mT in attention, y.permute(...) for a seq-first layout) -- gets gradients read from the wrong positions. The judge backpropagates only the contiguous grad_output of sum(output * randn).sum().
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
        gx = torch.empty_like(x)
        gb_rows = torch.empty_like(x)
        n = x.numel()
        swish_bwd_kernel[(triton.cdiv(n, 1024),)](g, x, beta, gx, gb_rows, n, D=x.shape[-1], BLOCK=1024)
        return gx, gb_rows.sum(0)


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
