"""Token-level cross-entropy of bf16 logits without an upcast (torch computes it in bf16): (B, T, C) logits
flattened with view(-1, C) against flat (B*T,) targets, summed."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, seq, vocab = 3, 6, 40


class Model(nn.Module):
    def forward(self, logits, labels):
        return F.cross_entropy(logits.view(-1, vocab), labels, reduction="sum", label_smoothing=0.1)


def get_inputs():
    return [torch.randn(batch, seq, vocab, dtype=torch.bfloat16), torch.randint(0, vocab, (batch * seq,))]


def get_init_inputs():
    return []
