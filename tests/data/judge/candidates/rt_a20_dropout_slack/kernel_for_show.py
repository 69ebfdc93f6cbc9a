# expect: verdict=invalid stage=correctness check=triton_launched reason~"right even with its Triton launches skipped"
# WRONG: PyTorch computes the whole output (the reference's code, dropout included); the Triton kernel only writes a scratch buffer nobody reads. The ablation (launches skipped) gave the candidate a different dropout mask from the reference's, so its outputs differed and the kernel was taken for one that computes them.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scratch_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)
        self.drop = nn.Dropout(0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scratch = torch.empty_like(x)
        n = x.numel()
        scratch_kernel[(triton.cdiv(n, 1024),)](x, scratch, n, BLOCK=1024)
        return self.drop(torch.nn.functional.gelu(x + self.bias))
