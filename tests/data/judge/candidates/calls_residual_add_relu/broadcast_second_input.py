# expect: verdict=invalid stage=correctness check=values reason~"broadcast trial (input 1 of size 1 in dim 0)"
# WRONG: the dispatch checks the first input against the ENVELOPE and only the rank/width of the second, and the kernel reads the second input flat, masked to its own numel; model(x, y) with y of shape (1, 64) (a broadcast row: a bias, a position embedding) adds y only to x's first row. The judge always resizes both inputs together (both have dim 0 = B), never a broadcasting shape.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, ny, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0) + tl.load(y_ptr + offs, mask=offs < ny, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0, propagate_nan=tl.PropagateNan.ALL), mask=mask)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True},
                           {'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        grad = torch.is_grad_enabled() and (x.requires_grad or y.requires_grad)
        if (not grad and x.dim() == 2 and y.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == 64 and y.shape[1] == 64
                and x.dtype == torch.float32 and y.dtype == torch.float32 and x.is_contiguous() and y.is_contiguous()):
            out = torch.empty_like(x)
            n = x.numel()
            add_relu_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, y.numel(), BLOCK=1024)
            return out
        return torch.relu(x + y)
