"""References that index by tensor values are asked on the CPU before a GPU trial they may refuse: on a GPU an
index out of range is a device-side assert that ends the judge's CUDA context (three realistic modules failed
so on the H200, 2026-12-02). These tests check the two questions the judge asks, on the CPU."""
import importlib.util
from pathlib import Path

import torch
import torch.nn as nn

from adaexplore_core.judge.indexing import indexing_ops, refused_on_cpu

SUITE = Path(__file__).resolve().parents[2] / "benchmarks" / "realistic"


def realistic(name: str):
    spec = importlib.util.spec_from_file_location(f"indexing_{name}", SUITE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for constant, value in module.SMALL_SIZES.items():
        setattr(module, constant, value)
    return module.Model(*module.get_init_inputs()), module.get_inputs()


def test_losses_and_embeddings_index_and_pointwise_code_does_not():
    model, inputs = realistic("cross_entropy_module_fp32")
    assert "nll_loss_forward" in indexing_ops(model, inputs)
    model, inputs = realistic("gpt2_token_position_embedding_bf16")
    assert "embedding" in indexing_ops(model, inputs)
    model, inputs = realistic("gelu_tanh_fp16")
    assert indexing_ops(model, inputs) == set()


def test_a_target_outside_the_classes_is_refused_and_the_usual_ones_are_not():
    model, (logits, target) = realistic("cross_entropy_module_fp32")   # ignore_index=-1
    assert not refused_on_cpu(model, [logits, target])
    ignored_default = target.clone()
    ignored_default[::3] = -100                                        # PyTorch's default ignore_index
    assert refused_on_cpu(model, [logits, ignored_default])


def test_positions_beyond_the_table_are_refused_in_low_precision_too():
    model, (ids,) = realistic("gpt2_token_position_embedding_bf16")
    assert not refused_on_cpu(model, [ids])                            # bf16 weights, asked in float32
    positions = model.wpe.num_embeddings
    longer = ids.repeat(1, positions // ids.shape[1] + 1)              # a sequence longer than the position table
    assert refused_on_cpu(model, [longer])


class RunningMean(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("seen", torch.zeros(4))
        self.table = nn.Embedding(10, 4)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        out = self.table(ids)
        self.seen.add_(out.detach().mean(0))
        return out


def test_the_questions_leave_the_module_the_inputs_and_the_generator_as_they_were():
    model, ids = RunningMean(), torch.tensor([1, 2, 3])
    weights, state = model.table.weight.detach().clone(), torch.random.get_rng_state()
    assert indexing_ops(model, [ids]) == {"embedding"}
    assert not refused_on_cpu(model, [ids]) and refused_on_cpu(model, [torch.tensor([11])])
    assert torch.equal(model.seen, torch.zeros(4)) and torch.equal(model.table.weight, weights)
    assert torch.equal(ids, torch.tensor([1, 2, 3])) and torch.equal(torch.random.get_rng_state(), state)
