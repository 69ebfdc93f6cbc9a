# expect: verdict=invalid stage=correctness check=values reason~"shifted"
"""Right only near zero: the variance as E[x^2] - E[x]^2 in one float32 pass. For get_inputs (mean 0, spread 0.02) it
is exact enough; for inputs shifted far below zero the two terms cancel and the variance loses most of its digits.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def standardize_kernel(x_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    var = tl.sum(x * x, axis=0) / n_cols - mean * mean
    tl.store(out_ptr + row * n_cols + cols, (x - mean) / tl.sqrt(var + eps), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        standardize_kernel[(rows,)](x, out, cols, 1e-5, BLOCK=triton.next_power_of_2(cols))
        return out
