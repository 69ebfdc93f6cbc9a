"""ResNet classifier head in fp32: adaptive average pool to 1, torch.flatten(x, 1), fc to 1000 classes."""
import torch
import torch.nn as nn

batch, channels, size, num_classes = 32, 2048, 7, 1000
SMALL_SIZES = {"batch": 2, "channels": 16, "size": 3, "num_classes": 10}


class Model(nn.Module):
    def __init__(self, channels: int, num_classes: int):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(channels, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


def get_inputs():
    return [torch.randn(batch, channels, size, size)]


def get_init_inputs():
    return [channels, num_classes]
