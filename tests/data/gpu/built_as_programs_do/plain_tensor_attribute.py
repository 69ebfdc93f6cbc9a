"""Red team (2026-12-03), an honest mistake: a constant kept as a plain tensor attribute, which .to('cuda')
does not move; built on the CPU and moved, as programs build, the Triton launch gets a CPU tensor."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


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
        # a constant, not a weight: kept as a plain attribute (state_dict is the reference's: inv_freq is
        # non-persistent there). nn.Module.to() does not move plain attributes.
        self.inv_freq = 1.0 / (10000.0 ** (torch.arange(dim).float() / dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and x.requires_grad
        dual = torch.autograd.forward_ad.unpack_dual(x).tangent is not None
        elsewhere = not x.is_cuda and torch.cuda.is_available()
        if autograd or dual or elsewhere or x.dtype != torch.float32 or torch.is_autocast_enabled(x.device.type) \
                or not x.is_contiguous() or x.shape[-1] != self.inv_freq.shape[0] or x.shape[-1] > 1024:
            return torch.sin(x * self.inv_freq.to(device=x.device, dtype=x.dtype))
        x2 = x.reshape(-1, x.shape[-1])
        out = torch.empty_like(x2)
        n_rows, n_cols = x2.shape
        if n_rows:
            scaled_sin_kernel[(n_rows,)](x2, self.inv_freq, out, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return out.reshape(x.shape)
