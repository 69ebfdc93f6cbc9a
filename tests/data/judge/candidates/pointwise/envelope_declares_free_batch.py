# expect: verdict=invalid stage=correctness check=envelope reason~"declares B free but took no Triton kernel for B = 32"
"""Its ENVELOPE declares the batch size free, but the forward takes its Triton path only at the traced batch of 64
and falls back to PyTorch elsewhere: right everywhere, but the envelope claims kernels it does not run."""
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
TRACED_BATCH = 64


@triton.jit
def affine_relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and x.requires_grad
        if autograd or x.dtype != torch.float32 or x.shape[0] != TRACED_BATCH:
            return torch.relu(x * 2 + 1)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        affine_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
