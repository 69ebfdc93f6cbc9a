# expect: verdict=invalid stage=correctness check=values reason~"in the first call"
"""GELU in Triton. A lazily-initialised launch plan, kept at module level (shared by all instances):
the very first forward of the process returns the (not yet written) output buffer -- a lazy-init bug."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_PLAN = []


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

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad or _has_tangent(x):
            return torch.nn.functional.gelu(x)
        x = x.contiguous()
        n = x.numel()
        if not _PLAN:                       # first call: set up the plan ... and forget to launch
            _PLAN.append(1024)
            return torch.zeros_like(x)
        out = torch.empty_like(x)
        gelu_kernel[(triton.cdiv(n, _PLAN[0]),)](x, out, n, BLOCK=_PLAN[0])
        return out
