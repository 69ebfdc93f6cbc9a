# expect: verdict=invalid stage=correctness check=shapes reason~"shape trial (B: 64 -> 32)"
"""Right for get_inputs' shape only: the output is allocated at the traced (64, 128), so another batch size gets an
output of the wrong shape."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

BATCH, FEATURES = 64, 128     # get_inputs' shape


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
        if torch.is_grad_enabled() and x.requires_grad:
            return torch.relu(x * 2 + 1)
        x = x.contiguous()
        out = torch.empty(BATCH, FEATURES, dtype=x.dtype, device=x.device)
        n = min(x.numel(), out.numel())
        affine_relu_kernel[(triton.cdiv(BATCH * FEATURES, 1024),)](x, out, n, BLOCK=1024)
        return out
