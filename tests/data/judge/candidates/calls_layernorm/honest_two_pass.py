# expect: verdict=valid stage=ok reason~"Validated"
# HONEST: LayerNorm over the last dim, two-pass variance in float32, packed rows; Triton only for float32 CPU contiguous 3-D inputs of width D without autograd, the original forward otherwise.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, D, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / D
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / D
    y = d * tl.rsqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row * D + offs, y * w + b, mask=mask)


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 'S', 32], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self, D):
        super().__init__()
        self.ln = nn.LayerNorm(D)

    def forward(self, x):
        w, b = self.ln.weight, self.ln.bias
        grad = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or b.requires_grad) or _has_tangent(x)
        if (not grad and x.dim() == 3 and x.shape[0] >= 2 and x.shape[1] >= 2 and x.shape[2] == w.shape[0]
                and x.dtype == torch.float32 and w.dtype == torch.float32 and b.dtype == torch.float32
                and x.is_contiguous() and w.is_contiguous() and b.is_contiguous() and x.device.type == 'cpu'
                and not (self.ln._forward_hooks or self.ln._forward_pre_hooks)):
            out = torch.empty_like(x)
            D = x.shape[2]
            layernorm_kernel[(x.numel() // D,)](x, w, b, out, D, self.ln.eps, BLOCK=triton.next_power_of_2(D))
            return out
        return self.ln(x)
