"""Example candidate: cuBLAS (torch) for the GEMM, the whole epilogue (bias, shift, exact GELU) in one Triton kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_shift_gelu_kernel(y_ptr, bias_ptr, shift_ptr, out_ptr, n_rows, n_cols,
                           BLOCK_SIZE_N: tl.constexpr):
    # out[r, c] = gelu(y[r, c] + bias[c] + shift[c]), exact (erf) GELU; one program per row block.
    row = tl.program_id(0)
    offs_n = tl.program_id(1) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = offs_n < n_cols
    y = tl.load(y_ptr + row * n_cols + offs_n, mask=mask, other=0.0)
    b = tl.load(bias_ptr + offs_n, mask=mask, other=0.0) + tl.load(shift_ptr + offs_n, mask=mask, other=0.0)
    v = y + b
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + row * n_cols + offs_n, out, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1])
        y = torch.matmul(x2, self.linear.weight.t()).contiguous()
        out = torch.empty_like(y)
        n_rows, n_cols = y.shape
        BLOCK_SIZE_N = 128
        grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE_N))
        bias_shift_gelu_kernel[grid](y, self.linear.bias, self.shift, out, n_rows, n_cols,
                                     BLOCK_SIZE_N=BLOCK_SIZE_N)
        return out.reshape(*x.shape[:-1], n_cols)
