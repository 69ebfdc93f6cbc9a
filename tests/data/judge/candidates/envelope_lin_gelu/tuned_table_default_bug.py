# expect: verdict=invalid stage=correctness check=shapes reason~"shape trial (B: 8 -> 1)"
"""WRONG: a table of launch configs "tuned" at the batch sizes the judge is known to try (B/2, B, 2B, 7: they
are fixed by envelope.variant_sizes, so a proposer that tunes where it will be judged learns exactly these);
any other batch size gets the default config, 4 rows per program with a floor-divided grid B // 4, which
drops the last B % 4 rows (B = 3, 5, 6, 9, 10, ... 32 and 64 are fine)."""
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
    rows = (tl.program_id(0) * ROWS + tl.arange(0, ROWS))[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < n_rows) & (cols < n_cols)
    b = tl.load(b_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + rows * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    v = y + b
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + rows * n_cols + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


TUNED = {4: 1, 7: 1, 8: 2, 16: 4}     # batch size -> rows per program (and one program per ROWS rows, rounded up)


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
        if n_rows in TUNED:
            rows = TUNED[n_rows]
            grid = (triton.cdiv(n_rows, rows),)
        else:
            rows = 4
            grid = (n_rows // 4,)
        bias_gelu_rows_kernel[grid](y, self.linear.bias, out, n_rows, n_cols, ROWS=rows,
                                    BLOCK_N=triton.next_power_of_2(n_cols))
        return out
