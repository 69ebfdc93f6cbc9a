"""The witnessed trial: the candidate's outputs on one set of inputs, compared where no candidate code has run.

Every check of ``worker.py`` runs in the candidate's own process, so a candidate that got past the static guard
could write its verdict itself. The witnessed trial takes the last word from that process: the candidate's
process only *records* ModelNew's outputs on inputs of a seed drawn for the request (``record``, first thing
after the candidate is built, before any trial changes its state), as plain bytes in its folder. After it has
exited, the zygote's witness process (forked once per slot, sandboxed like a candidate's, kept between
candidates since it never imports one: ``zygote._Witness``) builds the reference with the same weights, runs it on the same inputs, reads the recorded outputs with a
parser that only accepts dtypes and shapes (``read_outputs``, no pickle) and compares them with the judge's
tolerances (``check``). A valid verdict stands only when the witness agrees.

The same is done for one backward (the gradients of the floating inputs and of the reference's parameters, by
name, for output gradients drawn from a seed), where the reference is differentiable. Outputs or gradients of
more than ``MAX_BYTES`` together, and gradients of inputs over ``GRADIENT_INPUT_BYTES``, are not witnessed (the
check says so); the reference's side, not the candidate's files, decides that.
"""
from __future__ import annotations

import copy
import gc
import json
import os
import random
import struct
import sys
import sysconfig
from pathlib import Path
from typing import Any

import torch

from . import sandbox

OUTPUT_FILE = "witnessed-outputs.bin"
GRADIENT_FILE = "witnessed-gradients.bin"
MAX_BYTES = 512 << 20                 # outputs (or gradients) larger than this together are not witnessed
GRADIENT_INPUT_BYTES = 1 << 30        # nor gradients of inputs larger than this (the backward's memory)
CHUNK_BYTES = 32 << 20
MAGIC = b"ADAXWIT1"
DTYPES = {str(d).removeprefix("torch."): d for d in (
    torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
    torch.int8, torch.uint8, torch.bool, torch.complex64, torch.complex128)}


class WitnessError(Exception):
    """The recorded outputs are missing or malformed."""


def build_seed(request: Any) -> int:
    """The seed both models are built under (in the candidate's process and again in the witness's)."""
    return random.Random(f"build-{request.seed}").getrandbits(62)


def warmup_seed(request: Any) -> int:
    """The seed of the reference's first forward, before the candidate takes its state (lazy initialisations)."""
    return random.Random(f"warmup-{request.seed}").getrandbits(62)


def inputs_seed(request: Any) -> int:
    """The seed of the witnessed trial's inputs and of torch's generators before its forwards."""
    return random.Random(f"witness-{request.seed}-{request.nonce}").getrandbits(62)


def write_outputs(path: Path, outputs: list[torch.Tensor]) -> None:
    """``outputs`` as: magic, header length, a JSON header of dtypes and shapes, then each tensor's bytes, in
    files ``path.000``, ``path.001``, ... of at most ``CHUNK_BYTES`` each (a judge process may write no file
    over 64 MiB: ``worker.LOG_LIMIT_BYTES``). The tensors' bytes are written from their own memory, not copied
    (hundreds of MiB of gradients for a large Linear)."""
    plain = [o.detach().to("cpu").contiguous() for o in outputs]
    header = json.dumps([{"dtype": str(o.dtype).removeprefix("torch."), "shape": list(o.shape)}
                         for o in plain]).encode()
    pieces = [memoryview(MAGIC + struct.pack("<Q", len(header)) + header)] + \
        [memoryview(o.reshape(-1).view(torch.uint8).numpy()) for o in plain if o.numel()]
    index, room = 0, CHUNK_BYTES
    f = _chunk(path, index).open("wb")
    try:
        for piece in pieces:
            while len(piece):
                if room == 0:
                    f.close()
                    index, room = index + 1, CHUNK_BYTES
                    f = _chunk(path, index).open("wb")
                written = min(room, len(piece))
                f.write(piece[:written])
                piece, room = piece[written:], room - written
    finally:
        f.close()


def _chunk(path: Path, index: int) -> Path:
    return path.with_name(f"{path.name}.{index:03d}")


def _read_chunks(path: Path) -> bytearray:
    data, chunks = bytearray(), 0
    for index in range(MAX_BYTES // CHUNK_BYTES + 2):
        try:
            data += _read_chunk(_chunk(path, index))
        except FileNotFoundError:
            break
        except OSError as e:
            raise WitnessError(f"the recorded outputs cannot be read ({e.strerror})") from e
        chunks += 1
    if not chunks:
        raise WitnessError("no recorded outputs")
    return data


def _read_chunk(path: Path) -> bytes:
    """One chunk file, read only if it is a regular file (not a link: to /dev/zero it would never end; review,
    2026-12-02; nor a pipe, which would block the read) of at most CHUNK_BYTES."""
    try:
        data = sandbox.read_plain_file(path, CHUNK_BYTES)
    except sandbox.NotPlainFile as e:
        raise WitnessError("the recorded outputs are not a plain file") from e
    if len(data) > CHUNK_BYTES:
        raise WitnessError("a file of the recorded outputs is larger than the judge writes")
    return data


def read_outputs(path: Path) -> list[torch.Tensor]:
    """The tensors of a file ``write_outputs`` wrote; WitnessError for anything else."""
    data = _read_chunks(path)
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 8:
        raise WitnessError("the recorded outputs are not in the judge's format")
    (length,) = struct.unpack_from("<Q", data, len(MAGIC))
    start = len(MAGIC) + 8
    try:
        header = json.loads(data[start:start + length].decode())
        entries = [(DTYPES[e["dtype"]], [int(s) for s in e["shape"]]) for e in header]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise WitnessError("the recorded outputs have a malformed header") from e
    offset, tensors = start + length, []
    for dtype, shape in entries:
        if any(s < 0 for s in shape):
            raise WitnessError("the recorded outputs have a negative size")
        count = 1
        for s in shape:
            count *= s
        size = count * torch.empty((), dtype=dtype).element_size()
        if offset + size > len(data):
            raise WitnessError("the recorded outputs are shorter than their header says")
        raw = torch.frombuffer(data, dtype=torch.uint8, count=size, offset=offset) if size else None
        tensors.append(raw.view(dtype).reshape(shape) if raw is not None else torch.empty(shape, dtype=dtype))
        offset += size
    if offset != len(data):
        raise WitnessError("the recorded outputs are longer than their header says")
    return tensors


def record(task: Any, candidate: Any, reference: Any, request: Any, device: torch.device, folder: Path) -> None:
    """In the candidate's process: ModelNew's outputs on the witnessed inputs, then the gradients of a backward
    on other inputs (inputs and the reference's parameters, by name), written to its folder."""
    outputs = _forward(candidate, task, request, device)
    if not all(_plain(o) for o in outputs):
        return                  # the trials reject such outputs; with nothing recorded, so would the witness
    if _bytes(outputs) <= MAX_BYTES:
        write_outputs(folder / OUTPUT_FILE, outputs)
    grads = _differentiated(candidate, _parameter_shapes(reference), task, request, device)
    if grads is not None and all(_plain(g) for g in grads) and _bytes(grads) <= MAX_BYTES:
        write_outputs(folder / GRADIENT_FILE, grads)


def replay(task: Any, reference: Any, request: Any, device: torch.device) -> None:
    """In the candidate's process: the calls ``record`` made, on the reference, so that both models' state
    (running statistics) moves alike before the trials."""
    _forward(reference, task, request, device)
    _differentiated(reference, _parameter_shapes(reference), task, request, device)


def _differentiated(model: Any, shapes: dict[str, torch.Size], task: Any, request: Any,
                    device: torch.device, double: bool = False) -> list[torch.Tensor] | None:
    """``_gradients``, or None where the backward cannot run (a forward that updates its input in place): the
    witness then decides from the reference's side alone."""
    try:
        return _gradients(model, shapes, task, request, device, double)
    except Exception:  # noqa: BLE001 - not differentiable here; the gradient trials say why
        return None


def check(request: Any, device: torch.device, candidate_folder: Path) -> tuple[bool, str]:
    """In the witness's process: (whether the recorded outputs and gradients are the reference's, a detail).
    The reference's own modules (its file and what it imports from the user's folders) are forgotten after
    the check, and collected: the next check imports them as edited since, as a candidate's fresh process
    does."""
    imported = set(sys.modules)
    try:
        return _check(request, device, candidate_folder)
    finally:
        for name in _users_modules(set(sys.modules) - imported):
            del sys.modules[name]
        gc.collect()        # and what they made: a torch.library namespace is freed only then (red team c3)


def _users_modules(names: set[str]) -> list[str]:
    """Those of the modules ``names`` that are the user's: loaded from outside Python's and the installed
    packages' folders (torch's own lazy imports stay: imported twice, their classes would be two)."""
    paths = sysconfig.get_paths()
    roots = {str(Path(paths[k]).resolve()) for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots.add(str(Path(__file__).resolve().parents[1]))          # adaexplore_core
    found = []
    for name in names:
        module = sys.modules.get(name)
        places = [getattr(module, "__file__", None), *(getattr(module, "__path__", None) or ())]
        places = [str(Path(p).resolve()) for p in places if isinstance(p, str)]
        if places and not any(p == r or p.startswith(r + os.sep) for p in places for r in roots):
            found.append(name)
    return found


def _check(request: Any, device: torch.device, candidate_folder: Path) -> tuple[bool, str]:
    from ..task import TaskSpec, load_task
    task = load_task(TaskSpec(**request.task))
    reference = task.build_reference(build_seed(request), device)
    with torch.no_grad():                       # as in the candidate's process, whose state ModelNew then took
        reference(*task.make_inputs(warmup_seed(request), device))
    shapes = _parameter_shapes(reference)
    before = copy.deepcopy(reference)           # for the float64 re-check, in the state the forward started from
    expected = _forward(reference, task, request, device)
    drew = _drew(request, device)
    if _bytes(expected) > MAX_BYTES:
        return True, f"not witnessed: the outputs are over {MAX_BYTES >> 20} MiB"
    found = _compare(request, expected, candidate_folder / OUTPUT_FILE, drew,
                     lambda: _forward(before.double(), task, request, device, double=True))
    if found:
        return False, f"outputs: {found}"
    matched = "the outputs recorded by the candidate's process match the reference's, run apart from it"
    before = copy.deepcopy(reference)
    expected = _differentiated(reference, shapes, task, request, device)
    if expected is None:
        return True, f"{matched} (no gradients witnessed: not differentiable, or inputs over " \
                     f"{GRADIENT_INPUT_BYTES >> 30} GiB)"
    if _bytes(expected) > MAX_BYTES:
        return True, f"{matched} (gradients over {MAX_BYTES >> 20} MiB: not witnessed)"
    found = _compare(request, expected, candidate_folder / GRADIENT_FILE, drew,
                     lambda: _gradients(before.double(), shapes, task, request, device, double=True))
    if found:
        return False, f"gradients: {found}"
    return True, matched.replace("the outputs", "the outputs and gradients")


def _compare(request: Any, expected: list[torch.Tensor], path: Path, drew: bool, exact: Any) -> str:
    """What differs between ``expected`` and the tensors recorded at ``path`` ("" when nothing does). A values
    mismatch is looked at again against ``exact()``, the float64 reference, unless the reference drew random
    numbers (a float64 run would draw others)."""
    from .correctness import Tolerance, compare_outputs
    try:
        recorded = read_outputs(path)
    except WitnessError as e:
        return str(e)
    if len(recorded) == len(expected):
        recorded = [r.to(e.device) for r, e in zip(recorded, expected)]
    tolerance = Tolerance(**request.tolerance) if request.tolerance else None
    mismatch = compare_outputs(expected, recorded, tolerance)
    if mismatch is not None and mismatch.name == "values" and not drew:
        try:
            again = exact()
        except Exception:  # noqa: BLE001 - no second opinion; the first comparison stands
            again = None
        if again is not None:
            mismatch = compare_outputs(expected, recorded, tolerance, again)
    return "" if mismatch is None else f"{mismatch.name}: {mismatch.detail}"


def _drew(request: Any, device: torch.device) -> bool:
    """Whether the forward just run drew random numbers: the generators are not where the seed put them."""
    from ..task import seed_everything
    from .generators import same, states
    after = states(device)
    seed_everything(inputs_seed(request))
    return not same(after, states(device))


def _forward(model: Any, task: Any, request: Any, device: torch.device, double: bool = False) -> list[torch.Tensor]:
    """``model``'s outputs on the witnessed inputs, the random generators seeded alike before it."""
    from ..task import flatten_outputs, seed_everything
    seed = inputs_seed(request)
    inputs = task.make_inputs(seed, device)
    seed_everything(seed)
    with torch.no_grad():
        return flatten_outputs(model(*(_as_double(inputs) if double else inputs)), "the model's")


def _gradients(model: Any, shapes: dict[str, torch.Size], task: Any, request: Any, device: torch.device,
               double: bool = False) -> list[torch.Tensor] | None:
    """The gradients of one backward through ``model`` on the gradient inputs, the output gradients drawn from
    their seed: of the floating inputs, then of the parameters named in ``shapes`` (zeros where nothing flows
    or the model has no such parameter). None when no output is differentiable."""
    from ..task import flatten_outputs, seed_everything
    seed = random.Random(f"gradients-{inputs_seed(request)}").getrandbits(62)
    values = task.make_inputs(seed, device)
    if _bytes([x for x in values if isinstance(x, torch.Tensor)]) > GRADIENT_INPUT_BYTES:
        return None                             # the backward's memory: the trials try gradients at a smaller size
    leaves = [x.detach().requires_grad_() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
              for x in (_as_double(values) if double else values)]
    inputs = [x for x in leaves if isinstance(x, torch.Tensor) and x.requires_grad]
    own = dict(model.named_parameters())
    params = [own.get(name) for name in shapes]
    wanted = inputs + [p for p in params if p is not None and p.requires_grad]
    seed_everything(seed)
    with torch.enable_grad():
        outputs = [o for o in flatten_outputs(model(*leaves), "the model's") if o.requires_grad]
    if not outputs or not wanted:
        return None
    generator = torch.Generator(device="cpu").manual_seed(seed)
    grad_outputs = [torch.randn(o.shape, generator=generator).to(device=o.device, dtype=o.dtype) for o in outputs]
    found = {id(t): g for t, g in zip(wanted, torch.autograd.grad(outputs, wanted, grad_outputs, allow_unused=True))}
    grads = [found.get(id(x)) if found.get(id(x)) is not None else torch.zeros_like(x) for x in inputs]
    for (name, shape), p in zip(shapes.items(), params):
        g = found.get(id(p)) if p is not None else None
        grads.append(g if g is not None else torch.zeros(shape, dtype=p.dtype if p is not None else torch.float32,
                                                         device=device))
    return [(g.to_dense() if g.layout != torch.strided else g).detach() for g in grads]   # sparse embeddings


def _plain(t: Any) -> bool:
    return type(t) is torch.Tensor and t.layout == torch.strided


def _parameter_shapes(reference: Any) -> dict[str, torch.Size]:
    return {name: p.shape for name, p in sorted(reference.named_parameters()) if p.requires_grad}


def _as_double(values: list[Any]) -> list[Any]:
    return [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in values]


def _bytes(tensors: list[torch.Tensor]) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)
