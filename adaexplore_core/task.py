"""Tasks: a reference module in KernelBench format, and how to build it and make its inputs.

``TaskSpec`` is plain data the parent process handles without torch. ``load_task`` (worker side)
imports the reference and checks its interface, raising ``TaskError`` with a clear message otherwise.
A file in KernelBench format defines ``class Model(nn.Module)``, ``get_inputs()`` and
``get_init_inputs()``; ``file.py::ClassName`` picks another class of that file.
"""
from __future__ import annotations

import hashlib
import importlib.util
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

DEFAULT_CLASS = "Model"
_module_counter = itertools.count()


class TaskError(Exception):
    """The reference task cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class TaskSpec:
    """Where the reference lives: a file, the class to optimize, and optionally its text (editor buffers)."""

    path: str
    class_name: str = DEFAULT_CLASS
    source: str | None = None

    @classmethod
    def parse(cls, text: str) -> "TaskSpec":
        """``file.py`` or ``file.py::ClassName``; the file must exist."""
        path, separator, class_name = text.partition("::")
        if not path:
            raise TaskError(f"no file in task {text!r}; expected FILE.py or FILE.py::ClassName")
        if not Path(path).is_file():
            raise TaskError(f"reference file not found: {path}")
        if separator and not class_name.isidentifier():
            raise TaskError(f"{class_name!r} is not a class name (expected FILE.py::ClassName)")
        return cls(path=str(Path(path).resolve()), class_name=class_name or DEFAULT_CLASS)

    def read_source(self) -> str:
        return self.source if self.source is not None else Path(self.path).read_text(encoding="utf-8")

    def key(self) -> str:
        """A stable key for caches: the class name and a hash of the reference text."""
        digest = hashlib.sha256(self.read_source().encode()).hexdigest()[:16]
        return f"{self.class_name}@{digest}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "class_name": self.class_name, "source": self.source}


def import_file(path: str, source: str | None = None, prefix: str = "adaexplore_module",
                name: str | None = None) -> Any:
    """Import a Python file under ``name`` or a fresh module name (its folder on sys.path while it imports)."""
    name = name or f"{prefix}_{next(_module_counter)}"
    folder = str(Path(path).resolve().parent)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, folder)
    try:
        if source is None:
            spec.loader.exec_module(module)
        else:
            exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 - the user's own reference
    finally:
        sys.path.remove(folder)
    return module


@dataclass
class LoadedTask:
    """A reference imported in a worker: its class and input factories."""

    spec: TaskSpec
    model_class: type
    get_inputs: Callable[[], Any]
    get_init_inputs: Callable[[], Any]

    def init_args(self) -> list[Any]:
        args = _call(self.get_init_inputs, "get_init_inputs")
        if not isinstance(args, (list, tuple)):
            raise TaskError(f"get_init_inputs() must return a list or tuple, got {type(args).__name__}")
        return list(args)

    def make_inputs(self, seed: int, device: Any) -> list[Any]:
        """Inputs from ``get_inputs()`` under ``seed``, on ``device``.

        On a GPU, ``get_inputs()`` runs with that GPU as the default device, so its tensors are made there
        (seconds saved per trial on GB-sized inputs; the same seed gives the same inputs on the same kind of
        device, though not the values the CPU would draw); when that fails, the inputs are made on the CPU
        and moved. Integer and boolean tensors keep their dtype; non-tensor values pass through unchanged.
        """
        inputs = _seeded_on_device(device, seed, lambda: _call(self.get_inputs, "get_inputs"))
        if not isinstance(inputs, (list, tuple)):
            raise TaskError(f"get_inputs() must return a list or tuple, got {type(inputs).__name__}")
        return [to_device(x, device) for x in inputs]

    def build(self, cls: type, seed: int, device: Any, args: list[Any] | None = None) -> Any:
        """Construct ``cls(*args)`` (default: get_init_inputs') under ``seed`` on ``device``.

        On a GPU, the constructor runs with that GPU as the default device, as ``make_inputs`` does, so large
        weights are initialised there (on the H200, 8 builds of an 8192 x 8193 Linear took 4-5 s on the host);
        when that raises, it runs again on the CPU and the model is moved. (The judge builds the candidate it
        certifies with ``device`` "cpu" and moves it, as a program does.)
        """
        args = self.init_args() if args is None else args
        return _seeded_on_device(device, seed, lambda: cls(*args)).to(device)

    def build_reference(self, seed: int, device: Any, args: list[Any] | None = None) -> Any:
        """The reference, to be compared with a candidate built on the CPU and moved (as a program builds it):
        built on ``device``, or, where it holds non-persistent buffers (not in the state_dict the candidate is
        given: drawn on the GPU they would not be the candidate's, drawn on the CPU), on the CPU and moved."""
        import torch

        model = self.build(self.model_class, seed, device, args)
        if torch.device(device).type != "cpu" and any(m._non_persistent_buffers_set for m in model.modules()):
            model = self.build(self.model_class, seed, "cpu", args).to(device)
        return model


def _seeded_on_device(device: Any, seed: int, make: Callable[[], Any]) -> Any:
    """``make()`` under ``seed``: on a GPU with that GPU as the default device; off the GPU, or where that
    raises, again under ``seed`` without it."""
    import torch

    if torch.device(device).type == "cuda":
        seed_everything(seed)
        try:
            with torch.device(device):
                return make()
        except Exception:  # noqa: BLE001 - e.g. numpy or an explicit CPU tensor op: the CPU path below
            pass
    seed_everything(seed)
    return make()


def seed_everything(seed: int) -> None:
    """Seed every global random generator a reference may draw from: torch's, Python's ``random`` (reseeded
    by every fork, so two processes would draw differently) and numpy's where it is loaded (inherited by every
    fork, so a process that built once would draw on where a fresh one starts over). Then each is moved on by
    a number of draws taken from the seed: a generator just seeded is the judge's mark (Python's and numpy's at
    position 624, torch's GPU offset 0; red team 2026-12-03: a candidate right only when Python's generator
    had drawn since its seeding, as in a program), where a program's have drawn before."""
    import random

    import torch

    counts = random.Random(f"advance-{seed}")
    torch.manual_seed(seed)
    torch.rand(counts.randint(1, 623), device="cpu")
    random.seed(seed)
    for _ in range(counts.randint(1, 623)):
        random.random()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed % 2**32)
        numpy.random.random_sample(counts.randint(1, 623))
    if torch.cuda.is_initialized():            # (never initialises CUDA itself: the zygote forks)
        _advance_gpu_generator(torch, 4 * counts.randint(1, 1 << 20))


def _advance_gpu_generator(torch: Any, offset: int) -> None:
    """The current GPU's Philox generator moved to ``offset`` (its state: the seed, then the offset, as two
    64-bit numbers), for every draw after it as if that many numbers had been drawn."""
    state = torch.cuda.get_rng_state()
    if state.numel() != 16:
        return                                   # another layout: left as seeded (torch changed its format)
    words = state.view(torch.int64).clone()
    words[1] = offset
    torch.cuda.set_rng_state(words.view(torch.uint8))


def _call(fn: Callable[[], Any], name: str) -> Any:
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - reported to the user as a broken task
        raise TaskError(f"{name}() raised {type(e).__name__}: {e}") from e


def to_device(value: Any, device: Any) -> Any:
    """Move tensors (also inside lists and tuples) to ``device``; keep dtypes and other values."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    return value


def load_task(spec: TaskSpec) -> LoadedTask:
    """Import the reference of ``spec`` and check it has what the judge needs."""
    import torch

    try:
        module = import_file(spec.path, spec.source, prefix="adaexplore_reference")
    except SyntaxError as e:
        raise TaskError(f"the reference {spec.path} has a syntax error at line {e.lineno}: {e.msg}") from e
    except Exception as e:  # noqa: BLE001 - any import failure is the task's
        raise TaskError(f"importing the reference {spec.path} raised {type(e).__name__}: {e}") from e
    cls = getattr(module, spec.class_name, None)
    if cls is None:
        found = sorted(n for n, v in vars(module).items()
                       if isinstance(v, type) and issubclass(v, torch.nn.Module) and v.__module__ == module.__name__)
        hint = f" (modules in the file: {', '.join(found)}; pick one with FILE.py::ClassName)" if found else ""
        raise TaskError(f"the reference {spec.path} has no class {spec.class_name!r}{hint}")
    if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
        raise TaskError(f"{spec.class_name!r} in {spec.path} is not a torch.nn.Module subclass")
    missing = [f for f in ("get_inputs", "get_init_inputs") if not callable(getattr(module, f, None))]
    if missing:
        raise TaskError(f"the reference {spec.path} does not define {' and '.join(f + '()' for f in missing)}; "
                        "it must, as in KernelBench: get_inputs() returns the forward's arguments, "
                        "get_init_inputs() the constructor's")
    return LoadedTask(spec, cls, module.get_inputs, module.get_init_inputs)


def flatten_outputs(out: Any, who: str) -> list[Any]:
    """A forward's result as a list of tensors; raises TaskError for anything else."""
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)) and out and all(isinstance(o, torch.Tensor) for o in out):
        return list(out)
    shown = type(out).__name__
    if isinstance(out, (list, tuple)):
        shown += " of " + ", ".join(sorted({type(o).__name__ for o in out})) if out else " (empty)"
    raise TaskError(f"{who} forward returned {shown}; outputs must be a tensor or a tuple/list of tensors")
