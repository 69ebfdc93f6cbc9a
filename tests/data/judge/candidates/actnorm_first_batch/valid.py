# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: the same first-batch initialisation, then (x + loc) * exp(log_scale) in one Triton kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def actnorm_kernel(x_ptr, loc_ptr, log_scale_ptr, out_ptr, n, features, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    loc = tl.load(loc_ptr + offs % features, mask=mask, other=0.0).to(tl.float32)
    scale = tl.exp(tl.load(log_scale_ptr + offs % features, mask=mask, other=0.0).to(tl.float32))
    tl.store(out_ptr + offs, ((x + loc) * scale).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(features))
        self.log_scale = nn.Parameter(torch.zeros(features))
        self.initialized = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.initialized:
            with torch.no_grad():
                self.loc.copy_(-x.mean(0))
                self.log_scale.copy_(-torch.log(x.std(0) + 1e-6))
            self.initialized = True
        autograd = torch.is_grad_enabled() and (x.requires_grad or self.loc.requires_grad
                                                or self.log_scale.requires_grad)
        if autograd or x.dim() != 2 or x.shape[-1] != self.loc.shape[0] or x.dtype != self.loc.dtype \
                or torch.is_autocast_enabled(x.device.type) or x.dtype == torch.float64 \
                or torch.autograd.forward_ad.unpack_dual(x).tangent is not None:
            return (x + self.loc) * torch.exp(self.log_scale)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        if n:
            actnorm_kernel[(triton.cdiv(n, 1024),)](x, self.loc, self.log_scale, out, n, x.shape[-1], BLOCK=1024)
        return out
