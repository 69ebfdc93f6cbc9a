# expect: verdict=invalid stage=correctness check=dtypes reason~"float16 trial"
"""WRONG: allocates the output as bfloat16 for bfloat16 inputs and float32 otherwise: after model.half() it
returns float32 for float16 inputs (the next float16 layer then raises on a dtype mismatch). The judge tries
bfloat16 only."""
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

def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def fallback(self, x):
        return torch.nn.functional.gelu(self.linear(x))

    def autograd(self, x):
        return torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters())) or _has_tangent(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.autograd(x) or x.dim() != 2 or not x.is_floating_point():
            return self.fallback(x)
        y = torch.matmul(x, self.linear.weight.t()).contiguous()
        out = torch.empty(y.shape, dtype=torch.bfloat16 if y.dtype == torch.bfloat16 else torch.float32,
                          device=y.device)
        n_rows, n_cols = y.shape
        bias_gelu_kernel[(n_rows,)](y, self.linear.bias, out, n_rows, n_cols, BLOCK_N=triton.next_power_of_2(n_cols))
        return out
