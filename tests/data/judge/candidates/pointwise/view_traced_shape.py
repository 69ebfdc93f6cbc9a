# expect: verdict=invalid stage=runtime check=shapes reason~"(in the shape trial (B: 64 -> 32)): ModelNew must give"
"""Views its input at the traced shape (64, 128): any other batch size raises in the view."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_relu_rows_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask).to(tl.float32)
    y = tl.maximum(x * 2.0 + 1.0, 0.0)
    tl.store(out_ptr + row * n_cols + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad:
            return torch.relu(x * 2 + 1)
        rows = x.contiguous().view(64, 128)
        out = torch.empty_like(rows)
        affine_relu_rows_kernel[(64,)](rows, out, 128, BLOCK=128)
        return out
