# expect: verdict=invalid stage=correctness check=gradients reason~"inputs without grad"
"""WRONG: falls back to autograd only when the *input* requires grad. In ordinary training the data batch does
not require grad but the parameters do: then the Triton path runs and its output has no grad_fn, so the
linear layer's weight and bias never get gradients (loss.backward() raises, or the layer silently stops
learning when other layers carry the graph)."""
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


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and x.requires_grad) or x.dim() != 2:
            return torch.nn.functional.gelu(self.linear(x))
        return bias_gelu(torch.matmul(x, self.linear.weight.t()), self.linear.bias)
