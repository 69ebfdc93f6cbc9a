# expect: verdict=invalid stage=correctness check=gradients reason~"training through ModelNew must work"
"""Right on every call without autograd (other sizes, bfloat16), but Triton only: with autograd on, its output does
not require grad, so a training step through the patched module would fail (or silently train nothing)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        affine_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
