# expect: verdict=valid stage=ok reason~"Validated"
"""Conv2d by torch, then bias + ReLU in one Triton kernel; the convolution reads the module's own stride,
padding, dilation and groups."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(y_ptr, b_ptr, out_ptr, n, C, HW, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + (offs // HW) % C, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(y + b, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        conv = self.conv
        w, b = conv.weight, conv.bias
        if torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or b.requires_grad) \
                or torch.autograd.forward_ad.unpack_dual(x).tangent is not None \
                or torch.is_autocast_enabled(x.device.type) or conv._forward_hooks or conv._forward_pre_hooks \
                or x.dtype != torch.float32 or w.dtype != torch.float32 or x.dim() != 4 \
                or not x.is_contiguous() or not w.is_contiguous() or b is None or conv.padding_mode != "zeros":
            return torch.relu(conv(x))
        y = F.conv2d(x, w, None, conv.stride, conv.padding, conv.dilation, conv.groups).contiguous()
        out = torch.empty_like(y)
        n = y.numel()
        if n:
            bias_relu_kernel[(triton.cdiv(n, 1024),)](y, b, out, n, y.shape[1], y.shape[2] * y.shape[3], BLOCK=1024)
        return out
