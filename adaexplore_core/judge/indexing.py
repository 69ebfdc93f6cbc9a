"""References that index memory with tensor values, and whether one accepts a trial's inputs, asked on the CPU.

On a GPU, an index out of range in the reference (a class target of -100 where ``ignore_index`` is -1, a
position beyond an embedding table at a larger sequence size) is a device-side assert: the process's CUDA
context is lost and every later call fails. On the CPU the same call raises an ``IndexError`` or a
``RuntimeError``, which the judge reads as "the reference refuses these inputs" and skips the trial. So on a
GPU, a trial with inputs the reference may refuse is first asked of a CPU copy of the reference — only for
references whose forward calls an op that reads memory at positions given by tensor values.
"""
from __future__ import annotations

import copy
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

# aten ops whose reads or writes go to positions held in a tensor: out of range, a device-side assert on a GPU
INDEXING_OPS = frozenset({
    "embedding", "embedding_bag", "_embedding_bag", "_embedding_bag_forward_only", "index", "index_select",
    "index_put", "_index_put_impl", "index_add", "index_copy", "index_fill", "gather", "take", "scatter",
    "scatter_add", "scatter_reduce", "nll_loss_forward", "nll_loss2d_forward", "nll_loss_nd", "one_hot",
    "bincount", "_unsafe_index", "_unsafe_index_put", "masked_scatter",
})


class _OpRecorder(TorchDispatchMode):
    """Records the names of the aten ops run under it (``aten.gather.default`` -> ``gather``)."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        self.names.add(func.overloadpacket.__name__)
        return func(*args, **(kwargs or {}))


def indexing_ops(module: torch.nn.Module, inputs: list[Any]) -> set[str]:
    """The ops of ``INDEXING_OPS`` that a copy of ``module`` runs on copies of ``inputs`` (none where it raises:
    the trials then find out themselves). The module and the inputs are left as they were."""
    recorder = _OpRecorder()
    try:
        with torch.no_grad(), recorder:
            copy.deepcopy(module)(*_copies(inputs))
    except Exception:  # noqa: BLE001 - the reference's own failure is the trials' to report
        return set()
    return recorder.names & INDEXING_OPS


def refused_on_cpu(module: torch.nn.Module, inputs: list[Any]) -> bool:
    """Whether a CPU copy of ``module`` raises on CPU copies of ``inputs``: floating tensors and the module's
    floating state in float32 (whether an index is in range does not depend on the float dtype, and some ops
    have no half-precision CPU kernel). The module, the inputs and torch's generators are left as they were."""
    state = torch.random.get_rng_state()
    try:
        model = copy.deepcopy(module).cpu()
        if any(t.is_floating_point() for t in list(model.parameters()) + list(model.buffers())):
            model = model.float()
        with torch.no_grad():
            model(*[_as_cpu_float32(x) for x in inputs])
        return False
    except Exception:  # noqa: BLE001 - the reference is not defined on these inputs
        return True
    finally:
        torch.random.set_rng_state(state)


def _copies(inputs: list[Any]) -> list[Any]:
    return [x.detach().clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def _as_cpu_float32(x: Any) -> Any:
    if not isinstance(x, torch.Tensor):
        return x
    x = x.detach().to("cpu", copy=True)
    return x.float() if x.is_floating_point() else x
