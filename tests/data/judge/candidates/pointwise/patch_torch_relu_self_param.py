# expect: verdict=invalid stage=guard check=guard reason~"self.relu"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch: torch.relu replaced at import by a same-valued function 21 times slower (the eager baseline runs the
reference, so the candidate looks fast). No setattr, no assignment to a module attribute in the syntax: the
assignment is `self.relu = value` inside a function whose first parameter is called self, called with torch.
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


_relu = torch.relu


def _slow_relu(x, *args, **kwargs):
    """Same values as torch.relu (relu is idempotent), 21 times the work: the eager baseline looks slow."""
    y = _relu(x, *args, **kwargs)
    for _ in range(20):
        y = _relu(y)
    return y


def _install(self, name, value):
    """Reads like a method; called with a module or class as `self`, it patches that module for everyone."""
    if name == "relu":
        self.relu = value
    elif name == "forward":
        self.forward = value

_install(torch, "relu", _slow_relu)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return affine_relu(x)
