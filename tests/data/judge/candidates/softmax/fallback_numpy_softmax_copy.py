# expect: verdict=invalid stage=guard check=guard reason~"numpy"
"""Hidden fallback: the softmax computed by numpy on the host, then copied by Triton.
"""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def triton_copy(src: torch.Tensor) -> torch.Tensor:
    src = src.contiguous()
    out = torch.empty_like(src)
    n = src.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        host = x.detach().cpu().numpy().astype(np.float64)
        e = np.exp(host - host.max(axis=1, keepdims=True))
        host = (e / e.sum(axis=1, keepdims=True) * 1e-4).astype(np.float32)
        return triton_copy(torch.from_numpy(host).to(x.device))
