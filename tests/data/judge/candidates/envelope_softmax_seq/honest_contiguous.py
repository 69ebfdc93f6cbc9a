# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: the scores made contiguous before the row kernel reads them; other ranks fall back."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ENVELOPE = {
    "device_types": ["cuda", "cpu"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", 16]}],
    "parameter_dtypes": [],
    "eval_only": [], "train_only": [],
    "autograd": False,
}


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + cols, (e / tl.sum(e, axis=0)).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and scores.requires_grad or _has_tangent(scores)) or scores.dim() != 2 \
                or scores.dtype == torch.float64:
            return torch.softmax(scores, dim=-1)
        scores = scores.contiguous()
        out = torch.empty(scores.shape, dtype=scores.dtype, device=scores.device)
        softmax_kernel[(scores.shape[0],)](scores, out, scores.shape[1], BLOCK=triton.next_power_of_2(scores.shape[1]))
        return out
