"""GPT-2 input embedding in bf16: token embedding plus learned positions from torch.arange, then dropout(p=0)."""
import torch
import torch.nn as nn

batch, seq, vocab, n_positions, n_embd = 8, 1024, 50257, 1024, 1024
dtype = torch.bfloat16
SMALL_SIZES = {"batch": 2, "seq": 8, "vocab": 100, "n_positions": 16, "n_embd": 32}


class Model(nn.Module):
    def __init__(self, vocab_size: int, n_positions: int, n_embd: int):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(n_positions, n_embd)
        self.drop = nn.Dropout(0.0)
        self.to(dtype)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        tok_emb = self.wte(idx)
        pos_emb = self.wpe(pos)
        return self.drop(tok_emb + pos_emb)


def get_inputs():
    return [torch.randint(0, vocab, (batch, seq))]


def get_init_inputs():
    return [vocab, n_positions, n_embd]
