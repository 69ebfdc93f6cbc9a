# expect: verdict=invalid stage=correctness check=gradients reason~"(bias: None where the reference has one)"
"""Falls back to PyTorch when autograd is on, but with the bias detached: the input's gradient is right, the bias
gets none, so training through the patch would never update it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(x_ptr, b_ptr, out_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs % n_cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x + b, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad:
            return torch.relu(x + self.bias.detach())
        if x.dim() != 2 or x.shape[1] != self.bias.shape[0]:
            return torch.relu(x + self.bias)          # a size the bias does not take: raises as the original
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        bias_relu_kernel[(triton.cdiv(n, 1024),)](x, self.bias, out, n, x.shape[1], BLOCK=1024)
        return out
