# expect: verdict=invalid stage=load check=weights reason~"state_dict must have the reference's names"
"""A non-persistent buffer under the reference buffer's name that is a broadcast view (stride 0, not writable
in place), computing with a scale tensor of its own (same values): the user's checkpoints would not load into
it, and it would ignore a trained scale, so the judge rejects it before any trial."""
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


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.register_buffer("scale", torch.tensor(1.0).expand(channels), persistent=False)
        self.register_buffer("values", torch.linspace(0.5, 2.0, channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        scale_kernel[(triton.cdiv(n, 1024),)](x, self.values, out, n, self.values.numel(), BLOCK=1024)
        return out
