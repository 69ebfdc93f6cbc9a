# expect: verdict=valid stage=ok reason~"Validated"
"""HONEST: batch norm + relu. Statistics (batch ones in training, with the running statistics and the batch
counter updated as torch does; running ones in eval) computed in float32 with torch, per-channel scale and
shift, then the normalisation, affine and relu in one Triton kernel for any batch size. Autograd falls back
to the original forward."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

ENVELOPE = {
    "device_types": ["cuda", "cpu"],
    "inputs": [{"dtype": "torch.float32", "sizes": ["B", 24]}],
    "parameter_dtypes": ["torch.float32"],
    "eval_only": [], "train_only": [],
    "autograd": False,
}


@triton.jit
def scale_shift_relu_kernel(x_ptr, scale_ptr, shift_ptr, out_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(scale_ptr + cols, mask=mask, other=0.0)
    b = tl.load(shift_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, tl.maximum(x * a + b, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def scale_shift_relu(x, scale, shift):
    x = x.contiguous()
    out = torch.empty_like(x)
    n_rows, n_cols = x.shape
    scale_shift_relu_kernel[(n_rows,)](x, scale.float().contiguous(), shift.float().contiguous(), out, n_rows,
                                       n_cols, BLOCK_N=triton.next_power_of_2(n_cols))
    return out


def _has_tangent(*values):
    """Whether an input carries a forward-mode tangent (torch.func.jvp, jacfwd): the original computation then."""
    return any(isinstance(v, torch.Tensor) and torch.autograd.forward_ad.unpack_dual(v).tangent is not None
               for v in values)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm1d(channels)

    def fallback(self, x):
        return torch.relu(self.bn(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        bn = self.bn
        autograd = torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters())) or _has_tangent(x)
        if autograd or x.dim() != 2 or x.shape[0] < 2 or bn.momentum is None or bn._forward_hooks \
                or bn._forward_pre_hooks or torch.is_autocast_enabled(x.device.type) \
                or torch.float64 in (x.dtype, bn.weight.dtype):
            return self.fallback(x)
        w, b = bn.weight.float(), bn.bias.float()
        if bn.training:
            xf = x.float()
            mean = xf.mean(0)
            var = xf.var(0, unbiased=False)
            n = x.shape[0]
            with torch.no_grad():
                bn.running_mean.mul_(1 - bn.momentum).add_(mean.to(bn.running_mean.dtype), alpha=bn.momentum)
                bn.running_var.mul_(1 - bn.momentum).add_((var * n / (n - 1)).to(bn.running_var.dtype),
                                                          alpha=bn.momentum)
                bn.num_batches_tracked.add_(1)
        else:
            mean, var = bn.running_mean.float(), bn.running_var.float()
        scale = w * torch.rsqrt(var + bn.eps)
        return scale_shift_relu(x, scale, b - mean * scale)
