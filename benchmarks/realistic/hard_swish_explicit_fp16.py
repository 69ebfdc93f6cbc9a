"""Hard-swish and hard-sigmoid written out as early MobileNetV3 ports do: x * relu6(x + 3) / 6 and relu6(x + 3) / 6, fp16."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, channels, size = 32, 96, 56
dtype = torch.float16
SMALL_SIZES = {"batch": 2, "channels": 4, "size": 5}


class HSigmoid(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu6(x + 3.0) / 6.0


class HSwish(nn.Module):
    def __init__(self):
        super().__init__()
        self.sigmoid = HSigmoid()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.sigmoid(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = HSwish()
        self.gate = HSigmoid()

    def forward(self, x: torch.Tensor, gate_logits: torch.Tensor) -> torch.Tensor:
        return self.act(x) * self.gate(gate_logits)


def get_inputs():
    return [torch.randn(batch, channels, size, size, dtype=dtype) * 4.0,
            torch.randn(batch, channels, 1, 1, dtype=dtype)]


def get_init_inputs():
    return []
