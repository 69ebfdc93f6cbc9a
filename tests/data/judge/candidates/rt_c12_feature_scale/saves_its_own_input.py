# expect: verdict=valid stage=ok reason~"Validated"
"""Per-feature scale in Triton with a custom backward that saves its own input (never a shared workspace)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def scale_kernel(x_ptr, w_ptr, out_ptr, keep_ptr, n, features, SAVE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    w = tl.load(w_ptr + offs % features, mask=mask, other=0.0)
    tl.store(out_ptr + offs, (x.to(tl.float32) * w.to(tl.float32)).to(out_ptr.dtype.element_ty), mask=mask)
    if SAVE:
        tl.store(keep_ptr + offs, x, mask=mask)


def _launch(x, w, keep):
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        scale_kernel[(triton.cdiv(n, 1024),)](x, w, out, keep if keep is not None else out, n, w.shape[0],
                                              SAVE=keep is not None, BLOCK=1024)
    return out


class ScaleFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, keep):
        out = _launch(x, w, keep)
        ctx.save_for_backward(x if keep is None else keep, w)
        return out

    @staticmethod
    def backward(ctx, g):
        xs, w = ctx.saved_tensors
        gx = g * w if ctx.needs_input_grad[0] else None
        gw = (g * xs).reshape(-1, w.shape[0]).sum(0) if ctx.needs_input_grad[1] else None
        return gx, gw, None


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.weight
        if torch.autograd.forward_ad.unpack_dual(x).tangent is not None or torch.is_autocast_enabled(x.device.type) \
                or x.dtype != w.dtype or x.dim() == 0 or x.shape[-1] != w.shape[0] or not w.is_contiguous() \
                or x.dtype == torch.float64:
            return x * w
        x = x.contiguous()
        if not (torch.is_grad_enabled() and (x.requires_grad or w.requires_grad)):
            return _launch(x, w, None)
        return ScaleFn.apply(x, w, None)
