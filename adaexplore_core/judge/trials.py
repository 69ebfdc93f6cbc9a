"""The trials beyond ``get_inputs``: other weights, inputs far from its range, random masks, repeated calls,
and the inputs of the gradient trial.

Each function returns new inputs (or changes a module's state in place) from a seeded generator, so a trial
is reproducible from the request's seed. A kernel that is right only at a module's initial weights, only over
``get_inputs``' range, only for the mask ``get_inputs`` makes, or only on the first calls, fails one of these.
"""
from __future__ import annotations

import ast
import inspect
import io
import pickle
import re
import textwrap
from typing import Any

import torch

SCALE = 50.0
SMALL_SCALE = 0.01     # inputs scaled down: an eps outside the square root shows (red team, 2026-12-03)


class Draws:
    """Seeded random draws made on each tensor's own device, one generator per device (drawn on the CPU, the
    few-elements trial of a 6 GB input ran past the judge's time limit on the H200)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.generators: dict[torch.device, torch.Generator] = {}

    def on(self, device: torch.device) -> torch.Generator:
        if device not in self.generators:
            g = torch.Generator(device=device)
            g.manual_seed(self.seed)
            self.generators[device] = g
        return self.generators[device]


def modules_of(module: torch.nn.Module) -> list[tuple[str, torch.nn.Module]]:
    """Every module under ``module`` (itself first, named "") by dotted path, in ``named_modules``' order, read
    from each module's ``_modules`` table: no method of the module runs. A candidate may override
    ``named_modules``, ``parameters`` or ``state_dict`` to hide a submodule from the judge, or to notice that
    its weights are looked at (and drop a cache then, which a program's optimizer step never does)."""
    found, seen, stack = [], set(), [("", module)]
    while stack:
        path, owner = stack.pop()
        if id(owner) in seen:
            continue
        seen.add(id(owner))
        found.append((path, owner))
        children = [(f"{path}.{name}" if path else name, child)
                    for name, child in vars(owner).get("_modules", {}).items() if child is not None]
        stack.extend(reversed(children))
    return found


def own_tensors(owner: torch.nn.Module, table: str) -> list[tuple[str, torch.Tensor]]:
    """The tensors in one module's own ``_parameters`` or ``_buffers`` table (not its submodules')."""
    return [(name, t) for name, t in vars(owner).get(table, {}).items() if t is not None]


def _named_tensors(module: torch.nn.Module, table: str, persistent_only: bool = False
                   ) -> list[tuple[str, torch.Tensor]]:
    found, seen = [], set()
    for path, owner in modules_of(module):
        skip = vars(owner).get("_non_persistent_buffers_set", set()) if persistent_only else set()
        for name, tensor in own_tensors(owner, table):
            if id(tensor) in seen or name in skip:
                continue
            seen.add(id(tensor))
            found.append((f"{path}.{name}" if path else name, tensor))
    return found


def named_parameters_of(module: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    """``module.named_parameters()`` as nn.Module defines it, read from the tables (see ``modules_of``)."""
    return _named_tensors(module, "_parameters")


def parameters_of(module: torch.nn.Module) -> list[torch.Tensor]:
    return [p for _, p in named_parameters_of(module)]


def named_buffers_of(module: torch.nn.Module, persistent_only: bool = False) -> list[tuple[str, torch.Tensor]]:
    """``module.named_buffers()`` as nn.Module defines it, read from the tables (see ``modules_of``);
    ``persistent_only``: those a ``state_dict`` holds."""
    return _named_tensors(module, "_buffers", persistent_only)


def submodule_of(module: torch.nn.Module, path: str) -> torch.nn.Module:
    """The submodule at dotted ``path`` ("" is ``module``), read from the tables; AttributeError if none."""
    found = dict(modules_of(module))
    if path not in found:
        raise AttributeError(f"{type(module).__name__} has no submodule {path!r}")
    return found[path]


def _uniform_like(x: torch.Tensor, low: float, high: float, draws: Draws) -> torch.Tensor:
    return (torch.rand(x.shape, generator=draws.on(x.device), dtype=torch.float64, device=x.device)
            * (high - low) + low).to(x.dtype)


def randomize_state(module: torch.nn.Module, seed: int) -> int:
    """Give every floating parameter and buffer new random values; returns how many tensors changed.

    Each value is scaled by a factor in [0.5, 1.5) and shifted by noise of the tensor's own spread (or 0.5 for
    constant tensors such as a LayerNorm's ones and zeros); tensors that are never negative (variances) stay
    non-negative."""
    draws = Draws(seed)
    changed = 0
    with torch.no_grad():
        for tensor in parameters_of(module) + _state_buffers(module):
            if not tensor.is_floating_point() or tensor.numel() == 0:
                continue
            tensor.copy_(_perturbed(tensor, draws))
            changed += 1
    return changed


def _perturbed(tensor: torch.Tensor, draws: Draws) -> torch.Tensor:
    """New values for ``tensor``: each scaled by a factor in [0.5, 1.5) and shifted by noise of its spread (0.5
    for constant tensors); never negative where the tensor is not (variances)."""
    spread = float(tensor.detach().double().std()) if tensor.numel() > 1 else 0.0
    spread = spread if spread > 0 else 0.5
    value = tensor * _uniform_like(tensor, 0.5, 1.5, draws) + _uniform_like(tensor, -spread, spread, draws)
    return value.abs() if bool((tensor >= 0).all()) else value


def _state_buffers(module: torch.nn.Module) -> list[torch.Tensor]:
    """Buffers that hold state a checkpoint carries (running statistics, learned scales): persistent ones whose
    values are not all 0 and 1. Non-persistent buffers (rotary frequencies) and 0/1 masks (a causal mask
    kept as a float buffer) are structure, not weights: an honest kernel may compute them itself."""
    found = []
    for _, owner in modules_of(module):
        skip = vars(owner).get("_non_persistent_buffers_set", set())
        for name, buffer in own_tensors(owner, "_buffers"):
            if name in skip or not buffer.is_floating_point():
                continue
            if bool(((buffer == 0) | (buffer == 1)).all()) and buffer.numel() > 1 and not _is_statistic(name):
                continue
            found.append(buffer)
    return found


def _is_statistic(name: str) -> bool:
    return name.startswith("running_")        # batch norm's running_var starts at all ones


def map_tensors(value: Any, fn: Any) -> Any:
    """``value`` with ``fn`` applied to each tensor in it, inside lists, tuples and dicts too (a forward that
    takes a list of tensors; red team, 2026-12-03: the trials saw only top-level tensors)."""
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(map_tensors(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: map_tensors(v, fn) for k, v in value.items()}
    return value


def tensors_in(value: Any) -> list[torch.Tensor]:
    """The tensors in ``value`` (see ``map_tensors``), in order."""
    found: list[torch.Tensor] = []
    map_tensors(value, lambda x: found.append(x) or x)
    return found


def _map_floats(inputs: list[Any], fn: Any) -> list[Any]:
    return [map_tensors(x, lambda t: fn(t) if t.is_floating_point() else t) for x in inputs]


def has_floats(inputs: list[Any]) -> bool:
    return any(x.is_floating_point() for x in tensors_in(inputs))


def has_masks(inputs: list[Any]) -> bool:
    return any(isinstance(x, torch.Tensor) and x.dtype == torch.bool for x in inputs)


def scaled(inputs: list[Any], factor: float = SCALE) -> list[Any]:
    """Floating inputs times ``factor`` (50: large values; SMALL_SCALE: activations of a small scale)."""
    return _map_floats(inputs, lambda x: x * factor)


def shift_of(inputs: list[Any]) -> float:
    """How far ``shifted`` moves the inputs: 4 + 4 * the largest magnitude of any floating input."""
    largest = max((float(x.detach().abs().max()) for x in inputs
                   if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel()), default=0.0)
    return 4.0 + 4.0 * largest


def shifted(inputs: list[Any], sign: float = -1.0) -> list[Any]:
    """Floating inputs moved below zero (``sign`` -1) or above it (+1) by ``shift_of(inputs)``."""
    shift = shift_of(inputs) * sign
    return _map_floats(inputs, lambda x: x + shift)


FAR_SHIFT = 64.0   # the far shift: this many times ``shift_of`` (a mean far above the spread: one-pass variances)


def rounded(inputs: list[Any]) -> list[Any]:
    """Floating inputs rounded to integers: many equal values (ties for argmax, sort, max pooling)."""
    return _map_floats(inputs, torch.round)


def masked_prefix(inputs: list[Any]) -> list[Any]:
    """Floating inputs of rank 1 and up with the first quarter (at least one) of each row (last dim) -inf, as
    masked attention scores are (left padding): a blocked online softmax must not make NaN of a block of -inf."""
    def masked(x: torch.Tensor) -> torch.Tensor:
        if x.dim() == 0 or x.shape[-1] < 2:
            return x
        x = x.clone()
        x[..., :max(1, x.shape[-1] // 4)] = float("-inf")
        return x
    return _map_floats(inputs, masked)


def has_integers(inputs: list[Any]) -> bool:
    return any(isinstance(x, torch.Tensor) and not x.is_floating_point() and x.dtype != torch.bool
               and x.is_signed() for x in inputs)


def ignored_indices(inputs: list[Any], seed: int) -> list[Any]:
    """Signed integer inputs with a tenth of their elements, and at least the first, set to -100 (PyTorch's
    ``ignore_index``: padded targets of a loss)."""
    return _some_indices_set(inputs, seed, lambda x: -100)


def past_indices(inputs: list[Any], seed: int) -> list[Any]:
    """Signed integer inputs with a tenth of their elements, and at least the first, set to twice their largest
    value plus one (an id past an embedding's table, a class past the logits: where the reference raises)."""
    return _some_indices_set(inputs, seed,
                             lambda x: min(2 * max(int(x.max()), 0) + 1, torch.iinfo(x.dtype).max))


def _some_indices_set(inputs: list[Any], seed: int, value: Any) -> list[Any]:
    """Each non-empty signed integer input with a tenth of its elements, and at least the first, set to
    ``value(x)``."""
    draws = Draws(seed)

    def changed(x: torch.Tensor) -> torch.Tensor:
        pick = torch.rand(x.shape, generator=draws.on(x.device), device=x.device) < 0.1
        pick.view(-1)[:1] = True                 # a small input gets one too
        return x.masked_fill(pick, value(x))
    return [changed(x) if isinstance(x, torch.Tensor) and not x.is_floating_point() and x.dtype != torch.bool
            and x.is_signed() and x.numel() else x for x in inputs]


def broadcast_variants(inputs: list[Any]) -> list[tuple[int, list[Any]]]:
    """(input index, inputs) with one tensor input after the first, of rank 2 and up, cut to size 1 in dim 0
    where the first input has its shape: the reference broadcasts it (a bias row, one mask for the batch)."""
    found = []
    shapes = [tuple(x.shape) if isinstance(x, torch.Tensor) else None for x in inputs]
    first = next((s for s in shapes if s is not None), None)
    for i, x in enumerate(inputs):
        if i > 0 and isinstance(x, torch.Tensor) and x.dim() >= 2 and x.shape[0] > 1 and shapes[i] == first \
                and shapes.index(first) < i:
            found.append((i, [y[:1].clone() if j == i else y for j, y in enumerate(inputs)]))
    return found


def random_masks(inputs: list[Any], seed: int) -> list[Any]:
    """Boolean inputs replaced by random ones (each element true with probability one half)."""
    draws = Draws(seed)
    return [torch.rand(x.shape, generator=draws.on(x.device), device=x.device) < 0.5 if isinstance(x, torch.Tensor)
            and x.dtype == torch.bool else x for x in inputs]


def permuted_masks(inputs: list[Any], seed: int) -> list[Any]:
    """Boolean inputs with the elements of each row (last dim) shuffled: every row keeps its count of true
    elements (a causal mask's counts, say) while the positions change."""
    draws = Draws(seed)
    out = []
    for x in inputs:
        if isinstance(x, torch.Tensor) and x.dtype == torch.bool and x.dim() >= 1 and x.shape[-1] > 1:
            rows = x.reshape(-1, x.shape[-1])
            order = torch.argsort(torch.rand(rows.shape, generator=draws.on(x.device), device=x.device), dim=1)
            out.append(torch.gather(rows, 1, order).reshape(x.shape))
        else:
            out.append(x)
    return out


def changed_in_place(module: torch.nn.Module, seed: int, pattern: str) -> int:
    """Change part of every floating parameter and state buffer (those ``randomize_state`` changes) in place, as
    a program does between calls (an optimizer step, an EMA update, pruning a feature): "column", one random
    index of the last dim; "fraction", a random quarter of the elements. Returns how many tensors changed."""
    draws = Draws(seed)
    changed = 0
    with torch.no_grad():
        for tensor in parameters_of(module) + _state_buffers(module):
            if not tensor.is_floating_point() or tensor.numel() == 0:
                continue
            g = draws.on(tensor.device)
            if pattern == "column":
                where = torch.zeros(tensor.shape, dtype=torch.bool, device=tensor.device)
                if tensor.dim() == 0:
                    where.fill_(True)
                else:
                    where[..., int(torch.randint(tensor.shape[-1], (1,), generator=g, device=tensor.device))] = True
            else:
                where = torch.rand(tensor.shape, generator=g, device=tensor.device) < 0.25
            tensor.copy_(torch.where(where, _perturbed(tensor, draws), tensor))
            changed += 1
    return changed


def float_settings(module: torch.nn.Module) -> list[tuple[str, str, float]]:
    """(module path, attribute, value) of the plain float attributes of every submodule (a temperature, an
    eps, a negative slope, a dropout's p: a trainer's schedule sets it; red team, 2026-12-03): a program may
    set them, and a patch must follow."""
    found = []
    for path, owner in modules_of(module):
        for name, value in vars(owner).items():
            if not name.startswith("_") and type(value) is float:
                found.append((path, name, value))
    return found


def other_value(value: float) -> float:
    """Another value for a float setting or argument (1.5 x, plus 0.25: zero and tiny values change too)."""
    return value * 1.5 + 0.25


def other_values(value: Any, function: Any, name: str | None, strings: int = 4) -> list[Any]:
    """Other values a program may give the parameter ``name`` of ``function``, now ``value``: an int at the
    next and the previous value and at twice itself plus one (a block that covers the size and a little
    more passes +-1), a bool flipped, a float changed (``other_value``) and negated (red team, 2026-12-03:
    ``scale * amax(x)`` for ``amax(x * scale)``), a string at every other option ``function`` compares it
    with, filled up to ``strings`` in all with other strings (``string_values``; none without a parameter
    name); nothing for other values."""
    if type(value) is bool:
        return [not value]
    if type(value) is int:
        return [value + 1, value - 1] + ([2 * value + 1] if value > 1 else [])
    if type(value) is float:
        return [other_value(value)] + ([-value] if value != 0 else [])
    if type(value) is str and name is not None:
        return string_values(function, name, value, strings)
    return []


# Strings torch's own functions take as options (reduction, approximate, mode, padding_mode, nonlinearity, ...):
# tried where a reference passes a string argument on to torch (red team, 2026-12-03: F.mse_loss(reduction=r))
TORCH_STRING_OPTIONS = ("sum", "none", "mean", "batchmean", "tanh", "max", "min", "avg", "prod", "nearest",
                        "bilinear", "bicubic", "linear", "area", "nearest-exact", "reflect", "replicate",
                        "circular", "zeros", "same", "valid", "fan_in", "fan_out", "relu", "gelu", "silu")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{0,31}")


def string_values(function: Any, name: str, current: str, at_most: int = 4) -> list[str]:
    """Other strings a program may pass for ``function``'s string parameter ``name`` instead of ``current``
    (red team b21: a patch that ignored a string argument passed with its default alone): first those
    ``function`` compares it with (``reduction == "sum"``, ``mode in (...)``, ``reduction.lower() == ...``,
    ``match reduction: case "sum"``), then the other identifier-like strings of its module (a dict keyed by
    the options, a helper that compares them; red team, 2026-12-03), then torch's own option strings (a
    reference that passes it on to torch). Every compared option is returned (red team, 2026-12-03: a
    fifth and a third option), the others up to ``at_most``. Values the reference refuses are skipped by
    the trials."""
    found: list[str] = []

    def add(value: Any) -> None:
        if isinstance(value, str) and value != current and value not in found and IDENTIFIER.fullmatch(value):
            found.append(value)

    for node in ast.walk(_parsed(function)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_names(o, name) for o in operands):
                for operand in operands:
                    for c in operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]:
                        if isinstance(c, ast.Constant):
                            add(c.value)
        elif isinstance(node, ast.Match) and _names(node.subject, name):
            for case in node.cases:
                for pattern in ast.walk(case.pattern):
                    if isinstance(pattern, ast.MatchValue) and isinstance(pattern.value, ast.Constant):
                        add(pattern.value.value)
    compared = len(found)
    module = inspect.getmodule(function)
    for node in ast.walk(_parsed(module) if module is not None else ast.Module(body=[], type_ignores=[])):
        if isinstance(node, ast.Expr):                  # docstrings and bare strings are not options
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Constant):
                add(child.value)
    for option in TORCH_STRING_OPTIONS:
        add(option)
    return found[:max(compared, at_most)]


def _parsed(source_of: Any) -> ast.AST:
    """The AST of an object's source (empty where it has none)."""
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(source_of)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return ast.Module(body=[], type_ignores=[])


def _names(node: ast.AST, name: str) -> bool:
    """Whether ``node`` reads the parameter ``name``: the name, ``self.name``, or a method call on either
    (``name.lower()``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr == name
    return isinstance(node, ast.Name) and node.id == name


def pickled_copy(obj: Any) -> Any:
    """``pickle.loads(pickle.dumps(obj))`` with every tensor storage passed by reference (``persistent_id``),
    not as bytes: everything else of ``obj`` (its classes, attributes, functions) goes through pickle as
    ``torch.save`` takes it, at no cost for the weights; the copy's tensors share ``obj``'s memory."""
    storages: list[Any] = []

    class Keeping(pickle.Pickler):
        def persistent_id(self, value: Any) -> Any:
            if isinstance(value, (torch.UntypedStorage, torch.storage.TypedStorage)):
                storages.append(value)
                return len(storages) - 1
            return None

    class Sharing(pickle.Unpickler):
        def persistent_load(self, pid: Any) -> Any:
            return storages[pid]

    data = io.BytesIO()
    Keeping(data, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    data.seek(0)
    return Sharing(data).load()


def copy_state(source: torch.nn.Module, target: torch.nn.Module) -> None:
    """Write ``source``'s parameters and persistent buffers into ``target``'s tensors of the same names, in place,
    as an optimizer step or an EMA update changes weights: read and written through the modules' tables, so no
    method of either module runs (no load_state_dict, state_dict or parameters call a module could count)."""
    values = dict(state_tensors(source))
    with torch.no_grad():
        for name, tensor in state_tensors(target):
            if name in values and tensor.shape == values[name].shape:
                tensor.data.copy_(values[name])


def state_tensors(module: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    """The tensors a ``state_dict`` holds, by name, read from the tables (see ``modules_of``)."""
    return named_parameters_of(module) + named_buffers_of(module, persistent_only=True)


def refill(inputs: list[Any], new_values: list[Any]) -> None:
    """Copy ``new_values`` into ``inputs`` in place (same tensor objects, same memory; inside lists too)."""
    with torch.no_grad():
        for x, v in zip(tensors_in(inputs), tensors_in(new_values)):
            x.copy_(v)


def few_elements_changed(inputs: list[Any], seed: int, swapped: bool = False) -> list[Any]:
    """New tensors equal to ``inputs`` except a few random elements (about one in 64, at least one) of each
    floating input, each replaced by -3 times itself plus noise, and a few swapped elements of each integer or
    boolean input: a cache keyed on a few sampled values still hits, while the outputs at those places change.
    ``swapped``: floating inputs get swapped elements too, so their max, min, sum and norm stay (a cache keyed
    on those statistics hits)."""
    draws = Draws(seed)
    out = []
    for x in inputs:
        swap = swapped or not (isinstance(x, torch.Tensor) and x.is_floating_point())
        if isinstance(x, torch.Tensor) and x.numel() > (1 if swap else 0):
            g = draws.on(x.device)
            y = x.clone(memory_format=torch.contiguous_format)
            flat = y.view(-1)
            count = max(2, x.numel() // 64) // 2 * 2 if swap else max(1, x.numel() // 64)
            picks = torch.randint(0, x.numel(), (count,), generator=g, device=x.device)
            if not swap:
                noise = torch.randn(count, generator=g, dtype=torch.float64, device=x.device).to(x.dtype)
                flat[picks] = flat[picks] * -3.0 + noise
            else:                                                   # integers and masks: a few swapped
                flat[picks] = flat[picks.flip(0)]
            out.append(y)
        else:
            out.append(x.clone() if isinstance(x, torch.Tensor) else x)
    return out


def leaf_copies(inputs: list[Any], requires: Any = None) -> list[Any]:
    """Fresh leaf copies of the floating inputs (one set per model) in their own memory layout (strides kept:
    a transposed or sliced input stays one), requiring grad where ``requires(i)`` (default: every floating
    input); other tensors cloned, other values passed through."""
    out = []
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            try:
                copy = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
                with torch.no_grad():
                    copy.copy_(x)
            except RuntimeError:         # elements that share memory (an expanded input): a dense copy
                copy = x.detach().clone(memory_format=torch.contiguous_format)
            out.append(copy.requires_grad_(requires is None or bool(requires(i))))
        else:
            out.append(x.clone() if isinstance(x, torch.Tensor) else x)
    return out


def broadcast_all(inputs: list[Any]) -> list[Any] | None:
    """Every tensor input after the first of the first's shape (rank 2 and up) cut to size 1 in dim 0, as
    ``broadcast_variants`` cuts one: a gate or bias row broadcast over the batch; None where none is."""
    cut = {i for i, _ in broadcast_variants(inputs)}
    if not cut:
        return None
    return [x[:1].clone() if i in cut else x for i, x in enumerate(inputs)]


def output_grads(outputs: list[torch.Tensor], seed: int) -> list[torch.Tensor | None]:
    """A random ``grad_output`` for each floating output that requires grad (None for the others)."""
    draws = Draws(seed)
    return [torch.randn(o.shape, generator=draws.on(o.device), device=o.device, dtype=torch.float32).to(o.dtype)
            if o.is_floating_point() and o.requires_grad else None for o in outputs]


def tangents(inputs: list[Any], seed: int) -> list[torch.Tensor | None]:
    """A random tangent for each floating tensor input of the forward-mode trial (None for the others)."""
    draws = Draws(seed)
    return [torch.randn(x.shape, generator=draws.on(x.device), device=x.device, dtype=torch.float32).to(x.dtype)
            if isinstance(x, torch.Tensor) and x.is_floating_point() else None for x in inputs]


def loss(outputs: list[torch.Tensor], grads: list[torch.Tensor | None]) -> torch.Tensor:
    """sum((output * grad_output).sum()) over the outputs that have a grad_output: its backward pass gives
    every input and parameter the gradient of the outputs along ``grads``."""
    return sum(((o * g).sum() for o, g in zip(outputs, grads) if g is not None), torch.zeros(()))


BACKWARDS = ("plain", "strided", "expanded", "narrowed", "outputs_changed", "twice", "second_order",
             "grad_function")
NARROWED_EXTRA = 3     # "narrowed": columns of other features concatenated after each output


class GradWritten(Exception):
    """A backward wrote into a ``.grad`` while ``torch.autograd.grad`` ran (which never writes ``.grad``)."""


def backward(outputs: list[torch.Tensor], grads: list[torch.Tensor | None], how: str,
             leaves: list[torch.Tensor]) -> None:
    """The backward pass of ``loss(outputs, grads)`` as a training program runs it: "plain"; "strided", the
    grad_output reaching the module non-contiguous (the loss reads the outputs transposed); "twice", with
    retain_graph (the .grads add up to twice); "second_order", a gradient penalty: the first-order gradients
    of ``leaves`` made with create_graph, then the backward of their squared norm; "grad_function", the
    gradients taken with ``torch.autograd.grad`` (which must leave every ``.grad`` as it was: GradWritten
    otherwise; red team b12) and then added to ``.grad``, so that they are compared as the others;
    "expanded", each output summed and scaled by one number of its grad_output, as ``out.sum().backward()``
    does: the grad_output reaching the module is a broadcast scalar, stride 0 (red team 2026-12-04: a
    backward that wrote its result into grad_output's memory). In "second_order", grad_outputs that require
    grad get the penalty's gradient too, as a layer after the module (a critic's head) gets it. "narrowed":
    each output concatenated with other features in its last dim before the loss (``torch.cat([out, feats],
    -1)``): the grad_output reaching the module is a column slice of a wider tensor, its rows further apart
    than its width (red team 16, a7). "outputs_changed": each output changed in place before the loss, as
    ``out += identity`` does in a residual block: a backward that reads an output it kept without
    ``save_for_backward`` reads the changed values (red team 16, a5); the loss's gradient is the same."""
    if how == "narrowed":
        total = torch.zeros(())
        for o, g in zip(outputs, grads):
            if g is None:
                continue
            if o.dim() >= 1:
                extra = o.new_zeros(o.shape[:-1] + (NARROWED_EXTRA,))
                wide = torch.cat([o, extra], -1)
                wide_grad = torch.cat([g, extra.detach().to(g.dtype)], -1)
                total = total + (wide * wide_grad).sum()
            else:
                total = total + (o * g).sum()
        total.backward()
    elif how == "outputs_changed":
        for o, g in zip(outputs, grads):
            if g is not None:
                o.add_(g.detach())
        loss(outputs, grads).backward()
    elif how == "expanded":
        total = torch.zeros(())
        for o, g in zip(outputs, grads):
            if g is None:
                continue
            scale = g.reshape(-1)[0].detach() if g.numel() else 1.0
            total = total + o.sum() * scale
        total.backward()
    elif how == "strided":
        total = torch.zeros(())
        for o, g in zip(outputs, grads):
            if g is None:
                continue
            if o.dim() >= 2:                     # d total / d o = g, with the strides of a transpose
                total = total + (o.transpose(-1, -2) * g.transpose(-1, -2).contiguous()).sum()
            else:
                total = total + (o * g).sum()
        total.backward()
    elif how == "twice":
        value = loss(outputs, grads)
        value.backward(retain_graph=True)
        value.backward()
    elif how == "second_order":
        firsts = torch.autograd.grad(loss(outputs, grads), leaves, create_graph=True, allow_unused=True)
        sum(((f * f).sum() for f in firsts if f is not None), torch.zeros(())).backward()
    elif how == "grad_function":
        held = [None if t.grad is None else t.grad.clone() for t in leaves]
        found = torch.autograd.grad(loss(outputs, grads), leaves, allow_unused=True)
        for i, (t, before) in enumerate(zip(leaves, held)):
            if not (t.grad is None and before is None or t.grad is not None and before is not None
                    and torch.equal(t.grad, before)):
                raise GradWritten(f"the .grad of leaf {i} changed during torch.autograd.grad: a backward must "
                                  "return its gradients, not write them into .grad")
        with torch.no_grad():
            for t, g in zip(leaves, found):
                if g is not None:
                    t.grad = g.clone() if t.grad is None else t.grad + g
    else:
        loss(outputs, grads).backward()


class TwoCalls(torch.nn.Module):
    """``model`` called twice before one backward, as a siamese or contrastive training step calls it: the
    second time on the floating inputs reversed along their first dimension and scaled by 0.75 (the others as
    given), or on ``second`` (inputs of another size, as two batches of different lengths); both calls'
    outputs returned. A patch that keeps one workspace, or one launch plan, for what its backward reads finds
    the second call's there in the first call's backward (red team b17, 2026-12-04)."""

    def __init__(self, model: torch.nn.Module, second: list[Any] | None = None) -> None:
        super().__init__()
        self.model = model
        self.second = second

    def _apply(self, fn: Any, recurse: bool = True) -> "TwoCalls":
        """``.double()`` and ``.to()`` convert the second call's inputs with the model (the float64
        evaluation would otherwise run the second call in the trial's dtype)."""
        super()._apply(fn, recurse)
        if self.second is not None:
            self.second = [fn(x) if isinstance(x, torch.Tensor) else x for x in self.second]
        return self

    def forward(self, *inputs: Any) -> tuple[torch.Tensor, ...]:
        from ..task import flatten_outputs
        first = flatten_outputs(self.model(*inputs), "the model's")
        again = self.second if self.second is not None else [_second_call(x) for x in inputs]
        second = flatten_outputs(self.model(*again), "the model's")
        return (*first, *second)


def _second_call(x: Any) -> Any:
    if not (isinstance(x, torch.Tensor) and x.is_floating_point()):
        return x
    return (x.flip(0) if x.dim() else x) * 0.75


def leaves(module: torch.nn.Module, inputs: list[Any]) -> list[torch.Tensor]:
    """What a backward reaches: the inputs that require grad, then the parameters that do (by name order)."""
    return [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad] + \
        [p for _, p in sorted(named_parameters_of(module), key=lambda item: item[0]) if p.requires_grad]


def prefill_grads(reference: torch.nn.Module, candidate: torch.nn.Module, seed: int) -> dict[str, torch.Tensor]:
    """Give every parameter of both modules that requires grad the same random ``.grad`` (by name), as after
    an earlier micro-batch; returns those values by name. A backward must add to them."""
    draws = Draws(seed)
    cand = dict(named_parameters_of(candidate))
    filled = {}
    for name, p in named_parameters_of(reference):
        if p.requires_grad and p.is_floating_point():
            g = torch.randn(p.shape, generator=draws.on(p.device), device=p.device, dtype=torch.float32).to(p.dtype)
            filled[name] = g
            p.grad = g.clone()
            if name in cand:
                cand[name].grad = g.clone()
    return filled


def clear_grads(module: torch.nn.Module) -> None:
    """Drop the parameters' ``.grad`` and detach buffers a forward with autograd left attached to a graph
    (a running average rebound from an input), so that later trials start as they would have."""
    for p in parameters_of(module):
        p.grad = None
    for _, owner in modules_of(module):
        for name, buffer in own_tensors(owner, "_buffers"):
            if buffer.requires_grad:
                setattr(owner, name, buffer.detach())
