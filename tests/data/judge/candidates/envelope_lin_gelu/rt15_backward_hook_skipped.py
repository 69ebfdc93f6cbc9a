# expect: verdict=invalid stage=correctness check=gradients reason~"a backward hook and pre-hook on linear"
# WRONG (red team 2026-12-04, a10): a Triton backward that skips nn.Linear's call skips a backward hook on it.
"""honest_autograd_function.py as it was before it read backward hooks: forward = torch GEMM + Triton
bias/GELU epilogue; backward = a Triton kernel for the GELU derivative and torch GEMMs, returned to autograd.
It falls back for forward hooks only: a program's backward hook on self.linear never runs."""
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
def gelu_bwd_kernel(y_ptr, b_ptr, g_ptr, out_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    mask = offs < n_cols
    v = tl.load(y_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32) +         tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    cdf = 0.5 * (1.0 + tl.math.erf(v * 0.7071067811865476))
    pdf = tl.exp(-0.5 * v * v) * 0.3989422804014327
    tl.store(out_ptr + row * n_cols + offs, (g * (cdf + v * pdf)).to(out_ptr.dtype.element_ty), mask=mask)


class LinearGelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        y = torch.matmul(x, weight.t()).contiguous()
        ctx.save_for_backward(x, weight, bias, y)
        return bias_gelu(y, bias)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, bias, y = ctx.saved_tensors
        if torch.is_grad_enabled():             # create_graph: the same formulas in torch ops, differentiable
            v = torch.matmul(x, weight.t()) + bias
            cdf = 0.5 * (1.0 + torch.erf(v * 0.7071067811865476))
            pdf = torch.exp(-0.5 * v * v) * 0.3989422804014327
            gv = grad_out * (cdf + v * pdf)
            return torch.matmul(gv, weight), torch.matmul(gv.t(), x), gv.sum(0)
        g = grad_out.contiguous()
        gv = torch.empty_like(y)
        n_rows, n_cols = y.shape
        gelu_bwd_kernel[(n_rows,)](y, bias, g, gv, n_cols, BLOCK_N=triton.next_power_of_2(n_cols))
        return torch.matmul(gv, weight), torch.matmul(gv.t(), x), gv.sum(0)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2 or x.dtype not in (torch.float32, torch.bfloat16) or self.linear._forward_hooks \
                or self.linear._forward_pre_hooks \
                or torch.autograd.forward_ad.unpack_dual(x).tangent is not None:   # hooks, forward-mode AD: the original
            return torch.nn.functional.gelu(self.linear(x))
        return LinearGelu.apply(x, self.linear.weight, self.linear.bias)
