# expect: verdict=invalid stage=correctness check=state reason~"changed its parameter(s) linear.weight"
"""WRONG (control): custom autograd.Function whose backward also applies a "fused weight decay" to the weight
in place (weight *= 0.999): every backward silently changes the parameters. Expected to be caught only
indirectly, by a later trial that uses the modified weights."""
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
        gv = grad_out * gelu_grad(y + bias)
        dx, dw = torch.matmul(gv, weight), torch.matmul(gv.t(), x)
        weight.mul_(0.999)
        return dx, dw, gv.sum(0)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2 or x.dtype not in (torch.float32, torch.bfloat16):
            return torch.nn.functional.gelu(self.linear(x))
        return LinearGelu.apply(x, self.linear.weight, self.linear.bias)

