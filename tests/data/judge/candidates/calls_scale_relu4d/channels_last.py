# expect: verdict=invalid stage=correctness check=layouts reason~"layout trial (channels last inputs)"
# WRONG: the dispatch accepts NCHW-contiguous and channels_last inputs alike ("both are dense") but the kernel's channel index assumes NCHW order; x.to(memory_format=torch.channels_last) -- the standard layout for conv nets with AMP on GPUs -- gets each element scaled by another channel's parameters. The judge's only non-contiguous layout transposes H and W, which is neither, and falls back.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def scale_bias_relu_kernel(x_ptr, s_ptr, b_ptr, out_ptr, n, C, HW, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = (offs // HW) % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    s = tl.load(s_ptr + c, mask=mask, other=0.0)
    b = tl.load(b_ptr + c, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x * s + b, 0.0, propagate_nan=tl.PropagateNan.ALL), mask=mask)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 8, 6, 6], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self, C):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))

    def forward(self, x):
        grad = torch.is_grad_enabled() and (x.requires_grad or self.scale.requires_grad or self.bias.requires_grad)
        dense = x.is_contiguous() or x.is_contiguous(memory_format=torch.channels_last)
        if (not grad and x.dim() == 4 and x.shape[0] >= 2 and x.shape[1] == self.scale.shape[0]
                and x.dtype == torch.float32 and self.scale.dtype == torch.float32 and dense and x.device.type == 'cpu'):
            out = torch.empty_like(x)          # keeps x's memory format
            n = x.numel()
            scale_bias_relu_kernel[(triton.cdiv(n, 1024),)](x, self.scale, self.bias, out, n, x.shape[1],
                                                             x.shape[2] * x.shape[3], BLOCK=1024)
            return out
        return torch.relu(x * self.scale.view(1, -1, 1, 1) + self.bias.view(1, -1, 1, 1))
