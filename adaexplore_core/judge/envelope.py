"""The calls a patch must survive beyond ``get_inputs``' shapes, and the ENVELOPE a candidate declares.

A user's program calls the patched module with other batch and sequence sizes than the traced ones. Pure
functions: the size symbols of the example inputs ("B": dim 0 of the first tensor input, "S": dim 1 of the
first tensor input of rank >= 3; every tensor input whose dim has that size varies with it), the sizes each
is tried at, and new inputs of those sizes drawn like the example's values (a candidate's ``ENVELOPE``
literal is read by ``schema/envelope.py:declared``). ``worker.py`` runs the trials.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from .trials import Draws, named_buffers_of, parameters_of

SYMBOLS = (("B", 0, 1), ("S", 1, 3))     # (name, dim, least rank of the first tensor input)
LARGE_BYTES = 1 << 30                    # inputs grown past twice this are not tried; over it, the later trials
                                         # run at the smallest size variant


def free_symbols(envelope: dict[str, Any] | None) -> set[str]:
    """The size symbols an ENVELOPE leaves free: strings among its inputs' "sizes"."""
    if not envelope:
        return set()
    free = set()
    for spec in envelope.get("inputs") or []:
        if isinstance(spec, dict):
            free.update(s for s in spec.get("sizes") or [] if isinstance(s, str))
    return free


def claims_mode(envelope: dict[str, Any] | None, mode: str, device_type: str) -> bool:
    """Whether the candidate's ENVELOPE leaves ``mode`` ("train" or "eval") on its Triton path on
    ``device_type``: no module must be in the other mode for it (its train_only list is empty for eval)."""
    if not envelope or not _on(envelope, device_type):
        return False
    return not envelope.get("train_only" if mode == "eval" else "eval_only")


def unknown_symbols(envelope: dict[str, Any] | None) -> list[str]:
    """Free size names an ENVELOPE declares that the judge does not vary (only "B" and "S" exist)."""
    known = {name for name, _, _ in SYMBOLS}
    return sorted(free_symbols(envelope) - known)


def claims_triton(envelope: dict[str, Any] | None, symbol: str, device_type: str, size: int = 2) -> bool:
    """Whether the candidate claims its Triton path for ``symbol`` = ``size`` on ``device_type`` (a free size is
    claimed from 2 up: a size of 1 broadcasts, and falling back there is allowed)."""
    return symbol in free_symbols(envelope) and size >= 2 and _on(envelope, device_type)


def _on(envelope: dict[str, Any], device_type: str) -> bool:
    """Whether the ENVELOPE's Triton path covers ``device_type`` (all devices when it names none)."""
    device_types = envelope.get("device_types")
    return not isinstance(device_types, list) or device_type in device_types


def tensor_inputs(inputs: list[Any]) -> list[torch.Tensor]:
    """The tensors among ``inputs``, in order."""
    return [x for x in inputs if isinstance(x, torch.Tensor)]


def symbols(inputs: list[Any]) -> dict[str, tuple[int, int]]:
    """Size symbols of the example inputs: name -> (dim, size), from the first tensor input (a size of 1
    never varies: it broadcasts)."""
    tensors = tensor_inputs(inputs)
    if not tensors:
        return {}
    first = tensors[0]
    return {name: (dim, int(first.shape[dim])) for name, dim, rank in SYMBOLS
            if first.dim() >= rank and first.shape[dim] > 1}


def variant_sizes(size: int) -> list[int]:
    """The sizes a symbol is tried at: half (at least 2), twice, and an odd one (7, or 9 when it is 7)."""
    return [max(2, size // 2), 2 * size, 9 if size == 7 else 7]


@dataclass(frozen=True)
class Variant:
    """One size variant: ``symbol`` (at ``dim``) goes from ``size`` to ``new``."""

    symbol: str
    dim: int
    size: int
    new: int

    @property
    def label(self) -> str:
        return f"shape trial ({self.symbol}: {self.size} -> {self.new})"


def judged_sizes(size: int) -> list[int]:
    """The sizes the judge tries a symbol at: ``variant_sizes`` (which the built-in proposer checks before it
    declares a size free), then 1, 16 x size + 5 (past a block size capped without a loop) and 4 x size + 3 (no
    tiling of the example's size covers it; last, so the later trials' odd size is this one where it fits)."""
    return variant_sizes(size) + [1, 16 * size + 5, 4 * size + 3]


def variants(inputs: list[Any]) -> list[Variant]:
    """Every variant of the example inputs, symbol by symbol."""
    return [Variant(name, dim, size, new) for name, (dim, size) in symbols(inputs).items()
            for new in judged_sizes(size)]


def tensor_bytes(inputs: list[Any]) -> int:
    return sum(x.numel() * x.element_size() for x in tensor_inputs(inputs))


def too_large(inputs: list[Any], variant: Variant) -> bool:
    """A variant that grows the inputs beyond 2 x ``LARGE_BYTES`` (it could take more memory than the task)."""
    return variant.new > variant.size and tensor_bytes(inputs) * variant.new > 2 * LARGE_BYTES * variant.size


def fits_later_trials(inputs: list[Any], variant: Variant) -> bool:
    """Whether the inputs at ``variant`` stay within ``LARGE_BYTES`` (or do not grow): then the gradient,
    dtype and mode trials run there too."""
    return variant.new <= variant.size or tensor_bytes(inputs) * variant.new <= LARGE_BYTES * variant.size


def shapes(inputs: list[Any]) -> list[list[int]]:
    """The shape of each tensor input, in order."""
    return [list(x.shape) for x in tensor_inputs(inputs)]


def resized(inputs: list[Any], variant: Variant, seed: int) -> list[Any]:
    """New inputs: every tensor whose ``variant.dim`` has the variant's size gets the new size there, and each
    tensor new values of its dtype and device drawn like its own (see ``_like``). Other inputs pass through."""
    draws = Draws(seed)
    out = []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            shape = list(x.shape)
            if x.dim() > variant.dim and shape[variant.dim] == variant.size:
                shape[variant.dim] = variant.new
            x = _like(x, shape, draws)
        out.append(x)
    return out


def resized_dims(inputs: list[Any], size: int, new: int, seed: int) -> list[Any]:
    """New inputs: every dim of every tensor of length ``size`` made ``new`` long (a constructor's feature
    count the inputs follow), new values drawn like each tensor's own (``_like``). Others pass through."""
    draws = Draws(seed)
    return [_like(x, [new if n == size else n for n in x.shape], draws) if isinstance(x, torch.Tensor) else x
            for x in inputs]


FIXED_SIZES_TRIED = 4    # distinct fixed sizes the judge changes, at most


def fixed_sizes(inputs: list[Any]) -> list[int]:
    """The sizes (above 1) of the dims no size symbol varies: dims 1 and up of every tensor input, less dim 1
    where S is a symbol; the largest ``FIXED_SIZES_TRIED`` of them. A patch must follow them too (another
    image size, another row length), by its kernels or by falling back."""
    found = symbols(inputs)
    sizes = {int(x.shape[dim]) for x in tensor_inputs(inputs) for dim in range(x.dim())
             if _fixed(x, dim, found) and x.shape[dim] > 1}
    return sorted(sizes, reverse=True)[:FIXED_SIZES_TRIED]


def _fixed(x: torch.Tensor, dim: int, found: dict[str, tuple[int, int]]) -> bool:
    """Whether ``dim`` of input ``x`` is one no size symbol varies: not dim 0 (B), nor dim 1 where S is one."""
    return dim >= 1 and not (dim == 1 and "S" in found and x.dim() >= 3)


def resized_fixed(inputs: list[Any], size: int, new: int, seed: int) -> list[Any]:
    """New inputs with every fixed dim (see ``fixed_sizes``) of ``size`` made ``new``, values drawn like the
    example's."""
    found = symbols(inputs)
    draws = Draws(seed)
    return [_like(x, _grown_shape(x, size, new, found), draws) if isinstance(x, torch.Tensor) else x
            for x in inputs]


def _grown_shape(x: torch.Tensor, size: int, new: int, found: dict[str, tuple[int, int]]) -> list[int]:
    """``x``'s shape with each fixed dim of ``size`` made ``new`` (``found``: the inputs' ``symbols``)."""
    return [new if n == size and _fixed(x, dim, found) else n for dim, n in enumerate(x.shape)]


# Sizes past the caps a kernel commonly puts on its tile or its grid without a loop (``min(next_power_of_2(n),
# 1024)``, ``grid = (min(rows, 4096),)``; red team 16, a6 and a12): the example's sizes grown by a factor do not
# reach them. On the CPU (the Triton interpreter runs each program in turn) only the first of each.
ROW_LENGTH_CAPS = (1024, 4096)
ROW_COUNT_CAPS = (4096, 65536)
# the inputs of those trials stay within this (others: PAST_CAPS_GPU); small on the CPU, where a conv's square
# image grown to 1025 x 1025 took 37 s and 2.4 GB in the interpreter
PAST_CAPS_BYTES = {"cpu": 4 << 20}
PAST_CAPS_GPU = 512 << 20


def _past_caps_budget(device_type: str) -> int:
    return PAST_CAPS_BYTES.get(device_type, PAST_CAPS_GPU)


def _caps(caps: tuple[int, ...], device_type: str) -> tuple[int, ...]:
    return caps[:1] if device_type == "cpu" else caps


def long_rows(inputs: list[Any], device_type: str) -> list[tuple[int, int]]:
    """(size, new): the largest fixed size that is the last dim of a tensor input (a row length), at each
    common cap + 1 above it, where the inputs so grown stay within the budget once B is made smaller
    (``past_caps_inputs``)."""
    found = symbols(inputs)
    lasts = [int(x.shape[-1]) for x in tensor_inputs(inputs) if x.dim() >= 1 and _fixed(x, x.dim() - 1, found)]
    if not lasts or max(lasts) < 2:
        return []
    size = max(lasts)
    return [(size, cap + 1) for cap in _caps(ROW_LENGTH_CAPS, device_type) if cap >= size]


def _resized_fixed_bytes(inputs: list[Any], size: int, new: int) -> int:
    """The bytes ``resized_fixed(inputs, size, new, ...)`` would hold, without making them."""
    found = symbols(inputs)
    return sum(math.prod(_grown_shape(x, size, new, found)) * x.element_size() for x in tensor_inputs(inputs))


def past_caps_inputs(inputs: list[Any], size: int, new: int, device_type: str, seed: int) -> list[Any] | None:
    """``resized_fixed(inputs, size, new)`` within the past-the-caps budget: B made smaller first where the grown
    inputs would hold more (nothing over the budget is ever made: a 3-D image grown to 1025 on each side would
    be hundreds of GB); None where even B = 1 holds more, or there is no B to shrink."""
    budget = _past_caps_budget(device_type)
    grown = _resized_fixed_bytes(inputs, size, new)
    if grown > budget:
        found = symbols(inputs).get("B")
        if found is None:
            return None
        dim, batch = found
        smaller = batch * budget // grown
        if smaller < 1:
            return None
        inputs = resized(inputs, Variant("B", dim, batch, smaller), seed)
    return resized_fixed(inputs, size, new, seed)


def many_rows(inputs: list[Any], device_type: str) -> Variant | None:
    """A B variant past a common cap on the row count (the first input's elements over its last dim): the
    largest cap whose rows fit the budget, and only where the judged sizes of B stay below it."""
    found = symbols(inputs).get("B")
    tensors = tensor_inputs(inputs)
    if found is None or tensors[0].dim() < 2 or tensors[0].shape[-1] == 0:
        return None
    dim, size = found
    rows = tensors[0].numel() // tensors[0].shape[-1]
    for cap in reversed(_caps(ROW_COUNT_CAPS, device_type)):
        if rows * max(judged_sizes(size)) // size > cap:
            return None                                   # the shape trials pass it already
        new = -(-(cap + 1) * size // rows)                # ceil: rows past the cap
        if tensor_bytes(inputs) * new <= _past_caps_budget(device_type) * size:
            return Variant("B", dim, size, new)
    return None


LAYOUTS = ("transposed", "sliced", "middle_sliced", "leading_permuted", "channels_last")


def in_layout(inputs: list[Any], layout: str) -> list[Any] | None:
    """The example's values in another memory layout, shapes unchanged: "transposed" (every input of rank 2
    and up transposed in memory), "sliced" (rows of a wider tensor: the last dim dense, the rows further
    apart), "middle_sliced" (inputs of rank 3 and up as ``x[:, 1:]`` of a tensor longer in dim 1, as
    ``logits[:, :-1]`` is: the rows are evenly spaced within a batch entry, not across entries),
    "leading_permuted" (inputs of rank 3 and up with dims 0 and 1 swapped in memory, as after a
    ``transpose(0, 1)`` of a sequence-first tensor), "channels_last" (inputs of rank 4 and 5); None when the
    layout changes no input."""
    def change(x: torch.Tensor) -> torch.Tensor:
        if layout == "transposed" and x.dim() >= 2 and x.shape[-1] > 1 and x.shape[-2] > 1:
            return x.transpose(-1, -2).contiguous().transpose(-1, -2)
        if layout == "sliced" and x.dim() >= 2 and x.shape[-1] > 1 and x.numel() > x.shape[-1]:
            wide = torch.zeros(list(x.shape[:-1]) + [x.shape[-1] + 5], dtype=x.dtype, device=x.device)
            wide[..., :x.shape[-1]] = x
            return wide[..., :x.shape[-1]]
        if layout == "middle_sliced" and x.dim() >= 3 and x.shape[0] > 1:
            longer = torch.zeros([x.shape[0], x.shape[1] + 2] + list(x.shape[2:]), dtype=x.dtype, device=x.device)
            longer[:, 1:x.shape[1] + 1] = x
            return longer[:, 1:x.shape[1] + 1]
        if layout == "leading_permuted" and x.dim() >= 3 and x.shape[0] > 1 and x.shape[1] > 1:
            return x.transpose(0, 1).contiguous().transpose(0, 1)
        if layout == "channels_last" and x.dim() in (4, 5) and x.shape[1] > 1:
            return x.contiguous(memory_format=torch.channels_last if x.dim() == 4 else torch.channels_last_3d)
        return x

    values = [change(x) if isinstance(x, torch.Tensor) else x for x in inputs]
    return values if any(not x.is_contiguous() for x in tensor_inputs(values)) else None


SAMPLE = 1 << 20   # elements of an input its mean and std are estimated from


def _like(x: torch.Tensor, shape: list[int], draws: Draws) -> torch.Tensor:
    """Values for ``shape`` drawn like ``x``'s: floats normal with the mean and std of its finite values (of up to
    ``SAMPLE`` evenly spaced ones; std 1 where it is 0),
    integers uniform over its [min, max], booleans true at its fraction of true elements."""
    g = draws.on(x.device)
    values = x.detach()
    if x.dtype == torch.bool:
        fraction = float(values.double().mean()) if x.numel() else 0.5
        return torch.rand(shape, generator=g, device=x.device) < fraction
    if x.is_floating_point() or x.is_complex():
        sample = values.reshape(-1)[::max(1, x.numel() // SAMPLE)]   # GB-sized inputs: no whole copy
        finite = sample[torch.isfinite(sample)].double()           # a NaN planted in the example is not a scale
        mean = float(finite.mean().real) if finite.numel() else 0.0
        std = float(finite.std()) if finite.numel() > 1 and not x.is_complex() else 0.0
        drawn = torch.randn(shape, generator=g, device=x.device, dtype=torch.float64 if x.dtype == torch.float64
                            else torch.float32)
        return (drawn * (std if std > 0 else 1.0) + mean).to(x.dtype)
    low, high = (int(values.min()), int(values.max())) if x.numel() else (0, 0)
    return torch.randint(low, high + 1, shape, generator=g, device=x.device, dtype=torch.int64).to(x.dtype)


TRIED_DTYPES = (torch.float32, torch.bfloat16, torch.float16, torch.float64)


def mixed_dtype(own: torch.dtype) -> torch.dtype:
    """The dtype of the inputs in the mixed-dtype trial of a module of floating dtype ``own``: bfloat16 (an
    activation from an autocast region into a float32 module), or float32 into a bfloat16 module."""
    return torch.float32 if own == torch.bfloat16 else torch.bfloat16


def weight_layouts(module: torch.nn.Module) -> list[torch.memory_format]:
    """The memory formats ``module.to(memory_format=...)`` converts some of its floating parameters or buffers
    to: channels_last for 4-d ones, channels_last_3d for 5-d ones (convolution weights)."""
    ranks = {t.dim() for t in parameters_of(module) + [b for _, b in named_buffers_of(module)]
             if t.is_floating_point()}
    return [fmt for rank, fmt in ((4, torch.channels_last), (5, torch.channels_last_3d)) if rank in ranks]


def single_float_dtype(inputs: list[Any], module: torch.nn.Module) -> torch.dtype | None:
    """The one floating dtype of the example's floating inputs and the module's floating parameters (None when
    there are several, or none): the judge then tries the others of ``TRIED_DTYPES``."""
    floats = [x for x in tensor_inputs(inputs) if x.is_floating_point()]
    floats += [p for p in module.parameters() if p.is_floating_point()]
    dtypes = {x.dtype for x in floats}
    return dtypes.pop() if len(dtypes) == 1 else None


def floating_dtypes(inputs: list[Any], module: torch.nn.Module) -> list[str]:
    """The floating dtypes of the example's inputs and the module's parameters, by name."""
    tensors = tensor_inputs(inputs) + list(module.parameters())
    return sorted({str(x.dtype) for x in tensors if x.is_floating_point()})


def cpu_trial_applies(device: torch.device) -> bool:
    """The CPU trial (models and inputs moved to the CPU) runs when the judge's device is a GPU."""
    return device.type == "cuda"
