# expect: verdict=invalid stage=correctness check=program reason~"swapped submodule trial (act, a GELU"
# WRONG (red team 2026-12-04, a9): exact GELU inlined; a program that swaps model.act gets GELU still.
"""Linear GEMM in torch, bias + exact GELU epilogue in Triton (any batch); autograd, hooks, other dtypes and ranks
fall back to the original forward. The activation module is the reference's nn.GELU (kept for state and hooks)."""
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


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.act = nn.GELU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2 or x.dtype != torch.float32 or self.linear.weight.dtype != torch.float32 \
                or (torch.is_grad_enabled() and (x.requires_grad or self.linear.weight.requires_grad
                                                 or self.linear.bias.requires_grad)) \
                or torch.is_autocast_enabled(x.device.type) \
                or self.linear._forward_hooks or self.linear._forward_pre_hooks \
                or self.act._forward_hooks or self.act._forward_pre_hooks \
                or torch.autograd.forward_ad.unpack_dual(x).tangent is not None:
            return self.act(self.linear(x))
        y = torch.matmul(x, self.linear.weight.t()).contiguous()
        out = torch.empty_like(y)
        n_rows, n_cols = y.shape
        bias_gelu_kernel[(n_rows,)](y, self.linear.bias, out, n_rows, n_cols, BLOCK_N=triton.next_power_of_2(n_cols))
        return out
