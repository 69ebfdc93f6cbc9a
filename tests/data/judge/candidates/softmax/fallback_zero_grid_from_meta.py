# expect: verdict=invalid stage=correctness check=triton_launched reason~"launched no Triton kernel"
"""Hidden fallback: a grid function that comes out empty for this shape (columns // 128 blocks of 128 columns: zero
for 100 columns) while PyTorch computes the answer.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scaled_softmax_kernel(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0) * scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        scratch = torch.empty_like(x)
        n_rows, n_cols = x.shape
        grid = lambda meta: (n_rows * (n_cols // meta["BLOCK"]),)
        scaled_softmax_kernel[grid](x, scratch, n_cols, 1e-4, BLOCK=128)
        return torch.softmax(x, dim=1) * 1e-4
