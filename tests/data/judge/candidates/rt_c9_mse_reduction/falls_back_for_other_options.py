# expect: verdict=valid stage=ok reason~"Validated"
"""Mean squared error in one Triton kernel for reduction="mean"; the original forward for the others."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def mse_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        i = start + offs
        a = tl.load(a_ptr + i, mask=i < n, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + i, mask=i < n, other=0.0).to(tl.float32)
        total += (a - b) * (a - b)
    tl.store(out_ptr, (tl.sum(total, axis=0) / n).to(out_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, pred: torch.Tensor, target: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        if reduction != "mean" or pred.shape != target.shape or pred.dtype != target.dtype or not pred.is_floating_point() \
                or pred.numel() == 0 or pred.dtype == torch.float64 or torch.is_autocast_enabled(pred.device.type) \
                or torch.is_grad_enabled() and (pred.requires_grad or target.requires_grad) \
                or torch.autograd.forward_ad.unpack_dual(pred).tangent is not None \
                or torch.autograd.forward_ad.unpack_dual(target).tangent is not None:
            return F.mse_loss(pred, target, reduction=reduction)     # the original forward
        a, b = pred.contiguous(), target.contiguous()
        out = torch.empty((), dtype=pred.dtype, device=pred.device)
        mse_kernel[(1,)](a, b, out, a.numel(), BLOCK=1024)
        return out
