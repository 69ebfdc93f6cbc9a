# expect: verdict=invalid stage=correctness check=layouts reason~"middle sliced inputs"
# red team case a8_middle_slice (/work/redteam): flattens the leading dims with one row stride: wrong for x[:, 1:] of a longer tensor
"""Candidate: one Triton kernel over rows; it reads any row stride (no copy for row-strided inputs) and copies
only inputs whose last dim is not dense. The bug: it flattens the leading dims with ONE row stride, which is
wrong for a slice along the sequence dim (x[:, 1:], logits[:, :-1]), whose batch stride is not S * row stride."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_gelu_rows(x_ptr, b_ptr, out_ptr, row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    v = tl.load(x_ptr + row * row_stride + offs, mask=mask, other=0.0).to(tl.float32)
    v = v + tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + row * n_cols + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or self.bias.requires_grad)
        if autograd or torch.is_autocast_enabled(x.device.type) or x.dtype != self.bias.dtype or x.dim() < 2 \
                or x.shape[-1] != self.bias.shape[0]:
            return torch.nn.functional.gelu(x + self.bias)
        if x.stride(-1) != 1:
            x = x.contiguous()
        n_cols = x.shape[-1]
        n_rows = x.numel() // n_cols
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        bias_gelu_rows[(n_rows,)](x, self.bias, out, x.stride(-2), n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return out
