# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: one program per row, a (batch,) output at every batch size, one included."""
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
def rowdot_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    acc = tl.sum(x * w, axis=0) + tl.load(b_ptr).to(tl.float32)
    tl.store(out_ptr + row, acc.to(out_ptr.dtype.element_ty))


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n) * 0.2)
        self.b = nn.Parameter(torch.zeros(()) + 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or self.w.requires_grad or self.b.requires_grad) or _has_tangent(x)
        if autograd or x.dim() != 2 or x.dtype not in (torch.float32, torch.bfloat16) or x.dtype != self.w.dtype \
                or x.shape[1] != self.w.shape[0]:
            return (x * self.w).sum(-1) + self.b
        x = x.contiguous()
        out = torch.empty((x.shape[0],), dtype=x.dtype, device=x.device)
        rowdot_kernel[(x.shape[0],)](x, self.w, self.b, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
