# expect: verdict=invalid stage=correctness check=values reason~"randomised weights"
"""Right only at the initial buffers: the running mean and variance start at 0 and 1, so the kernel uses
x / sqrt(1 + eps) and never reads them (the affine weight and bias it does use).
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bn_eval_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n, n_cols, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = offs % n_cols
    x = tl.load(x_ptr + offs, mask=mask)
    w = tl.load(w_ptr + c, mask=mask)
    b = tl.load(b_ptr + c, mask=mask)
    tl.store(out_ptr + offs, x / tl.sqrt(1.0 + eps) * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm1d(channels)
        self.bn.eval()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        bn_eval_kernel[(triton.cdiv(n, 512),)](x, self.bn.weight, self.bn.bias, out, n, x.shape[1], self.bn.eps,
                                               BLOCK=512)
        return out
