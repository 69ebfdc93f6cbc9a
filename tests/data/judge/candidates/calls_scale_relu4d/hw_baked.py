# expect: verdict=invalid stage=correctness check=shapes reason~"fixed-size trial (a dim of 6 -> 9)"
# WRONG: the kernel bakes H*W = 36 (the example's 6x6 image) into its channel index and the dispatch checks only rank, C, dtype and contiguity; a call with another image size (model(torch.randn(4, 8, 10, 10)), a different resolution at inference) reaches the Triton path and applies the wrong channel's scale/bias. The judge varies only dim 0 (and dim 1 = C, rejected), never H or W.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def scale_bias_relu_kernel(x_ptr, s_ptr, b_ptr, out_ptr, n, C: tl.constexpr, HW: tl.constexpr, BLOCK: tl.constexpr):
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
        self.C = C

    def _reference_forward(self, x):
        return torch.relu(x * self.scale.view(1, -1, 1, 1) + self.bias.view(1, -1, 1, 1))

    def forward(self, x):
        grad = torch.is_grad_enabled() and (x.requires_grad or self.scale.requires_grad or self.bias.requires_grad)
        if (not grad and x.dim() == 4 and x.shape[0] >= 2 and x.shape[1] == self.C and x.dtype == torch.float32
                and self.scale.dtype == torch.float32 and x.is_contiguous() and x.device.type == 'cpu'):
            out = torch.empty_like(x)
            n = x.numel()
            scale_bias_relu_kernel[(triton.cdiv(n, 1024),)](x, self.scale, self.bias, out, n, C=self.C, HW=36, BLOCK=1024)
            return out
        return self._reference_forward(x)
