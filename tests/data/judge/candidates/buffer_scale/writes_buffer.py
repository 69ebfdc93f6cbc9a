# expect: verdict=invalid stage=correctness check=state reason~"changes the module's buffer(s) scale; the reference's does not"
"""Right output, but the forward rescales its buffer in place afterwards (it drifts from call to call)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, s_ptr, out_ptr, n, channels, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    s = tl.load(s_ptr + offs % channels, mask=mask)
    tl.store(out_ptr + offs, x * s, mask=mask)


def scale(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](x, s, out, n, s.numel(), BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.register_buffer("scale", torch.linspace(0.5, 2.0, channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = scale(x, self.scale)
        self.scale.mul_(1.01)
        return out
