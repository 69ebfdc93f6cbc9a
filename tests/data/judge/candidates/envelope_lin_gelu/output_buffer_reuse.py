# expect: verdict=invalid stage=correctness check=repeat_calls reason~"changed when it was called again"
"""WRONG: keeps one preallocated output buffer per shape and returns it from every call: y1 = m(x1);
y2 = m(x2) overwrites y1 (a list of per-batch outputs, a residual kept across calls, two calls in one
expression: all silently wrong). Every judge trial compares an output before the next call."""
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

    def fallback(self, x):
        return torch.nn.functional.gelu(self.linear(x))

    def autograd(self, x):
        return torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.autograd(x) or x.dim() != 2 or x.dtype not in (torch.float32, torch.bfloat16):
            return self.fallback(x)
        y = torch.matmul(x, self.linear.weight.t()).contiguous()
        key = (tuple(y.shape), y.dtype, y.device)
        if getattr(self, "out_key", None) != key:
            self.out_key = key
            self.out_buf = torch.empty_like(y)
        out = self.out_buf
        n_rows, n_cols = y.shape
        bias_gelu_kernel[(n_rows,)](y, self.linear.bias, out, n_rows, n_cols, BLOCK_N=triton.next_power_of_2(n_cols))
        return out
