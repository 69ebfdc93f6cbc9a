# expect: verdict=invalid stage=correctness check=shapes reason~"shape trial (B: 64 -> 7)"
"""No mask and a grid of n // BLOCK programs: right whenever 1024 divides the element count (the traced 64 x 128,
and 32 or 128 rows), while 7 rows (896 elements) launch no program and return the zeros it started from."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_relu_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0).to(out_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad:
            return torch.relu(x * 2 + 1)
        x = x.contiguous()
        out = torch.zeros_like(x)
        affine_relu_kernel[(x.numel() // 1024,)](x, out, BLOCK=1024)
        return out
