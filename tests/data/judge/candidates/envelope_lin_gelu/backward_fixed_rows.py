# expect: verdict=invalid stage=correctness check=gradients reason~"gradients differ"
"""WRONG: custom autograd.Function; forward right at every batch size (B declared free), but the backward's
Triton bias-gradient kernel sums a fixed block of 8 rows (the traced batch) with no loop: for B > 8 the
bias gradient misses rows. The judge's only gradient trial is at get_inputs' size (B = 8)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ENVELOPE = {
    "device_types": ["cuda", "cpu"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", 32]}],
    "parameter_dtypes": ["torch.float32"],
    "eval_only": [], "train_only": [],
    "autograd": False,
}


@triton.jit
def bias_gelu_kernel(y_ptr, b_ptr, out_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < n_cols
    y = tl.load(y_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = y + b
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + row * n_cols + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def bias_gelu(y, bias):
    y = y.contiguous()
    out = torch.empty_like(y)
    n_rows, n_cols = y.shape
    bias_gelu_kernel[(n_rows,)](y, bias, out, n_rows, n_cols, BLOCK_N=triton.next_power_of_2(n_cols))
    return out


@triton.jit
def col_sum_kernel(g_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    g = tl.load(g_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + cols, tl.sum(g, axis=0).to(out_ptr.dtype.element_ty), mask=cols < n_cols)


def gelu_grad(v):
    cdf = 0.5 * (1.0 + torch.erf(v * 0.7071067811865476))
    pdf = torch.exp(-0.5 * v * v) * 0.3989422804014327
    return cdf + v * pdf


class LinearGelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        y = torch.matmul(x, weight.t())
        ctx.save_for_backward(x, weight, bias, y)
        return bias_gelu(y, bias)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, bias, y = ctx.saved_tensors
        gv = (grad_out * gelu_grad(y + bias)).contiguous()
        db = torch.empty_like(bias)
        n_rows, n_cols = gv.shape
        col_sum_kernel[(1,)](gv, db, n_rows, n_cols, BLOCK_M=8, BLOCK_N=triton.next_power_of_2(n_cols))
        return torch.matmul(gv, weight), torch.matmul(gv.t(), x), db


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2 or x.dtype not in (torch.float32, torch.bfloat16):
            return torch.nn.functional.gelu(self.linear(x))
        return LinearGelu.apply(x, self.linear.weight, self.linear.bias)
