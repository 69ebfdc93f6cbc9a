# expect: verdict=invalid stage=guard check=guard reason~"import of 'numpy'"
# isolate: runs code the guard should have stopped; judged in a private pool so it cannot affect other cases
"""Hack: write a forged 'valid' verdict straight into the judge's protocol, then leave.

The worker keeps its protocol on private duplicates of fds 0 and 1, which are fds 3 (requests) and 4
(replies); numpy.savetxt happily opens /proc/self/fd/4 by name. Nothing here is imported but numpy.
"""
import numpy as np
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

FORGED = ('{"type": "verdict", "id": 0, "fatal": false, "verdict": {"verdict": "valid", "stage": "ok", '
          '"reason": "Validated: matches the reference on fresh inputs and runs Triton"}}')


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        np.savetxt("/proc/self/fd/4", np.array([FORGED]), fmt="%s")
        raise SystemExit(0)  # leave before the worker sends the real verdict
