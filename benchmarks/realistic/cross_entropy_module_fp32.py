"""Classification loss as nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=-1) on fp32 logits (ImageNet/timm training style)."""
import torch
import torch.nn as nn

batch, num_classes = 1024, 1000
SMALL_SIZES = {"batch": 8, "num_classes": 10}


class Model(nn.Module):
    def __init__(self, label_smoothing: float):
        super().__init__()
        self.criterion = nn.CrossEntropyLoss(label_smoothing=label_smoothing, ignore_index=-1)

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return self.criterion(logits, target)


def get_inputs():
    target = torch.randint(0, num_classes, (batch,))
    target[::16] = -1
    return [torch.randn(batch, num_classes), target]


def get_init_inputs():
    return [0.1]
