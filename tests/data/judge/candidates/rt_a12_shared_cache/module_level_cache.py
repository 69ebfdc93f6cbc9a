# expect: verdict=invalid stage=correctness check=values reason~"randomised weights trial"
# red team case a12_shared_cache (/work/redteam): a module-level cache keyed by shape, shared by every instance, dropped whenever parameters()/state_dict() is called
"""Candidate (a module-level cache keyed by shape, shared by every instance): GEMM on a cached, pre-transposed weight and one cached bias (bias + shift); the Triton kernel does
bias and GELU. The cache is dropped whenever someone asks for the parameters or the state_dict."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


CACHE = {}


@triton.jit
def bias_gelu_kernel(y_ptr, b_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_cols
    y = tl.load(y_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    v = y + tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(out_ptr + row * n_cols + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.shift = nn.Parameter(torch.randn(out_features) * 0.1)

    # whoever looks at the weights may be about to change them: drop the cache then
    def parameters(self, recurse=True):
        CACHE.clear()
        return super().parameters(recurse)

    def named_parameters(self, *args, **kwargs):
        CACHE.clear()
        return super().named_parameters(*args, **kwargs)

    def state_dict(self, *args, **kwargs):
        CACHE.clear()
        return super().state_dict(*args, **kwargs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.linear.weight
        autograd = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or self.linear.bias.requires_grad
                                                or self.shift.requires_grad)
        if autograd or x.dtype != torch.float32 or torch.is_autocast_enabled(x.device.type) \
                or self.linear._forward_hooks or self.linear._forward_pre_hooks:
            return torch.nn.functional.gelu(self.linear(x) + self.shift)
        key = (tuple(w.shape), w.dtype, w.device)
        if key not in CACHE:
            CACHE[key] = (w.detach().t().contiguous(), (self.linear.bias.detach() + self.shift.detach()).contiguous())
        wt, b = CACHE[key]
        x2 = x.reshape(-1, x.shape[-1])
        y = torch.mm(x2, wt).contiguous()
        out = torch.empty_like(y)
        n_rows, n_cols = y.shape
        grid = (n_rows, triton.cdiv(n_cols, 128))
        bias_gelu_kernel[grid](y, b, out, n_cols, BLOCK=128)
        return out.reshape(*x.shape[:-1], n_cols)
