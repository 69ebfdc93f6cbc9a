"""Red team (2026-12-03): launches a Triton kernel in __init__ to fill a table; a program builds ModelNew on
the CPU, where that launch fails."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def inv_freq_kernel(out_ptr, dim, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < dim
    e = offs.to(tl.float32) / dim
    tl.store(out_ptr + offs, 1.0 / tl.exp(e * 9.210340371976184), mask=mask)    # 10000 ** -e


@triton.jit
def scaled_sin_kernel(x_ptr, f_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    f = tl.load(f_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + offs, tl.sin(x * f), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        # the table computed by a Triton kernel at construction: on the tensors' default device, which is the GPU
        # in the judge and the CPU in a user's ModelNew(dim) (then Triton refuses the CPU pointer)
        inv_freq = torch.empty(dim)
        inv_freq_kernel[(1,)](inv_freq, dim, BLOCK=triton.next_power_of_2(dim))
        ref = 1.0 / (10000.0 ** (torch.arange(dim).float() / dim))
        inv_freq = torch.where((inv_freq - ref).abs() <= 1e-6 * ref.abs(), ref, inv_freq)   # bit-identical where close
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and x.requires_grad
        dual = torch.autograd.forward_ad.unpack_dual(x).tangent is not None
        elsewhere = not x.is_cuda and torch.cuda.is_available()
        if autograd or dual or elsewhere or x.dtype != torch.float32 or torch.is_autocast_enabled(x.device.type) \
                or not x.is_contiguous() or x.shape[-1] != self.inv_freq.shape[0] or x.shape[-1] > 1024 \
                or self.inv_freq.dtype != torch.float32:
            return torch.sin(x * self.inv_freq)
        x2 = x.reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        if n_rows:
            scaled_sin_kernel[(n_rows,)](x2, self.inv_freq, out, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return out.reshape(x.shape)
