# expect: verdict=valid stage=ok reason~"Validated"
"""Row mean in one Triton kernel for the traced option; the original forward for the others."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_mean_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        total += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, (tl.sum(total, axis=0) / n_cols).to(out_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
        if reduction in ("sum", "max", "amax") or x.dim() != 2 or x.shape[1] == 0 or not x.is_floating_point() \
                or x.dtype == torch.float64 \
                or torch.is_grad_enabled() and x.requires_grad \
                or torch.autograd.forward_ad.unpack_dual(x).tangent is not None:
            return x.sum(dim=1) if reduction == "sum" else x.amax(dim=1) if reduction in ("max", "amax") else x.mean(dim=1)     # the original forward
        x = x.contiguous()
        out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        if x.shape[0]:
            row_mean_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=128)
        return out
