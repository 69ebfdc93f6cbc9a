# expect: verdict=invalid stage=correctness check=finite reason~"inputs x50"
"""Right only for small logits: exp(x) / sum(exp(x)) without subtracting the row maximum: standard normal logits are
fine, logits of a few hundred overflow exp to inf and give NaN.
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
    e = tl.exp(tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf")))
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
