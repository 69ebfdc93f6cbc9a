# expect: verdict=invalid stage=correctness check=shapes reason~"shape trial (B: 8 -> 133)"
"""WRONG: one program covers a fixed 16-row block (twice the traced batch "for headroom"), rows masked to B:
right for every B <= 16 (the judge's 4, 16 and 7), rows 16.. never written for B > 16, though B is declared
free."""
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
def bias_gelu_block_kernel(y_ptr, b_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < n_rows) & (cols < n_cols)
    y = tl.load(y_ptr + rows * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    v = y + b
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + rows * n_cols + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


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
        out = torch.empty_like(y)
        n_rows, n_cols = y.shape
        bias_gelu_block_kernel[(1,)](y, self.linear.bias, out, n_rows, n_cols, BLOCK_M=16,
                                     BLOCK_N=triton.next_power_of_2(n_cols))
        return out
