"""Multi-label BCE-with-logits with a pos_weight buffer on fp16 logits upcast to fp32 (multi-label classifier heads)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, num_labels = 2048, 1024
dtype = torch.float16
SMALL_SIZES = {"batch": 8, "num_labels": 12}


class Model(nn.Module):
    def __init__(self, num_labels: int):
        super().__init__()
        self.register_buffer("pos_weight", torch.linspace(1.0, 4.0, num_labels))

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(logits.float(), targets.float(), pos_weight=self.pos_weight)


def get_inputs():
    return [torch.randn(batch, num_labels, dtype=dtype), torch.randint(0, 2, (batch, num_labels))]


def get_init_inputs():
    return [num_labels]
