"""The module state a candidate's dispatch reads afresh on every call (envelope.py checks it).

The capture reads the module once; the user's program may change it afterwards. Parameters and buffers get
replaced (``model.scale = nn.Parameter(...)``, ``load_state_dict(assign=True)``, ``model.fc = nn.Linear(...)``)
or turned into tensors that a forward pre-hook computes (``torch.nn.utils.prune``, ``weight_norm``: the slot
then holds no Parameter); plain numbers of the module tree (``self.temperature = 2.0``, ``nn.LayerNorm.eps``)
are inlined by torch.fx. ``module_state`` records them when the module is built; ``state_method`` writes
``_envelope_state``, which reads each of them by its path, every module on the way read once.

Children, parameters and buffers are read from the module's own dicts (``m._parameters.get('weight')``), not
through ``Module.__getattr__``, which runs only after the ordinary lookup failed (0.6-0.7 us a read on CPython
3.11); plain numbers are ordinary attributes.
"""
from __future__ import annotations

import builtins
import keyword
import math
from dataclasses import dataclass, field

from torch import nn

from ...judge import allowlist
from ..base import ProposalError

_TAKEN = frozenset(dir(builtins)) | {"self", "torch", "triton", "tl", "operator", "math", "nn", "F"}


@dataclass(frozen=True)
class ModuleState:
    """Paths ("body.0.weight") of the module tree as built: submodules, parameters, buffers, parameter and buffer
    slots that hold None (``bias=False``), and plain numbers with their values. ``access``: for each path, how
    its last step is written (``{}._modules.get('fc')``, ``{}._parameters.get('weight')``,
    ``getattr({}, 'eps', None)``), None for a number the judge's guard would refuse to read (a private one)."""

    modules: tuple[str, ...] = ()      # every submodule (not the root, whose own hooks run around forward)
    parameters: tuple[str, ...] = ()
    buffers: tuple[str, ...] = ()
    unset: tuple[str, ...] = ()
    numbers: dict[str, int | float | bool] = field(default_factory=dict)
    access: dict[str, str | None] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)   # repr of each submodule without children or parameters

    def reachable(self, path: str) -> bool:
        parts = path.split(".")
        return all(self.access.get(".".join(parts[:end])) is not None for end in range(1, len(parts) + 1))


def module_state(model: nn.Module) -> ModuleState:
    """What of ``model`` the capture may have read or skipped: every submodule (whose hooks the Triton path
    does not run), every parameter and buffer slot, and every public ``int``, ``float`` or ``bool`` in a
    module's ``__dict__`` (not ``training``, which the envelope checks by itself); and the ``repr`` of every
    submodule without children or parameters (``GELU(approximate='none')``): a program that swaps an activation
    (``model.act = nn.SiLU()``) keeps every path and tensor, so only its kind tells (red team, 2026-12-04)."""
    modules, parameters, buffers, unset, numbers, access, kinds = [], [], [], [], {}, {}, {}
    for prefix, module in model.named_modules():
        if prefix:
            modules.append(prefix)
            if not module._modules and not module._parameters:
                kinds[prefix] = repr(module)
        def path(name: str) -> str:
            return f"{prefix}.{name}" if prefix else name
        for name, _ in module.named_children():
            access[path(name)] = _slot_step("_modules", name)
        for name, tensor in list(module._parameters.items()) + list(module._buffers.items()):
            kind = unset if tensor is None else parameters if name in module._parameters else buffers
            kind.append(path(name))
            access[path(name)] = _slot_step("_parameters" if name in module._parameters else "_buffers", name)
        for name, value in vars(module).items():
            if name == "training" or name.startswith("_") or not isinstance(value, (bool, int, float)):
                continue
            if isinstance(value, float) and math.isnan(value):
                raise ProposalError(f"unsupported: the module attribute '{path(name)}' is NaN, which the "
                                    "envelope cannot record (a NaN never equals itself)")
            numbers[path(name)] = value
            access[path(name)] = _attribute_step(name)
    return ModuleState(tuple(modules), tuple(parameters), tuple(buffers), tuple(unset), numbers, access, kinds)


def _attribute_step(name: str) -> str | None:
    """``getattr({}, 'eps', None)``: None where the module has no such attribute now (a LayerNorm swapped for
    an nn.Identity: the envelope then falls back instead of raising in the program); None for a name the guard
    refuses on other objects than ``self`` (private, hooks, ``storage``, ...)."""
    if name.startswith("_") or allowlist.HOOK_MARK in name.lower() or name in allowlist.REFUSED_ATTRIBUTES:
        return None
    return "getattr({}, " + repr(name) + ", None)"


def _slot_step(slot: str, name: str) -> str:
    """``{}._parameters.get('name')``: the module's own dict read by key, without ``Module.__getattr__`` (the
    guard allows exactly this use of the slot); None where the slot lost the name (a pruned parameter), which
    the check counts as a change."""
    return "{}." + slot + ".get(" + repr(name) + ")"


class _Reader:
    """Source expressions for paths, with a local variable for each module that is stepped through (parents
    first), each checked for None: a submodule set to None after the capture (``model.norm = None``) makes
    ``_envelope_state`` return None, and the call falls back, instead of raising in the user's program."""

    def __init__(self, state: ModuleState, paths: list[str]) -> None:
        self.access = state.access
        uses: dict[str, set[str]] = {}          # path -> what reads it: its children, "" for itself
        for path in paths:
            parts = path.split(".")
            uses.setdefault(path, set()).add("")
            for end in range(1, len(parts)):
                uses.setdefault(".".join(parts[:end]), set()).add(parts[end])
        self.locals: dict[str, str] = {}
        taken = set(_TAKEN)
        for module in sorted((m for m, u in uses.items() if u - {""}), key=lambda m: m.count(".")):
            name = "_".join(module.split("."))
            name = name if name.isidentifier() else f"m_{name}" if f"m_{name}".isidentifier() else f"m_{len(taken)}"
            while name in taken or keyword.iskeyword(name):
                name += "_"
            taken.add(name)
            self.locals[module] = name
        self.lines = []
        for module, name in self.locals.items():
            self.lines += [f"{name} = {self.step(module)}", f"if {name} is None:", "    return None"]

    def read(self, path: str) -> str:
        return self.locals.get(path) or self.step(path)

    def step(self, path: str) -> str:
        parent = path.rpartition(".")[0]
        return self.access[path].format(self.read(parent) if parent else "self")


def recorded_numbers(state: ModuleState) -> dict[str, int | float | bool]:
    """The numbers ``_envelope_state`` reads, with their values as built (ENVELOPE["numbers"])."""
    return {p: v for p, v in state.numbers.items() if state.reachable(p)}


def state_method(state: ModuleState) -> str:
    """Source of ``_envelope_state``: (submodules, parameters, buffers, unset slots, numbers) as the module holds
    them now, the numbers in the order of ENVELOPE["numbers"] (a number the guard would refuse to read, a
    private one, is neither read nor recorded)."""
    numbers = list(recorded_numbers(state))
    tensors = [state.modules, state.parameters, state.buffers, state.unset]
    reader = _Reader(state, [p for group in tensors for p in group] + numbers)
    groups = [[reader.read(p) for p in group] for group in tensors] + [[reader.read(p) for p in numbers]]
    lines = ['"""(submodules, parameters, buffers, unset parameter/buffer slots, numbers) of the module tree, read',
             "on every call: a replaced module or tensor, a hook or a changed number is seen (the numbers in the",
             "order of ENVELOPE['numbers']); None when a submodule on the way was set to None." + '"""']
    lines += reader.lines
    tuples = ["".join(_tuple(g)) for g in groups]
    if len("        return ()") + len(", ".join(tuples)) <= 110:
        lines.append(f"return ({', '.join(tuples)})")
    else:
        lines += ("return (" + ",\n        ".join(_wrapped(_tuple(g), "         ") for g in groups) + ")").split("\n")
    return "def _envelope_state(self):\n" + "\n".join("    " + line for line in lines)


def _tuple(items: list[str]) -> list[str]:
    """The pieces of a tuple display: '(a, ', 'b)'; '(a,)' for one item."""
    if len(items) == 1:
        return [f"({items[0]},)"]
    if not items:
        return ["()"]
    return [f"({items[0]}, "] + [f"{e}, " for e in items[1:-1]] + [f"{items[-1]})"]


def _wrapped(pieces: list[str], indent: str, width: int = 110) -> str:
    """``pieces`` joined, with a line break before a piece that would pass ``width``."""
    lines = [""]
    for piece in pieces:
        if lines[-1] and len(indent) + len(lines[-1]) + len(piece) > width:
            lines[-1] = lines[-1].rstrip()
            lines.append("")
        lines[-1] += piece
    return ("\n" + indent).join(lines)
