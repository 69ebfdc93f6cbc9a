"""The tasks of the adaptation stage (failure-driven adaptation, first half of the method): the LLM writes small
KernelBench-format tasks from level-1-style examples and a list of PyTorch ops; each task is validated by
running it. ``app/adapt.py`` searches them and distills the failures into rules.
"""
from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..judge.protocol import scrubbed_environment
from ..proposers.llm.extract import ExtractionError, first_code_block
from ..task import TaskError, TaskSpec

OPS = ("relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "layer_norm", "group_norm",
       "batch_norm", "sum", "mean", "amax", "cumsum", "matmul", "bmm", "linear", "conv2d", "avg_pool2d",
       "max_pool2d", "leaky_relu", "hardtanh", "clamp", "exp", "log", "where", "logsumexp", "dropout (eval)")
OPS_PER_TASK = (1, 3)
SYNTHESIS_TRIES = 3
VALIDATION_TIMEOUT_S = 120

EXAMPLE = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU, then a softmax over the last dimension."""

    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(torch.relu(x), dim=self.dim)


def get_inputs():
    return [torch.randn(16, 256)]


def get_init_inputs():
    return [-1]
'''

SYNTHESIS_PROMPT = (
    "Write a new, small PyTorch task in exactly this format: one class Model(nn.Module), get_inputs() returning "
    "the forward inputs (small shapes: under 100,000 elements each), get_init_inputs() returning the "
    "constructor arguments. It must use these operations: {ops}. Nothing else in the file.\n\n"
    "Examples of the format:\n{examples}\n"
    "Answer with one ```python code block."
)

VALIDATE = (
    "import sys, torch\n"
    "sys.path.insert(0, {folder!r})\n"
    "import importlib.util\n"
    "spec = importlib.util.spec_from_file_location('task', {path!r})\n"
    "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
    "model = m.Model(*m.get_init_inputs())\n"
    "out = model(*m.get_inputs())\n"
    "outs = out if isinstance(out, (tuple, list)) else [out]\n"
    "assert all(isinstance(o, torch.Tensor) and torch.isfinite(o.float()).all() for o in outs), 'non-finite'\n"
    "print('ok')\n"
)


@dataclass
class AdaptReport:
    tasks_written: int = 0
    tasks_rejected: list[str] = field(default_factory=list)
    candidates: int = 0
    failures: int = 0
    rules_learned: list[str] = field(default_factory=list)
    stopped: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def examples_from(folder: Path | None, rng: random.Random, count: int = 2) -> list[str]:
    """Level-1-style examples: files from ``folder`` (e.g. a KernelBench level-1 folder) when given, else the
    project's own example."""
    if folder is not None:
        files = sorted(Path(folder).glob("*.py"))
        if files:
            return [f.read_text(encoding="utf-8") for f in rng.sample(files, min(count, len(files)))]
    return [EXAMPLE]


def validate_task(path: Path, python: str = sys.executable) -> str:
    """'' when the task file builds its model and runs forward on its inputs (CPU), else why not."""
    try:
        TaskSpec.parse(str(path))
    except TaskError as e:
        return str(e)
    code = VALIDATE.format(folder=str(path.parent), path=str(path))
    try:
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=VALIDATION_TIMEOUT_S,
                              cwd=path.parent, env=scrubbed_environment())   # model-written code: no keys
    except subprocess.TimeoutExpired:
        return f"the task did not finish within {VALIDATION_TIMEOUT_S} s"
    if done.returncode != 0 or done.stdout.strip() != "ok":
        lines = done.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit status {done.returncode}"
    return ""


def synthesize_task(chat: Any, folder: Path, index: int, rng: random.Random, examples: list[str]) -> tuple[Path | None,
                                                                                                             list[str]]:
    """A validated task file written by the LLM, and the reasons of the attempts that were rejected."""
    rejected = []
    for attempt in range(SYNTHESIS_TRIES):
        ops = rng.sample(OPS, rng.randint(*OPS_PER_TASK))
        prompt = SYNTHESIS_PROMPT.format(ops=", ".join(ops), examples="\n".join(
            f"```python\n{e.strip()}\n```\n" for e in examples))
        reply = chat([{"role": "user", "content": prompt}])
        path = folder / f"task_{index:03d}_{attempt}.py"
        try:
            path.write_text(first_code_block(reply), encoding="utf-8")
        except ExtractionError as e:
            rejected.append(f"task {index}: {e}")
            continue
        problem = validate_task(path)
        if not problem:
            return path, rejected
        rejected.append(f"task {index}: {problem}")
        path.rename(path.with_suffix(".rejected"))
    return None, rejected
