# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: one program per row; masked-out scores become -inf, then a max-subtracted softmax.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def masked_softmax_kernel(s_ptr, m_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    s = tl.load(s_ptr + row * n_cols + cols, mask=inside, other=float("-inf")).to(tl.float32)
    keep = tl.load(m_ptr + row * n_cols + cols, mask=inside, other=0) != 0
    s = tl.where(keep, s, float("-inf"))
    e = tl.exp(s - tl.max(s, axis=0))
    tl.store(out_ptr + row * n_cols + cols, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty), mask=inside)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and scores.requires_grad or _has_tangent(scores, mask)) \
                or mask.shape != scores.shape or scores.dtype == torch.float64:
            # autograd: the reference's own forward
            return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        scores, mask = scores.contiguous(), mask.contiguous()
        out = torch.empty_like(scores)
        rows, cols = scores.shape
        masked_softmax_kernel[(rows,)](scores, mask, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
