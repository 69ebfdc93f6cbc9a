# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: normalise with the running statistics, then the affine weight and bias.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bn_eval_kernel(x_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, out_ptr, n, n_cols, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = offs % n_cols
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + c, mask=mask).to(tl.float32)
    var = tl.load(var_ptr + c, mask=mask).to(tl.float32)
    w = tl.load(w_ptr + c, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + c, mask=mask).to(tl.float32)
    y = (x - mean) / tl.sqrt(var + eps) * w + b
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm1d(channels)
        self.bn.eval()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters())) or _has_tangent(x)
        if autograd or self.bn.training or torch.is_autocast_enabled(x.device.type) or self.bn._forward_hooks \
                or x.dim() < 2 or x.shape[1] != self.bn.num_features \
                or torch.float64 in (x.dtype, self.bn.weight.dtype) \
                or self.bn._forward_pre_hooks:              # autocast, or hooks on the layer: the original
            return self.bn(x)  # autograd, or batch statistics (train mode): the reference's forward
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        bn = self.bn
        bn_eval_kernel[(triton.cdiv(n, 512),)](x, bn.running_mean, bn.running_var, bn.weight, bn.bias, out, n,
                                               x.shape[1], bn.eps, BLOCK=512)
        return out
