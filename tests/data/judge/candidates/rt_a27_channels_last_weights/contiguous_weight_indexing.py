# expect: verdict=invalid stage=correctness check=layouts reason~"parameters in channels_last"
# red team case a27_channels_last_weights (/work/redteam): indexes the conv weight as contiguous; model.to(memory_format=torch.channels_last) converts it
"""Candidate: a direct 3x3 convolution + bias + ReLU in one Triton kernel. It makes its input
contiguous (so channels_last inputs work) but indexes the weight as if it were contiguous: after
model.to(memory_format=torch.channels_last), which also converts 4-D parameters, it reads the wrong weights.
The judge changes the layout of inputs only."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def dw3x3_relu(x_ptr, w_ptr, b_ptr, out_ptr, C, H, W, BLOCK: tl.constexpr):
    plane = tl.program_id(0)                 # one (batch, output channel) plane per program
    bi = plane // C
    c = plane % C
    offs = tl.arange(0, BLOCK)
    inside = offs < H * W
    h = offs // W
    w = offs % W
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for ic in range(0, C):
        for kh in tl.static_range(3):
            for kw in tl.static_range(3):
                hh = h + kh - 1
                ww = w + kw - 1
                ok = inside & (hh >= 0) & (hh < H) & (ww >= 0) & (ww < W)
                v = tl.load(x_ptr + (bi * C + ic) * H * W + hh * W + ww, mask=ok, other=0.0).to(tl.float32)
                acc += v * tl.load(w_ptr + (c * C + ic) * 9 + kh * 3 + kw).to(tl.float32)
    acc += tl.load(b_ptr + c).to(tl.float32)
    acc = tl.maximum(acc, 0.0)
    tl.store(out_ptr + plane * H * W + offs, acc.to(out_ptr.dtype.element_ty), mask=inside)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w, b = self.conv.weight, self.conv.bias
        autograd = torch.is_grad_enabled() and (x.requires_grad or w.requires_grad or b.requires_grad)
        if autograd or torch.is_autocast_enabled(x.device.type) or x.dtype != w.dtype or x.dim() != 4 or w.shape[0] != w.shape[1] \
                or self.conv._forward_hooks or self.conv._forward_pre_hooks:
            return torch.relu(self.conv(x))
        x = x.contiguous()
        B, C, H, W = x.shape
        out = torch.empty((B, C, H, W), dtype=x.dtype, device=x.device)
        dw3x3_relu[(B * C,)](x, w, b, out, C, H, W, BLOCK=triton.next_power_of_2(H * W))
        return out
