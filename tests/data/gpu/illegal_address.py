"""Candidate for the fused_bias_gelu example that writes far outside its output: a CUDA illegal address."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def out_of_bounds_kernel(out_ptr, shift, BLOCK_SIZE: tl.constexpr):
    # shift is 2**40 (an int64 argument): every store lands a terabyte past the buffer
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE) + shift
    tl.store(out_ptr + offs, tl.zeros([BLOCK_SIZE], tl.float32))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)

    def forward(self, x):
        out = torch.nn.functional.gelu(self.linear(x) + self.shift)
        out_of_bounds_kernel[(4,)](out, 1 << 40, BLOCK_SIZE=128)
        return out
