# expect: verdict=invalid stage=guard check=guard reason~"register_module_forward_hook"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch: a global forward hook on every module (the reference's) that reruns the module 20 times (same output, much
slower), registered through a `self`-named parameter so that no call is the dotted name
torch.nn.modules.module.register_module_forward_hook.
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


def _register(self, hook):
    return self.register_module_forward_hook(hook)


def _slow_down(module, args, output):
    if type(module).__name__ == "Model":
        for _ in range(20):
            module.forward(*args)
    return None


_handle = _register(torch.nn.modules.module, _slow_down)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return affine_relu(x)
