"""Final-logit soft-capping of Gemma-2 in bf16: logits / cap, tanh, * cap."""
import torch
import torch.nn as nn

batch, seq, vocab = 4, 512, 32768
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "vocab": 64}


class Model(nn.Module):
    def __init__(self, final_logit_softcapping: float = 30.0):
        super().__init__()
        self.final_logit_softcapping = final_logit_softcapping

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        logits = logits / self.final_logit_softcapping
        logits = torch.tanh(logits)
        return logits * self.final_logit_softcapping


def get_inputs():
    return [torch.randn(batch, seq, vocab, dtype=dtype) * 40.0]


def get_init_inputs():
    return [30.0]
