# expect: verdict=valid stage=ok reason~"Validated"
# LEGIT: the noise drawn with the reference's own call (torch.randn_like(mu), on mu itself: the same shape and layout, so the same numbers from the same generator state), then mu + eps * exp(logvar / 2) in one Triton kernel. Autograd and autocast run the reference's code.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def reparam_kernel(mu_ptr, logvar_ptr, eps_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    mu = tl.load(mu_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    logvar = tl.load(logvar_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    eps = tl.load(eps_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = mu + eps * tl.exp(0.5 * logvar)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
        eps = torch.randn_like(mu)
        autograd = torch.is_grad_enabled() and (mu.requires_grad or logvar.requires_grad) or _has_tangent(mu, logvar)
        if autograd or torch.is_autocast_enabled(mu.device.type) or mu.dtype != logvar.dtype \
                or mu.dtype == torch.float64:
            return mu + eps * torch.exp(0.5 * logvar)
        shape = torch.broadcast_shapes(mu.shape, logvar.shape)
        if shape != mu.shape:
            return mu + eps * torch.exp(0.5 * logvar)
        m = mu.contiguous()
        lv = logvar.expand(shape).contiguous()
        e = eps.contiguous()
        out = torch.empty_like(m)
        n = m.numel()
        reparam_kernel[(triton.cdiv(n, 1024),)](m, lv, e, out, n, BLOCK=1024)
        return out
