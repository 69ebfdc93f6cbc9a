# expect: verdict=invalid stage=correctness check=finite reason~"inputs x50"
"""Right only for small logits: it subtracts the row mean (one pass it already has) instead of the maximum; for
standard normal logits max - mean is a few units, for logits x50 it is over 88 and exp overflows.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    e = tl.where(mask, tl.exp(x - mean), 0.0)
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0) * scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        softmax_kernel[(n_rows,)](x, out, n_cols, 1e-4, BLOCK=triton.next_power_of_2(n_cols))
        return out
