# expect: verdict=invalid stage=correctness check=gradients reason~"two calls, then one backward"
"""WRONG (red team b17): the Triton forward writes relu's mask into one workspace kept per shape and the
backward reads it from there, so a program that calls the module twice before one backward (a siamese or
contrastive step) gets the second call's mask in the first call's gradients. Right for one call at a time."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_relu_mask_kernel(x_ptr, out_ptr, mask_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(x_ptr + offs, mask=mask).to(tl.float32) * 2.0 + 1.0
    tl.store(out_ptr + offs, tl.maximum(y, 0.0), mask=mask)
    tl.store(mask_ptr + offs, (y > 0.0).to(tl.float32), mask=mask)


WORKSPACES = {}


class AffineRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x = x.contiguous()
        key = (tuple(x.shape), x.device)
        if key not in WORKSPACES:
            WORKSPACES[key] = torch.empty_like(x)
        out = torch.empty_like(x)
        n = x.numel()
        if n:
            affine_relu_mask_kernel[(triton.cdiv(n, 1024),)](x, out, WORKSPACES[key], n, BLOCK=1024)
        ctx.mask = WORKSPACES[key]
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, grad):
        if torch.is_grad_enabled():                  # create_graph (a gradient penalty): differentiable
            (x,) = ctx.saved_tensors
            return grad * 2.0 * (x * 2 + 1 > 0) + x * 0.0
        return grad * ctx.mask * 2.0


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype != torch.float32 or _has_tangent(x):
            return torch.relu(x * 2 + 1)
        return AffineRelu.apply(x)
