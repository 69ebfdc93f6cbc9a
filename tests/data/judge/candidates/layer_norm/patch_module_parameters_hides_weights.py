# expect: verdict=invalid stage=guard check=guard reason~"never through the class"
# isolate: changes the worker process (torch, the judge or its process state); judged in a private pool
"""Patch the judge's view of the module: torch.nn.Module.parameters and .buffers replaced (unbound methods of ModelNew,
called with torch.nn.Module as self) by functions that yield nothing. The reference computes as before (its forward
reads self.weight directly), but a trial that randomises "every parameter and buffer" now finds none, so the
kernel can ignore the affine weight and bias, which are ones and zeros as built.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def normalize_kernel(x_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    tl.store(out_ptr + row * n_cols + cols, d / tl.sqrt(var + eps), mask=mask)


def _nothing(self, *args, **kwargs):
    return iter([])


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.norm = nn.LayerNorm(features)

    def install(self, value):
        self.parameters = value
        self.buffers = value

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        normalize_kernel[(rows,)](x, out, cols, self.norm.eps, BLOCK=triton.next_power_of_2(cols))
        return out


ModelNew.install(torch.nn.Module, _nothing)
