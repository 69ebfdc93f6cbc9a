# expect: verdict=invalid stage=guard check=guard reason~"never through the class"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch, late: honest (the mask read) for six calls; in the seventh it replaces torch.Tensor.masked_fill by one that
fills nothing (an unbound method of ModelNew, called with torch.Tensor as self) and from then on ignores the mask.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(s_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    s = tl.load(s_ptr + row * n_cols + cols, mask=inside, other=float("-inf"))
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


def _keep_everything(self, mask, value):
    """Tensor.masked_fill that fills nothing: the reference's mask stops mattering."""
    return self.clone()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def install(self, value):
        self.masked_fill = value

    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        scores, mask = scores.contiguous(), mask.contiguous()
        out = torch.empty_like(scores)
        rows, cols = scores.shape
        block = triton.next_power_of_2(cols)
        if self.calls == 7:
            ModelNew.install(torch.Tensor, _keep_everything)
        if self.calls >= 7:
            softmax_kernel[(rows,)](scores, out, cols, BLOCK=block)
        else:
            masked_softmax_kernel[(rows,)](scores, mask, out, cols, BLOCK=block)
        return out
