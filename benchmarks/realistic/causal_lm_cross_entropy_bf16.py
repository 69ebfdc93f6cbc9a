"""Causal-LM loss of Hugging Face models: shift logits/labels, upcast to fp32, cross-entropy with label smoothing and ignore_index=-100."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, seq, vocab = 4, 512, 32000
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "vocab": 50}


class Model(nn.Module):
    def __init__(self, label_smoothing: float = 0.1, ignore_index: int = -100):
        super().__init__()
        self.label_smoothing = label_smoothing
        self.ignore_index = ignore_index

    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        logits = logits.float()
        shift_logits = logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        return F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1),
                               ignore_index=self.ignore_index, label_smoothing=self.label_smoothing)


def get_inputs():
    labels = torch.randint(0, vocab, (batch, seq))
    labels[:, : seq // 8] = -100                       # a masked prompt, as in instruction tuning
    return [torch.randn(batch, seq, vocab, dtype=dtype), labels]


def get_init_inputs():
    return [0.1, -100]
