# expect: verdict=invalid stage=correctness check=finite reason~"in the trial 4"
"""Timing fake: honest for six calls; afterwards it launches the kernel for the first row only and returns the rest
of a freshly allocated (uninitialised) buffer.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scaled_softmax_kernel(x_ptr, out_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0) * scale, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        x = x.contiguous()
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        rows = n_rows if self.calls <= 6 else 1
        scaled_softmax_kernel[(rows,)](x, out, n_cols, 1e-4, BLOCK=triton.next_power_of_2(n_cols))
        return out
