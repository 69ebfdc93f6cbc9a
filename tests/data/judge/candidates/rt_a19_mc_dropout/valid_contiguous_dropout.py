# expect: verdict=valid stage=ok reason~"Validated"
# HONEST: the red team's a19 candidate reading the dropout layer's own mode. It makes its inputs contiguous, so on a
# transposed input torch's dropout draws the reference's numbers in another element order; it was judged invalid
# (layout trial) before the layout trials compared random references on contiguous copies too
"""Candidate: bias and GELU in Triton on contiguous inputs; then torch's dropout wherever the dropout layer is in
train mode (its random mask must be torch's), nothing where it is in eval (dropout is the identity there)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_gelu(x_ptr, b_ptr, out_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = v + tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0).to(tl.float32)
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)
        self.drop = nn.Dropout(0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or self.bias.requires_grad)
        dual = torch.autograd.forward_ad.unpack_dual(x).tangent is not None      # forward-mode AD: the original
        if autograd or dual or torch.is_autocast_enabled(x.device.type) or x.dtype != self.bias.dtype \
                or x.shape[-1] != self.bias.shape[0] or x.dtype == torch.float64 \
                or self.drop._forward_hooks or self.drop._forward_pre_hooks:
            return self.drop(torch.nn.functional.gelu(x + self.bias))
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        bias_gelu[(triton.cdiv(n, 1024),)](x, self.bias, out, n, x.shape[-1], BLOCK=1024)
        if self.drop.training:                # the dropout layer's own mode (Monte Carlo dropout: on at eval)
            out = self.drop(out)
        return out
