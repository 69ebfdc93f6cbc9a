"""Hand-written candidate for KernelBench level2/1_Conv2D_ReLU_BiasAdd: cuDNN convolution, then ReLU and the
per-channel bias in one Triton pass, in place on the convolution's fresh output."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_bias_kernel(y_ptr, bias_ptr, n_elements, hw, channels, BLOCK_SIZE: tl.constexpr):
    # y[n, c, h, w] = max(y[n, c, h, w], 0) + bias[c], y contiguous NCHW
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    c = (offs // hw) % channels
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(bias_ptr + c, mask=mask).to(tl.float32)
    tl.store(y_ptr + offs, (tl.maximum(y, 0.0) + b).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        autograd = torch.is_grad_enabled() and (x.requires_grad or any(p.requires_grad for p in self.parameters()))
        dual = torch.autograd.forward_ad.unpack_dual(x).tangent is not None
        if not x.is_cuda or autograd or dual:
            return torch.relu(self.conv(x)) + self.bias  # the CPU or autograd: the reference's own forward
        y = self.conv(x).contiguous()
        n = y.numel()
        hw = y.shape[2] * y.shape[3]
        BLOCK_SIZE = 2048
        relu_bias_kernel[(triton.cdiv(n, BLOCK_SIZE),)](y, self.bias, n, hw, y.shape[1], BLOCK_SIZE=BLOCK_SIZE,
                                                        num_warps=8)
        return y
