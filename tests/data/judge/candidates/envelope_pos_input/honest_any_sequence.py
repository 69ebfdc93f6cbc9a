# expect: verdict=valid stage=ok reason~"Validated"
"""HONEST: x * scale + pos in one Triton kernel for any (B, S) (pos indexed by the call's own S * dim);
autograd and other dtypes fall back. ENVELOPE: B and S free."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ENVELOPE = {
    "device_types": ["cuda", "cpu"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", "S", 16]}, {"dtype": "torch.float32", "sizes": ["S", 16]}],
    "parameter_dtypes": ["torch.float32"],
    "eval_only": [], "train_only": [],
    "autograd": False,
}


@triton.jit
def scale_pos_kernel(x_ptr, s_ptr, p_ptr, out_ptr, n, D, SD, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + offs % D, mask=mask, other=0.0).to(tl.float32)
    p = tl.load(p_ptr + offs % SD, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x * s + p).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or pos.requires_grad or self.scale.requires_grad) or _has_tangent(x, pos)
        if autograd or x.dim() != 3 or pos.shape != x.shape[1:] or x.dtype != pos.dtype \
                or x.dtype not in (torch.float32, torch.bfloat16) or x.dtype != self.scale.dtype \
                or x.shape[-1] != self.scale.shape[0]:
            return x * self.scale + pos
        x, pos = x.contiguous(), pos.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        scale_pos_kernel[(triton.cdiv(n, 256),)](x, self.scale, pos, out, n, x.shape[2], pos.numel(), BLOCK=256)
        return out
