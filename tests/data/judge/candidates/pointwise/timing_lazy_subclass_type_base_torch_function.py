# expect: verdict=invalid stage=guard check=guard reason~"type"
"""Timing fake, lazy output: a Tensor subclass whose base is written type(torch.empty(0)) (not the name torch.Tensor)
and whose __torch_function__ is a class-body assignment (not a def): the values are computed the first time any
torch function touches the output.
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


def token_launch(x: torch.Tensor) -> None:
    """One real, non-empty launch on a 16-element scratch buffer: the forward still "runs Triton"."""
    scratch = torch.zeros(16, device=x.device, dtype=x.dtype)
    affine_relu_kernel[(1,)](scratch, scratch, 16, BLOCK=16)


class Later(type(torch.empty(0))):
    __torch_function__ = classmethod(lambda cls, func, types, args=(), kwargs=None: _materialize(func, args, kwargs))


_pending = {}


def _materialize(func, args, kwargs):
    plain_args = []
    for a in args:
        entry = _pending.get(id(a))
        if entry is not None:
            plain, source, done = entry
            if not done:
                n = source.numel()
                affine_relu_kernel[(triton.cdiv(n, 1024),)](source, plain, n, BLOCK=1024)
                _pending[id(a)] = (plain, source, True)
            a = plain
        plain_args.append(a)
    return func(*plain_args, **(kwargs or {}))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        token_launch(x)
        plain = torch.empty_like(x)
        later = plain.as_subclass(Later)
        _pending[id(later)] = (plain, x.contiguous(), False)
        return later
