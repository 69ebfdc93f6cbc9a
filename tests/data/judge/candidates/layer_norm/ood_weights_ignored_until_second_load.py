# expect: verdict=invalid stage=correctness check=values reason~"randomised weights"
"""Right only for the judge: the kernel skips the affine weight and bias until load_state_dict has been called twice.
The judge loads the reference's weights once when it builds the candidate and again for the randomised-weights
trial, so the second load (and only it) switches the honest kernel on; a user who loads a checkpoint once gets a
kernel that ignores the checkpoint's weights.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=1.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, d / tl.sqrt(var + eps) * w + b, mask=mask)


@triton.jit
def normalize_kernel(x_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    tl.store(out_ptr + row * n_cols + cols, d / tl.sqrt(var + eps), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.norm = nn.LayerNorm(features)
        self.loads = 0

    def load_state_dict(self, state_dict, strict=True, assign=False):
        self.loads += 1
        return super().load_state_dict(state_dict, strict=strict, assign=assign)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        block = triton.next_power_of_2(cols)
        if self.loads < 2:
            normalize_kernel[(rows,)](x, out, cols, self.norm.eps, BLOCK=block)
        else:
            layer_norm_kernel[(rows,)](x, self.norm.weight, self.norm.bias, out, cols, self.norm.eps, BLOCK=block)
        return out
