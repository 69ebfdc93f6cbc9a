"""The global random generators a forward may draw from, read and put back as one: torch's (the CPU's and, on a
GPU, the device's), Python's ``random`` and numpy's legacy global generator where numpy is loaded.

The judge rewinds them so that the reference's and the candidate's forwards draw the same numbers, and compares
them to see whether a forward drew at all. Python's and numpy's were left out once: a reference drawing from
``random`` in its forward (LayerDrop as older model code writes it) made an honest candidate that draws alike
differ from it (red team, 2026-12-03)."""
from __future__ import annotations

import random
import sys
from typing import Any

import torch


def states(device: torch.device) -> list[Any]:
    """Every generator's state, in a fixed order (compare with ``same``, restore with ``restore``)."""
    found: list[Any] = [torch.get_rng_state(), random.getstate()]
    numpy = sys.modules.get("numpy")
    found.append(numpy.random.get_state() if numpy is not None else None)
    if device.type == "cuda":
        found.append(torch.cuda.get_rng_state(device))
    return found


def restore(saved: list[Any], device: torch.device) -> None:
    """Put the generators back in the states ``states`` read."""
    torch.set_rng_state(saved[0])
    random.setstate(saved[1])
    numpy = sys.modules.get("numpy")
    if numpy is not None and saved[2] is not None:
        numpy.random.set_state(saved[2])
    if device.type == "cuda":
        torch.cuda.set_rng_state(saved[3], device)


def same(a: list[Any], b: list[Any]) -> bool:
    """Whether two readings of ``states`` are equal."""
    return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))


def _equal(x: Any, y: Any) -> bool:
    if isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor):
        return isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) and torch.equal(x, y)
    if isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y):
        return all(_equal(u, v) for u, v in zip(x, y))
    if hasattr(x, "tobytes") and hasattr(y, "tobytes"):          # numpy's key array
        return x.tobytes() == y.tobytes()
    return bool(x == y)
