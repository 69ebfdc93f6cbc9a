# expect: verdict=invalid stage=correctness check=random_draws reason~"Monte Carlo dropout"
# red team case a19_mc_dropout (/work/redteam), with a fallback for dual inputs added (forward-mode AD): it tests the
# root's self.training, so model.eval(); model.drop.train() (Monte Carlo dropout) gets no dropout
"""Candidate: bias and GELU in Triton; then torch's dropout while training (its random mask must be torch's),
nothing in eval (dropout is the identity there). It tests the root's self.training; a program that switches only
the dropout layer back to train (Monte Carlo dropout: model.eval(); model.drop.train()) gets no dropout."""
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
        if self.training:
            out = self.drop(out)
        return out
