# expect: verdict=invalid stage=guard check=guard reason~"type"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch: a TorchFunctionMode made with type() (its __torch_function__ by string key) entered at import inside a
generator that is never resumed, so the mode stays on the stack: every torch.relu, the reference's, is replaced by
a same-valued function 21 times slower.
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

Slow = type("Slow", (torch.overrides.TorchFunctionMode,), {"__torch_function__": (
    lambda self, func, types, args=(), kwargs=None:
    (_slow_relu if func is _relu else func)(*args, **(kwargs or {})))})


def _hold():
    with Slow():
        yield


_held = _hold()
next(_held)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return affine_relu(x)
