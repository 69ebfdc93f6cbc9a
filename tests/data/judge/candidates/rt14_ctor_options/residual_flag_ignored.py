# expect: verdict=invalid stage=correctness check=constructor reason~"constructor trial (argument 5: False -> True)"
"""WRONG (red team, 2026-12-03): scale, bias, activation and gain in one Triton kernel; the residual flag (the fifth
option after dim) is stored but never applied, so a block configured with residual=True loses its skip connection.
(The constructor trials used to vary only the first four non-int arguments.)"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def block_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n, D, gain, shift,
                 HAS_BIAS: tl.constexpr, ACT: tl.constexpr, RESIDUAL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    col = offs % D
    w = tl.load(w_ptr + col, mask=mask, other=0.0) + shift
    y = x * w
    if HAS_BIAS:
        y = y + tl.load(b_ptr + col, mask=mask, other=0.0)
    if ACT == 0:
        y = 0.5 * y * (1.0 + tl.erf(y * 0.7071067811865476))
    elif ACT == 1:
        y = tl.maximum(y, 0.0)
    else:
        y = y / (1.0 + tl.exp(-y))
    y = y * gain
    if RESIDUAL:
        y = y + x
    tl.store(out_ptr + offs, y, mask=mask)


def _has_tangent(*values):
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, dim: int, activation: str = "gelu", bias: bool = True, gain: float = 1.0,
                 zero_centered: bool = False, residual: bool = False):
        super().__init__()
        if activation not in ("gelu", "relu", "silu"):
            raise ValueError(f"unknown activation {activation}")
        self.activation = activation
        self.zero_centered = zero_centered
        self.residual = residual
        self.gain = gain
        self.weight = nn.Parameter(torch.zeros(dim) if zero_centered else torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim)) if bias else None

    def _reference(self, x):
        w = self.weight + 1.0 if self.zero_centered else self.weight
        y = x * w
        if self.bias is not None:
            y = y + self.bias
        if self.activation == "gelu":
            y = F.gelu(y)
        elif self.activation == "relu":
            y = F.relu(y)
        else:
            y = F.silu(y)
        y = y * self.gain
        if self.residual:
            y = y + x
        return y

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))) \
                or _has_tangent(x) or torch.is_autocast_enabled(x.device.type) or x.dtype != torch.float32 \
                or self.weight.dtype != torch.float32 or x.numel() == 0 or x.shape[-1] != self.weight.shape[0]:
            return self._reference(x)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        b = self.bias if self.bias is not None else self.weight
        act = {"gelu": 0, "relu": 1, "silu": 2}[self.activation]
        block_kernel[(triton.cdiv(n, 256),)](x, self.weight, b, out, n, x.shape[-1], float(self.gain),
                                             1.0 if self.zero_centered else 0.0,
                                             HAS_BIAS=self.bias is not None, ACT=act,
                                             RESIDUAL=False, BLOCK=256)
        return out
