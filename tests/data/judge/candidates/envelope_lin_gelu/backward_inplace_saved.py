# expect: verdict=invalid stage=correctness check=gradients reason~"backward twice"
"""WRONG: custom autograd.Function whose backward adds the bias into its saved pre-activation *in place* (a
memory saving), kept on ctx rather than save_for_backward so no version check sees it. One backward is right
(the judge's); a second backward through the same graph (retain_graph=True: several losses backpropagated
one by one, torch.autograd.grad then .backward()) gets the GELU derivative at y + 2*bias: wrong gradients,
silently."""
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
        ctx.save_for_backward(x, weight, bias)
        ctx.y = y
        return bias_gelu(y, bias)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight, bias = ctx.saved_tensors
        v = ctx.y.add_(bias)             # reuse the saved buffer for y + bias
        gv = grad_out * gelu_grad(v)
        return torch.matmul(gv, weight), torch.matmul(gv.t(), x), gv.sum(0)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2 or x.dtype not in (torch.float32, torch.bfloat16):
            return torch.nn.functional.gelu(self.linear(x))
        return LinearGelu.apply(x, self.linear.weight, self.linear.bias)
