# expect: verdict=invalid stage=correctness check=shapes reason~"shape trial (S: 8 -> 1)"
"""WRONG: reads the positional table at (flat offset) % (8 * dim), the traced sequence length hard-coded: for
S > 8 positions 8.. get the table's rows 0.. again. ENVELOPE declares B and S free. The judge's S trials
resize x's dim 1 but not pos's dim 0 (only the same dim of each input is resized), the reference then
raises, and all three S trials are skipped: S is never checked."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ENVELOPE = {
    "device_types": ["cuda", "cpu"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", "S", 16]}, {"dtype": "torch.float32", "sizes": ["S", 16]}],
    "parameter_dtypes": ["torch.float32"],
    "eval_only": [], "train_only": [],
    "autograd": False,
}


@triton.jit
def scale_pos_kernel(x_ptr, s_ptr, p_ptr, out_ptr, n, D: tl.constexpr, SEQ: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    s = tl.load(s_ptr + offs % D, mask=mask, other=0.0)
    p = tl.load(p_ptr + offs % (SEQ * D), mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * s + p, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or pos.requires_grad or self.scale.requires_grad)
        if autograd or x.dim() != 3 or x.dtype != torch.float32 or pos.dtype != torch.float32:
            return x * self.scale + pos
        x, pos = x.contiguous(), pos.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        scale_pos_kernel[(triton.cdiv(n, 256),)](x, self.scale, pos, out, n, D=x.shape[2], SEQ=8, BLOCK=256)
        return out
