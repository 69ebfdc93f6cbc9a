# expect: verdict=invalid stage=correctness check=dtypes reason~"bfloat16 trial (at B = 35)"
"""WRONG: for 16-bit inputs the epilogue kernel handles two rows per program (vectorised loads) and launches
B // 2 programs: at an odd batch in bfloat16 the last row is never written (uninitialised memory). float32
is right at every B (B declared free); the bfloat16 trial runs only at get_inputs' even B = 8."""
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
def bias_gelu_rows_kernel(y_ptr, b_ptr, out_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    offs = tl.arange(0, BLOCK_N)
    mask = offs < n_cols
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    for r in tl.static_range(ROWS):
        row = tl.program_id(0) * ROWS + r
        y = tl.load(y_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
        v = y + b
        out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
        tl.store(out_ptr + row * n_cols + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


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
        if self.autograd(x) or x.dim() != 2 or x.dtype not in (torch.float32, torch.bfloat16):
            return self.fallback(x)
        y = torch.matmul(x, self.linear.weight.t()).contiguous()
        out = torch.empty_like(y)
        n_rows, n_cols = y.shape
        rows = 2 if y.element_size() == 2 else 1
        bias_gelu_rows_kernel[(n_rows // rows,)](y, self.linear.bias, out, n_rows, n_cols, ROWS=rows,
                                                 BLOCK_N=triton.next_power_of_2(n_cols))
        return out
