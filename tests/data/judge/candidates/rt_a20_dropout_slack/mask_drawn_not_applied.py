# expect: verdict=invalid stage=correctness check=values reason~"also against a float64 evaluation"
# WRONG: draws a dropout mask as the reference does (nn.Dropout on a tensor of the same shape: the generator ends where the reference's does) but returns the output without it. Before the float64 re-evaluation replayed the reference's random draws, it drew another mask, and the fair-numerics slack admitted the undropped output.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, out_ptr, n, n_cols, BLOCK: tl.constexpr):
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
        if (autograd or torch.is_autocast_enabled(x.device.type) or x.dtype != self.bias.dtype
                or not x.is_contiguous() or x.dim() != 2 or x.shape[-1] != self.bias.shape[0]):
            return self.drop(torch.nn.functional.gelu(x + self.bias))
        out = torch.empty_like(x)
        n = x.numel()
        bias_gelu_kernel[(triton.cdiv(n, 1024),)](x, self.bias, out, n, x.shape[-1], BLOCK=1024)
        self.drop(torch.ones_like(out))        # the reference's draw, thrown away
        return out
