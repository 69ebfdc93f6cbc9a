# expect: verdict=invalid stage=correctness check=gradients reason~"not write them into .grad"
"""WRONG (red team, 2026-12-03): per-feature scale in Triton with a custom backward that, when the weight's
.grad is still None (and no graph is being built), writes the weight gradient into .grad itself (a reentrant
backward) and returns None for it; when .grad already holds values it returns the gradient as autograd
expects. The first backward of the process (the witness's) behaves: torch.autograd.grad with .grad None
must come later too (the two-calls trial)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_BACKWARDS = []


@triton.jit
def scale_kernel(x_ptr, w_ptr, out_ptr, n, features, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + offs % features, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x * w).to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x, w):
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        scale_kernel[(triton.cdiv(n, 1024),)](x, w, out, n, w.shape[0], BLOCK=1024)
    return out


class ScaleFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, mod):
        ctx.mod = mod
        ctx.save_for_backward(x, w)
        return _launch(x, w)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = g * w if ctx.needs_input_grad[0] else None
        gw = None
        if ctx.needs_input_grad[1]:
            gw = (g * x).reshape(-1, w.shape[0]).sum(0)
            param = ctx.mod.weight
            _BACKWARDS.append(1)
            if param.grad is None and not torch.is_grad_enabled() and len(_BACKWARDS) > 1:
                with torch.enable_grad():
                    (param * gw.detach()).sum().backward()      # fills param.grad directly
                gw = None
        return gx, gw, None


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.weight
        if torch.autograd.forward_ad.unpack_dual(x).tangent is not None or torch.is_autocast_enabled(x.device.type) \
                or x.dtype != w.dtype or x.dim() == 0 or x.shape[-1] != w.shape[0] or not w.is_contiguous():
            return x * w
        x = x.contiguous()
        if not (torch.is_grad_enabled() and (x.requires_grad or w.requires_grad)):
            return _launch(x, w)
        return ScaleFn.apply(x, w, self)
