# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: mean of the heads' logits, bias and a max-subtracted softmax in one Triton kernel, one program per row,
each head made contiguous and read with its own row stride. (Before the fix the judge rejected it: the
same-tensors-new-values trial refilled only top-level tensors, not those inside a list.)"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ensemble_softmax_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, out_ptr, C, sa, sb, sc, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < C
    z = tl.load(a_ptr + row * sa + offs, mask=mask, other=0.0)
    z += tl.load(b_ptr + row * sb + offs, mask=mask, other=0.0)
    z += tl.load(c_ptr + row * sc + offs, mask=mask, other=0.0)
    z = z / 3.0 + tl.load(bias_ptr + offs, mask=mask, other=0.0)
    z = tl.where(mask, z, float('-inf'))
    e = tl.where(mask, tl.exp(z - tl.max(z, axis=0)), 0.0)
    tl.store(out_ptr + row * C + offs, e / tl.sum(e, axis=0), mask=mask)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, classes: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(classes))

    def forward(self, logits: list[torch.Tensor]) -> torch.Tensor:
        if (torch.is_grad_enabled() and (self.bias.requires_grad or any(t.requires_grad for t in logits))) \
                or _has_tangent(*logits) or torch.is_autocast_enabled(logits[0].device.type) or len(logits) != 3 \
                or logits[0].dtype != torch.float32 or self.bias.dtype != torch.float32 or logits[0].dim() != 2 \
                or logits[0].shape[0] == 0 or logits[0].shape[1] != self.bias.shape[0] \
                or any(t.shape != logits[0].shape or t.dtype != torch.float32 for t in logits):
            z = torch.stack(logits).mean(0) + self.bias
            return torch.softmax(z, dim=-1)
        a, b, c = [t.contiguous() for t in logits]
        B, C = a.shape
        out = torch.empty(B, C, dtype=a.dtype, device=a.device)
        ensemble_softmax_kernel[(B,)](a, b, c, self.bias.contiguous(), out, C, a.stride(0), b.stride(0), c.stride(0),
                                      BLOCK=triton.next_power_of_2(C))
        return out
