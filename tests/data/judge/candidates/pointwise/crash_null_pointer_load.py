# expect: verdict=invalid stage=crash check=crash reason~"killed by signal SIGSEGV"
"""Crash: an unmasked load through a null pointer (an empty tensor's data_ptr() is 0).

The CPU analogue of an illegal memory access on a GPU: the Triton interpreter dereferences the address in
C++ and the worker dies with SIGSEGV. No banned import is needed.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # no mask, and x_ptr is null
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        n = x.numel()
        nothing = torch.empty(0)  # data_ptr() == 0
        affine_relu_kernel[(triton.cdiv(n, 1024),)](nothing, out, n, BLOCK=1024)
        return out
