# expect: verdict=invalid stage=correctness check=program reason~"hooks trial (a forward pre-hook and hook on linear)"
# red team case a5_hide_modules (/work/redteam): named_modules() overridden to hide self.linear from the hooks trial; the forward never calls self.linear, so hooks never run
"""Candidate: reads self.linear's weight and never calls the layer, so hooks on it never run; named_modules()
called without arguments (as the judge's hooks trial calls it) lists only the root, so no hook is tried."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_shift_gelu_kernel(y_ptr, bias_ptr, shift_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_cols
    v = tl.load(y_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    v = v + tl.load(bias_ptr + offs, mask=mask, other=0.0).to(tl.float32) \
        + tl.load(shift_ptr + offs, mask=mask, other=0.0).to(tl.float32)
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
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)

    def named_modules(self, memo=None, prefix=None, remove_duplicate=True):
        if prefix is None:                     # a caller outside nn.Module's own machinery
            return iter([("", self)])
        return super().named_modules(memo, prefix, remove_duplicate)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.linear.weight
        autograd = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or self.linear.bias.requires_grad
                                                or self.shift.requires_grad) or _has_tangent(x)
        if autograd or x.dtype != torch.float32 or w.dtype != torch.float32 or torch.is_autocast_enabled(x.device.type):
            return torch.nn.functional.gelu(self.linear(x) + self.shift)
        x2 = x.reshape(-1, x.shape[-1])
        y = torch.mm(x2, w.t()).contiguous()
        out = torch.empty_like(y)
        n_rows, n_cols = y.shape
        bias_shift_gelu_kernel[(n_rows, triton.cdiv(n_cols, 128))](y, self.linear.bias, self.shift, out, n_cols,
                                                                   BLOCK=128)
        return out.reshape(*x.shape[:-1], n_cols)
