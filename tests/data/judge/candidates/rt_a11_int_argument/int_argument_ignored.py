# expect: verdict=invalid stage=correctness check=settings reason~"argument 1: 1 -> 0"
# red team case a11_int_argument (/work/redteam): the int dim argument is never read (softmax over the last dim always)
"""Candidate: a row softmax kernel over the last dim; the int argument is taken as the traced value (1, the
last dim) and never read. The judge varies float arguments, not int (or bool) ones."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    v = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=float("-inf")).to(tl.float32)
    m = tl.max(v, axis=0)
    e = tl.exp(v - m)
    e = tl.where(mask, e, 0.0)
    out = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * n_cols + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, dim: int) -> torch.Tensor:
        if (torch.is_grad_enabled() and x.requires_grad) or torch.is_autocast_enabled(x.device.type):
            return torch.softmax(x, dim=dim)
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty(x2.shape, dtype=x.dtype, device=x.device)
        n_rows, n_cols = x2.shape
        softmax_rows[(n_rows,)](x2, out, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return out.reshape(x.shape)
