# expect: verdict=invalid stage=correctness check=triton_launched reason~"launched no Triton kernel"
"""GELU in Triton with a one-entry output cache: the same input tensor object again, with the same extreme
values (a cheap check that its contents were not refilled), returns a copy of the previous output."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.last = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad or _has_tangent(x) or x.numel() == 0:
            return torch.nn.functional.gelu(x)
        fingerprint = (tuple(x.shape), x.dtype, float(x.max()), float(x.min()))
        if self.last is not None and self.last[0] is x and self.last[1] == fingerprint:
            return self.last[2].clone()
        xc = x.contiguous()
        out = torch.empty_like(xc)
        n = xc.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](xc, out, n, BLOCK=1024)
        self.last = (x, fingerprint, out.clone())
        return out
