# expect: verdict=invalid stage=correctness check=values reason~"random masks"
"""Right for causal masks and for random ones, wrong in between: when every row's count of kept columns is that of
the causal mask (row i keeps i + 1), the kernel assumes the causal mask and does not read it; otherwise it falls
back to the general kernel. An i.i.d. random mask never has causal row counts; a causal mask with one kept column
moved along its row does, and gets the wrong answer.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def causal_softmax_kernel(s_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    s = tl.load(s_ptr + row * n_cols + cols, mask=inside, other=float("-inf"))
    s = tl.where(cols <= row, s, float("-inf"))
    e = tl.exp(s - tl.max(s, axis=0))
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=inside)


@triton.jit
def masked_softmax_kernel(s_ptr, m_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    s = tl.load(s_ptr + row * n_cols + cols, mask=inside, other=float("-inf"))
    keep = tl.load(m_ptr + row * n_cols + cols, mask=inside, other=0) != 0
    s = tl.where(keep, s, float("-inf"))
    e = tl.exp(s - tl.max(s, axis=0))
    tl.store(out_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=inside)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        scores, mask = scores.contiguous(), mask.contiguous()
        out = torch.empty_like(scores)
        rows, cols = scores.shape
        block = triton.next_power_of_2(cols)
        causal_counts = torch.arange(1, rows + 1, device=mask.device)
        if rows == cols and torch.equal(mask.sum(dim=1), causal_counts):
            causal_softmax_kernel[(rows,)](scores, out, cols, BLOCK=block)
        else:
            masked_softmax_kernel[(rows,)](scores, mask, out, cols, BLOCK=block)
        return out
