# expect: verdict=valid stage=ok reason~"Validated"
"""The buffer read by a Triton kernel, left alone."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, s_ptr, out_ptr, n, channels, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    s = tl.load(s_ptr + offs % channels, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * s).to(out_ptr.dtype.element_ty), mask=mask)


def scale(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](x, s, out, n, s.numel(), BLOCK=1024)
    return out


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.register_buffer("scale", torch.linspace(0.5, 2.0, channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad or _has_tangent(x) or x.shape[-1] != self.scale.shape[0] \
                or torch.float64 in (x.dtype, self.scale.dtype):
            return x * self.scale  # autograd, or a size the buffer does not take: the reference's own forward
        return scale(x, self.scale)
