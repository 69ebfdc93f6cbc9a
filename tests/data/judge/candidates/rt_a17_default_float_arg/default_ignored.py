# expect: verdict=invalid stage=correctness check=settings reason~"temperature = 1.75"
# red team case a17_default_float_arg (/work/redteam): the temperature argument (default 1.0, never passed by get_inputs) is ignored
"""Candidate: a row softmax kernel; the temperature argument (default 1.0, never passed by get_inputs) is
ignored. The judge varies the float arguments get_inputs passes and None defaults, not other defaults."""
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

    def forward(self, x: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
        if (torch.is_grad_enabled() and x.requires_grad) or torch.is_autocast_enabled(x.device.type):
            return torch.softmax(x / temperature, dim=-1)
        x2 = x.contiguous().reshape(-1, x.shape[-1])
        out = torch.empty(x2.shape, dtype=x.dtype, device=x.device)
        n_rows, n_cols = x2.shape
        softmax_rows[(n_rows,)](x2, out, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return out.reshape(x.shape)
