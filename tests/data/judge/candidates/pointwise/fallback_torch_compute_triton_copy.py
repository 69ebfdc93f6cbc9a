# expect: verdict=invalid stage=correctness check=triton_launched reason~"launched no Triton kernel"
# xfail: known limitation (README, "What the judge checks"): a Triton kernel that only copies PyTorch's result counts as the candidate's computation: it completes on a full grid and the output depends on it, so the skip-every-launch ablation passes too; nothing ties the values to Triton arithmetic
"""Hidden fallback with nothing hidden from the checks: PyTorch computes relu(2x + 1) on the device; a Triton kernel
copies the result into the output. The launch is real, completes, has a full grid and writes the output: no check
of the contract tells this from a kernel that computes.
"""
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
        return triton_copy(torch.relu(x * 2 + 1))
