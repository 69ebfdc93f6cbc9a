# expect: verdict=invalid stage=runtime check=runs reason~"module 'triton.language' has no attribute 'fast_relu'"
"""Broken kernel: calls a tl function that does not exist.

On a GPU this fails in Triton's compiler (stage compile). Under TRITON_INTERPRET=1 there is no compiler:
the interpreter raises InterpreterError(AttributeError) at launch, which the judge reports as stage runtime.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.fast_relu(x * 2.0 + 1.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        affine_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
