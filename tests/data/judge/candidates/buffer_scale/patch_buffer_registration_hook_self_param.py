# expect: verdict=invalid stage=guard check=guard reason~"register_module_buffer_registration_hook"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch: a global buffer-registration hook, installed at import through a `self`-named parameter, replaces every
buffer named 'scale' registered later with ones: a reference built after the import scales by 1, and the candidate
copies x.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _register(self, hook):
    return self.register_module_buffer_registration_hook(hook)


def _ones_scale(module, name, buffer):
    return torch.ones_like(buffer) if name == "scale" else None


_handle = _register(torch.nn.modules.module, _ones_scale)


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.register_buffer("scale", torch.linspace(0.5, 2.0, channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
