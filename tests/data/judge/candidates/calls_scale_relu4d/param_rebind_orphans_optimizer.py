# expect: verdict=invalid stage=correctness check=parameters reason~"The candidate's forward replaces its parameters with new obj"
# WRONG: the first eval-mode call "prepacks" the parameters by rebinding them (self.scale = nn.Parameter(self.scale.detach().contiguous())): same names, shapes, values and requires_grad, but new objects, so an optimizer built from model.parameters() before the first evaluation keeps updating the old tensors and the model stops learning after its first validation pass (train -> eval -> train loop). The judge's parameter and gradient checks run before its eval-mode trials, and it never steps an optimizer.
import torch
import triton
import triton.language as tl
import torch.nn as nn


@triton.jit
def scale_bias_relu_kernel(x_ptr, s_ptr, b_ptr, out_ptr, n, C, HW, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = (offs // HW) % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    s = tl.load(s_ptr + c, mask=mask, other=0.0)
    b = tl.load(b_ptr + c, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x * s + b, 0.0, propagate_nan=tl.PropagateNan.ALL), mask=mask)


class ModelNew(nn.Module):
    ENVELOPE = {'device_types': ['cpu'],
                'inputs': [{'dtype': 'torch.float32', 'sizes': ['B', 8, 6, 6], 'contiguous': True}],
                'parameter_dtypes': ['torch.float32'], 'eval_only': [], 'train_only': [], 'autograd': False}

    def __init__(self, C):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(C))
        self.bias = nn.Parameter(torch.randn(C))
        self.packed = False

    def forward(self, x):
        grad = torch.is_grad_enabled() and (x.requires_grad or self.scale.requires_grad or self.bias.requires_grad)
        if (not grad and x.dim() == 4 and x.shape[0] >= 2 and x.shape[1] == self.scale.shape[0]
                and x.dtype == torch.float32 and self.scale.dtype == torch.float32 and x.is_contiguous()
                and x.device.type == 'cpu'):
            if not self.training and not self.packed:      # inference: pack the parameters once, densely
                self.scale = nn.Parameter(self.scale.detach().contiguous(), requires_grad=self.scale.requires_grad)
                self.bias = nn.Parameter(self.bias.detach().contiguous(), requires_grad=self.bias.requires_grad)
                self.packed = True
            out = torch.empty_like(x)
            n = x.numel()
            scale_bias_relu_kernel[(triton.cdiv(n, 1024),)](x, self.scale, self.bias, out, n, x.shape[1],
                                                             x.shape[2] * x.shape[3], BLOCK=1024)
            return out
        return torch.relu(x * self.scale.view(1, -1, 1, 1) + self.bias.view(1, -1, 1, 1))
