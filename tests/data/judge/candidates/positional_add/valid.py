# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: the table read per (position, feature), any batch size; autograd runs the reference's expression."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def positional_add_kernel(x_ptr, pos_ptr, out_ptr, n, table_size, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    p = tl.load(pos_ptr + offs % table_size, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + p).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, seq: int, features: int):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(seq, features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and (x.requires_grad or self.pos.requires_grad) or _has_tangent(x)) \
                or x.shape[-2:] != self.pos.shape or x.dtype != self.pos.dtype or x.dtype == torch.float64:
            return x + self.pos  # autograd, or a sequence the table broadcasts over: the reference's own forward
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        positional_add_kernel[(triton.cdiv(n, 1024),)](x, self.pos.contiguous(), out, n, self.pos.numel(),
                                                       BLOCK=1024)
        return out
