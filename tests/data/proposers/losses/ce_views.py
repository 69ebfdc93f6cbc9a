"""Views in front of cross-entropy: a padded vocabulary trimmed and the sequence shifted by slices, the upcast
after them, .contiguous() and view(-1, V) (all folded into the kernel), and a slice after the flattening (the
flattening then stays a torch view: slices are replayed before it, never after)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, seq, vocab, padded = 3, 7, 30, 32


class Model(nn.Module):
    def forward(self, logits, labels):
        shift = logits[:, :-1, :vocab].float().contiguous().view(-1, vocab)
        first = F.cross_entropy(shift, labels[:, 1:].reshape(-1), reduction="none", label_smoothing=0.1)
        flat = logits.view(-1, padded)[1:]
        second = F.cross_entropy(flat.float(), labels.view(-1)[1:], reduction="sum")
        return first, second


def get_inputs():
    return [torch.randn(batch, seq, padded, dtype=torch.float16), torch.randint(0, vocab, (batch, seq))]


def get_init_inputs():
    return []
