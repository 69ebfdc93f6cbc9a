# expect: verdict=invalid stage=guard check=guard reason~"type"
# isolate: runs code the guard should have stopped; judged in a private pool so it cannot affect other cases
"""Escape: a TorchFunctionMode subclass made with type() (its __torch_function__ by string key), pushed while the
candidate's forward runs and left on the mode stack: every later torch call, the judge's included, goes through
candidate code; the first one runs a shell command. Values pass through unchanged.
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

Spy = type("Spy", (torch.overrides.TorchFunctionMode,), {"__torch_function__": (
    lambda self, func, types, args=(), kwargs=None: _observe(func, args, kwargs))})
_done = []
_held = []


def _observe(func, args, kwargs):
    if not _done:
        _done.append(1)
        getattr(torch, "os").system("touch /tmp/adaexplore_escape_escape_type_function_mode")
    return func(*args, **(kwargs or {}))


def _hold():
    with Spy():
        yield


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not _held:
            _held.append(_hold())
            next(_held[0])
        return affine_relu(x)
