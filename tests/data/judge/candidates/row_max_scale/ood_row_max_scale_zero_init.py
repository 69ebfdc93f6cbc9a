# expect: verdict=invalid stage=correctness check=finite reason~"shifted"
"""Right only when some value in every row is positive: the row maximum starts at 0 with 0 padding, so a row of
negative values is divided by 0 (inf) where the reference divides by its (negative) maximum.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def max_scale_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    scale = tl.maximum(tl.max(x, axis=0), 0.0)
    tl.store(out_ptr + row * n_cols + cols, x / scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        max_scale_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
