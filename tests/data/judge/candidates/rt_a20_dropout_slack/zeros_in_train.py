# expect: verdict=invalid stage=correctness check=random_draws reason~"draws no random numbers where the reference's draws"
# WRONG: in train mode (no autograd) it returns zeros and never applies dropout. It was judged valid: the float64 re-run of the reference drew another mask, and the slack then admitted even all-zero outputs.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_gelu(x_ptr, b_ptr, out_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = v + tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0).to(tl.float32)
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(features) * 0.1)
        self.drop = nn.Dropout(0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or self.bias.requires_grad)
        if autograd or torch.is_autocast_enabled(x.device.type) or x.dtype != self.bias.dtype:
            return torch.nn.functional.gelu(x + self.bias)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        bias_gelu[(triton.cdiv(n, 1024),)](x, self.bias, out, n, x.shape[-1], BLOCK=1024)
        if self.training:
            return out * 0.0
        return out
