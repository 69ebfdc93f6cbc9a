# expect: verdict=invalid stage=correctness check=envelope reason~"declares S free, but no other size of it"
"""WRONG: softmax over the sequence with the block fixed at the traced sequence length (16) and masked to it:
for S > 16 only the first 16 scores are normalised and the rest of the row is never written; for S < 16
right. ENVELOPE declares both B and S free. The judge varies S only for inputs of rank >= 3, so this
(batch, seq) input's S is never tried."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ENVELOPE = {
    "device_types": ["cuda", "cpu"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", "S"]}],
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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and scores.requires_grad) or scores.dim() != 2:
            return torch.softmax(scores, dim=-1)
        x = scores.contiguous()
        out = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=16)
        return out
