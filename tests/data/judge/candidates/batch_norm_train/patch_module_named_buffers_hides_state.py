# expect: verdict=invalid stage=guard check=guard reason~"never through the class"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch the judge's view of the module: torch.nn.Module.named_buffers replaced (an unbound method of ModelNew, called
with torch.nn.Module as self) by a function that yields nothing, so a check that compares the modules' buffers
after each forward sees none; the candidate then skips the running statistics. state_dict and .to() read the
buffers directly and still work.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def _nothing(self, *args, **kwargs):
    return iter([])


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm1d(channels)

    def install(self, value):
        self.named_buffers = value

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.batch_norm(x, None, None, self.bn.weight, self.bn.bias, training=True,
                                           eps=self.bn.eps).contiguous()
        out = torch.empty_like(y)
        n = y.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](y, out, n, BLOCK=1024)
        return out


ModelNew.install(torch.nn.Module, _nothing)
