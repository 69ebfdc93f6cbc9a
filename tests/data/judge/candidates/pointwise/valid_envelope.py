# expect: verdict=valid stage=ok reason~"Validated"
"""Legit, as the built-in proposer writes a patch: an ENVELOPE (float32 (B, 128) inputs, any batch size B, no
autograd) and a check that runs the Triton path inside it and the original forward for every other call."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ENVELOPE = {
    "device_types": ["cuda", "cpu"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", 128]}],
    "parameter_dtypes": [],
    "eval_only": [], "train_only": [],
    "autograd": False,
}


@triton.jit
def affine_relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


def in_envelope(x: torch.Tensor) -> bool:
    spec = ENVELOPE["inputs"][0]
    if torch.is_grad_enabled() and x.requires_grad or _has_tangent(x):
        return False
    if x.device.type not in ENVELOPE["device_types"] or str(x.dtype) != spec["dtype"] or x.dim() != 2:
        return False
    return x.shape[0] >= 2 and x.shape[1] == spec["sizes"][1]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not in_envelope(x):
            return self.reference_forward(x)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        affine_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out

    def reference_forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * 2 + 1)
