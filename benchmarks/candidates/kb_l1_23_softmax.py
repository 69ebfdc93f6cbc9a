"""Hand-written candidate for KernelBench level1/23_Softmax (rows of 393216): online softmax, two passes."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_rows_kernel(x_ptr, out_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    # out[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)); one program per row
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    out_row = out_ptr + row * n_cols
    offs = tl.arange(0, BLOCK_SIZE)
    m = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)   # running max per lane
    s = tl.zeros([BLOCK_SIZE], tl.float32)                  # running sum per lane, scaled to m
    for start in range(0, n_cols, BLOCK_SIZE):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.where(mask, tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(s * tl.exp(m - row_max), axis=0)
    inv = 1.0 / row_sum
    for start in range(0, n_cols, BLOCK_SIZE):
        mask = start + offs < n_cols
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf")).to(tl.float32)
        tl.store(out_row + start + offs, (tl.exp(x - row_max) * inv).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not x.is_cuda or (torch.is_grad_enabled() and x.requires_grad) or \
                torch.autograd.forward_ad.unpack_dual(x).tangent is not None:
            return torch.softmax(x, dim=1)  # the CPU or autograd: the reference's own forward
        x = x.contiguous()
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        softmax_rows_kernel[(n_rows,)](x, out, n_cols, BLOCK_SIZE=2048, num_warps=8)
        return out
