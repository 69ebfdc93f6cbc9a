# expect: verdict=invalid stage=correctness check=gradients reason~"float64 evaluation"
# WRONG: right without autograd, but with autograd on it draws the noise (as the reference does, so the generator ends where the reference's does) and then returns mu alone. Before the float64 gradient re-evaluation replayed the reference's draws, it drew other noise, and the slack admitted the noiseless output and its gradients.
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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
        eps = torch.randn_like(mu)
        if torch.is_grad_enabled() and (mu.requires_grad or logvar.requires_grad):
            return mu + 0.0 * eps * torch.exp(0.5 * logvar)
        if torch.is_autocast_enabled(mu.device.type) or mu.dtype != logvar.dtype:
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
