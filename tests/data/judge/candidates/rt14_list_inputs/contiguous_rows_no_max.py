# expect: verdict=invalid stage=correctness check=finite reason~"(far above zero) | inputs x50 trial"
"""WRONG (red team, 2026-12-03): mean of the heads' logits, bias and softmax in one Triton kernel, as exp(z) /
sum(exp(z)) without subtracting the row maximum (and rows indexed as row * classes, assuming contiguous heads):
large logits overflow to inf/NaN where torch.softmax is finite."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ensemble_softmax_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < C
    z = tl.load(a_ptr + row * C + offs, mask=mask, other=0.0)
    z += tl.load(b_ptr + row * C + offs, mask=mask, other=0.0)
    z += tl.load(c_ptr + row * C + offs, mask=mask, other=0.0)
    z = z / 3.0 + tl.load(bias_ptr + offs, mask=mask, other=0.0)
    e = tl.where(mask, tl.exp(z), 0.0)
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
                or logits[0].shape[0] == 0:
            z = torch.stack(logits).mean(0) + self.bias
            return torch.softmax(z, dim=-1)
        a, b, c = logits
        B, C = a.shape
        out = torch.empty(B, C, dtype=a.dtype, device=a.device)
        ensemble_softmax_kernel[(B,)](a, b, c, self.bias, out, C, BLOCK=triton.next_power_of_2(C))
        return out
