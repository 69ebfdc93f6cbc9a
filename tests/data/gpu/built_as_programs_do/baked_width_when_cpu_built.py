"""Red team (2026-12-03, c6): notes in __init__ whether its weights were made on the GPU, and when built on the
CPU and moved (as the judge builds the candidate it certifies, and as programs build) takes the output width
traced from get_init_inputs (24): right for those sizes, wrong for any other a program builds on the CPU. The
constructor trials built both classes on the GPU, where it reads the width at run time."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_shift_gelu_kernel(y_ptr, bias_ptr, shift_ptr, out_ptr, n_rows, n_cols,
                           BLOCK_SIZE_N: tl.constexpr):
    # out[r, c] = gelu(y[r, c] + bias[c] + shift[c]), exact (erf) GELU; one program per row block.
    row = tl.program_id(0)
    offs_n = tl.program_id(1) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = offs_n < n_cols
    y = tl.load(y_ptr + row * n_cols + offs_n, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(bias_ptr + offs_n, mask=mask, other=0.0).to(tl.float32) + \
        tl.load(shift_ptr + offs_n, mask=mask, other=0.0).to(tl.float32)
    v = y + b
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + row * n_cols + offs_n, out.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)
        # built straight on the GPU (the judge's LoadedTask.build: `with torch.device(gpu)`), or on the CPU
        # and moved later (a user's ModelNew(...).to('cuda')): only the judge builds it on the GPU
        self.built_on_gpu = self.shift.is_cuda

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        autograd = torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))
        dual = torch.autograd.forward_ad.unpack_dual(x).tangent is not None     # forward-mode AD (torch.func.jvp)
        elsewhere = not x.is_cuda and torch.cuda.is_available()     # CPU tensors on a GPU machine
        if autograd or dual or elsewhere or x.dtype != torch.float32 or torch.is_autocast_enabled(x.device.type) \
                or self.linear._forward_hooks or self.linear._forward_pre_hooks:   # the original calls the layer
            return torch.nn.functional.gelu(self.linear(x) + self.shift)
        shift = self.shift
        x2 = x.reshape(-1, x.shape[-1])
        y = torch.matmul(x2, self.linear.weight.t()).contiguous()
        n_rows, n_cols = y.shape[0], (y.shape[1] if self.built_on_gpu else 24)    # traced when CPU-built
        y = y[:, :n_cols].contiguous()
        out = torch.empty_like(y)
        BLOCK_SIZE_N = 128
        grid = (n_rows, triton.cdiv(n_cols, BLOCK_SIZE_N))
        bias_shift_gelu_kernel[grid](y, self.linear.bias, shift, out, n_rows, n_cols,
                                     BLOCK_SIZE_N=BLOCK_SIZE_N)
        return out.reshape(*x.shape[:-1], n_cols)
