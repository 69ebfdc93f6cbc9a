# expect: verdict=invalid stage=correctness check=values reason~"special values"
# xfail: judge gap: NaN and inf propagation is not tried (most honest kernels drop NaN through tl.maximum; see docs/architecture.md)
# WRONG: ReLU written as tl.where(v > 0, v, 0.0), so a NaN in either input becomes 0.0 instead of propagating (torch.relu(nan) = nan); a diverging upstream layer or a NaN-coded missing value no longer shows up in the output, so a program's torch.isnan(out).any() / loss-is-NaN guard never fires. The judge never feeds NaN or Inf inputs.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(v > 0, v, 0.0), mask=mask)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True},
                           {'dtype': 'torch.float32', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': [], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        grad = torch.is_grad_enabled() and (x.requires_grad or y.requires_grad)
        if (not grad and x.dim() == 2 and x.shape == y.shape and x.shape[0] >= 2 and x.shape[1] == 64
                and x.dtype == torch.float32 and y.dtype == torch.float32 and x.is_contiguous() and y.is_contiguous()):
            out = torch.empty_like(x)
            n = x.numel()
            add_relu_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
            return out
        return torch.relu(x + y)
