# expect: verdict=invalid stage=correctness check=dtypes reason~"float32 trial (float32 trial: output:"
# WRONG: for a bfloat16 task the kernel rounds the normalised row to bfloat16 before the weight multiply (harmless at bf16) and the dispatch accepts any dtype but float16; after model.float() (fp32 evaluation/export of a bf16-trained model) float32 calls reach the Triton path and come back with bf16 rounding (~4e-3 relative error). The judge tries other dtypes only for float32 tasks.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, D, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.rsqrt(tl.sum(x * x, axis=0) / D + eps)
    y = (x * r).to(tl.bfloat16).to(tl.float32)          # keep the row in bf16 registers
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * D + offs, (y * w).to(out_ptr.dtype.element_ty), mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.bfloat16', 'sizes': ['B', 64], 'contiguous': True}],
                'parameter_dtypes': ['torch.bfloat16'], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self, D, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(D, dtype=torch.bfloat16))
        self.eps = eps

    def forward(self, x):
        grad = torch.is_grad_enabled() and (x.requires_grad or self.weight.requires_grad) or _has_tangent(x)
        if (not grad and x.dim() == 2 and x.shape[0] >= 2 and x.shape[1] == self.weight.shape[0]
                and x.is_floating_point() and x.dtype != torch.float16 and x.dtype == self.weight.dtype
                and x.is_contiguous() and x.device.type == 'cpu'):
            out = torch.empty_like(x)
            rmsnorm_kernel[(x.shape[0],)](x, self.weight, out, x.shape[1], self.eps, BLOCK=triton.next_power_of_2(x.shape[1]))
            return out
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (y * self.weight.float()).to(x.dtype)
