# expect: verdict=invalid stage=correctness check=modes|weights reason~"ModelNew must"
"""WRONG: in eval mode folds the batch norm into a per-channel scale and shift on the first eval call and
keeps them: after more training (new running statistics and weights), load_state_dict, or an optimizer
step, eval() gives results from the stale fold. Caught by whichever comes first of the weights trials (weights
changed in place in eval mode), the eval trial after a training call, and the trial with the norm layer alone
in eval."""
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
        if autograd or x.dim() != 2 or x.shape[0] < 2 or bn.momentum is None \
                or torch.float64 in (x.dtype, bn.weight.dtype):
            return self.fallback(x)
        if bn.training:                          # exact: the training path is not what this case is about
            y = bn(x)
            ones = torch.ones(y.shape[1], device=y.device)
            return scale_shift_relu(y, ones, torch.zeros_like(ones))
        if getattr(self, "folded", None) is None:
            w, b = bn.weight.float(), bn.bias.float()
            scale = w * torch.rsqrt(bn.running_var.float() + bn.eps)
            self.folded = (scale, b - bn.running_mean.float() * scale)
        return scale_shift_relu(x, self.folded[0], self.folded[1])
