"""nn.BCEWithLogitsLoss with weight and pos_weight buffers on fp16 logits without an upcast (torch computes it
in fp16); the weight broadcasts along a middle dim (the launcher lays it out in full)."""
import torch
import torch.nn as nn

batch, groups, labels = 4, 3, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.criterion = nn.BCEWithLogitsLoss(weight=torch.rand(groups, 1) + 0.5,
                                              pos_weight=torch.linspace(1.0, 2.0, labels))
        self.to(torch.float16)

    def forward(self, logits, targets):
        return self.criterion(logits, targets)


def get_inputs():
    return [torch.randn(batch, groups, labels, dtype=torch.float16),
            torch.randint(0, 2, (batch, groups, labels)).to(torch.float16)]


def get_init_inputs():
    return []
