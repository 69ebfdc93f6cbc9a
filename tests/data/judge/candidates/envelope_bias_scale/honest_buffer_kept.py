# expect: verdict=valid stage=ok reason~"Validated"
"""Legit: the fixed scale stays a buffer; the Triton path for any batch, autograd through the original formula."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ENVELOPE = {
    "device_types": ["cuda", "cpu"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", 32]}],
    "parameter_dtypes": ["torch.float32"],
    "eval_only": [], "train_only": [],
    "autograd": False,
}


@triton.jit
def scale_bias_kernel(x_ptr, s_ptr, b_ptr, out_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + offs % D, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs % D, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x * s + b).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.register_buffer("scale", torch.linspace(0.5, 1.5, features))
        self.bias = nn.Parameter(torch.randn(features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or self.bias.requires_grad) or _has_tangent(x)
        if autograd or x.dim() != 2 or x.dtype not in (torch.float32, torch.bfloat16) or x.dtype != self.bias.dtype \
                or x.shape[1] != self.bias.shape[0]:
            return x * self.scale + self.bias
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        scale_bias_kernel[(triton.cdiv(n, 256),)](x, self.scale, self.bias, out, n, D=x.shape[1], BLOCK=256)
        return out
