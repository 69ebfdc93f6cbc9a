# expect: verdict=invalid stage=correctness check=random_draws reason~"draws no random numbers where the reference's draws"
# WRONG: returns mu, with no noise at all (a Triton copy; mu + 0 * std with autograd on). It was judged valid: the float64 re-run of the reference drew other noise and the fair-numerics slack admitted the noiseless output.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, mu: torch.Tensor, logvar: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and (mu.requires_grad or logvar.requires_grad):
            return mu + 0.0 * torch.exp(0.5 * logvar)
        m = mu.contiguous()
        out = torch.empty_like(m)
        copy_kernel[(triton.cdiv(m.numel(), 1024),)](m, out, m.numel(), BLOCK=1024)
        return out
