"""EfficientNet/YOLO conv-bn-SiLU in eval mode on channels_last bf16 input (an inference model after model.eval().to(bf16))."""
import torch
import torch.nn as nn

batch, in_channels, out_channels, size = 16, 128, 128, 28
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "in_channels": 4, "out_channels": 8, "size": 6}


class Model(nn.Module):
    def __init__(self, c1: int, c2: int, k: int = 3):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, 1, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()
        with torch.no_grad():                      # trained-looking running statistics
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
        self.eval()
        self.to(dtype=dtype, memory_format=torch.channels_last)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(batch, in_channels, size, size, dtype=dtype).to(memory_format=torch.channels_last)]


def get_init_inputs():
    return [in_channels, out_channels]
