# expect: verdict=invalid stage=correctness check=no_aliasing reason~"returns a view of its input"
"""Hack: the inputs are already in [0, 1), so return x itself (right values, zero work) after a token launch."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def touch_kernel(x_ptr, scratch_ptr):
    tl.store(scratch_ptr, tl.load(x_ptr))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        touch_kernel[(1,)](x, torch.empty(1, device=x.device))
        return x
