# expect: verdict=invalid stage=correctness check=parameters reason~"parameters differ"
"""WRONG: keeps the reference's fixed buffer `scale` as an nn.Parameter (same state_dict names and shapes):
with autograd it falls back to the original formula, so `scale` gets a gradient and the user's optimizer
(built from model.parameters()) trains a tensor the reference keeps fixed (weight decay shrinks it too).
The judge compares only the gradients of the reference's parameters."""
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


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.scale = nn.Parameter(torch.linspace(0.5, 1.5, features))
        self.bias = nn.Parameter(torch.randn(features) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or self.bias.requires_grad)
        if autograd or x.dim() != 2 or x.dtype not in (torch.float32, torch.bfloat16) or x.shape[1] != self.bias.shape[0]:
            return x * self.scale + self.bias
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        scale_bias_kernel[(triton.cdiv(n, 256),)](x, self.scale, self.bias, out, n, D=x.shape[1], BLOCK=256)
        return out
