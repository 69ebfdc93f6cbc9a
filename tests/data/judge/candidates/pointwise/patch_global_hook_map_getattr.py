# expect: verdict=invalid stage=guard check=guard reason~"as a value"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch: a global forward pre-hook registered through getattr passed as a value to map() (no dotted name for the
guard, and the word 'hook' only inside a string).
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
    tl.store(out_ptr + offs, tl.maximum(x * 2.0 + 1.0, 0.0), mask=mask)


def affine_relu(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    affine_relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out

_lookup = getattr
_module = list(map(_lookup, [torch.nn], ["modules"]))[0].module
_register = list(map(_lookup, [_module], ["register_module_forward_pre_" + "hook"]))[0]
_handle = _register(lambda module, args: None)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return affine_relu(x)
