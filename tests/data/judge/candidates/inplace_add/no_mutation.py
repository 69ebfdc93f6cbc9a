# expect: verdict=invalid stage=correctness check=inputs_unchanged reason~"modifies its inputs in place and the candidate does not"
"""Wrong: returns the right values, (x + 1) * 2, but leaves x alone where the reference adds 1 to it in place."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_one_double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, (tl.load(x_ptr + offs, mask=mask) + 1.0) * 2.0, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        add_one_double_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
