"""The adaptation stage (failure-driven adaptation, first half of the method): the LLM writes small
KernelBench-format tasks from level-1-style examples and a list of PyTorch ops; each task is validated by
running it; short LLM-only searches on the tasks collect compile and runtime failures, which are distilled
into "You cannot ..." rules in the memory (repeats raise scores; frequent rules reach later prompts).
"""
from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..judge.protocol import scrubbed_environment
from ..proposers.base import ProposalError, ProposerUnavailable
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


def adapt(*, client: Any, memory: Any, pool: Any, tasks: int, steps: int, out: Path, sink: Any,
          devices: tuple[str, ...], seed: int = 0, examples_folder: Path | None = None) -> AdaptReport:
    """Write ``tasks`` tasks, search each for ``steps`` LLM candidates, and learn rules from the failures."""
    from ..proposers.llm.proposer import LLMProposer
    from ..search.explore import Search, SearchError
    from .distill import RuleLearner, llm_same_rule
    from .rules import ops_of

    rng = random.Random(seed)
    report = AdaptReport()
    folder = Path(out) / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    hardware = "an NVIDIA GPU" if any(d.startswith("cuda") for d in devices) else \
        "the CPU (Triton interpreter: correctness only)"
    learner = RuleLearner(memory, client.chat)
    memory.duplicate_check = llm_same_rule(client.chat)
    parallel = len(pool.config.devices) * pool.config.workers_per_device
    for index in range(tasks):
        try:
            path, rejected = synthesize_task(client.chat, folder, index, rng, examples_from(examples_folder, rng))
        except ProposerUnavailable as e:
            report.stopped = str(e)
            break
        report.tasks_rejected += rejected
        if path is None:
            continue
        report.tasks_written += 1
        task = TaskSpec.parse(str(path))
        rules = [r.text for r in memory.relevant(ops_of(task.read_source()))]
        sink.listeners.append(lambda e, r=report: r.rules_learned.append(e["rule"]) if e["event"] == "rule_learned"
                              else None)
        try:
            result = Search(task, LLMProposer(client, hardware), pool, steps, Path(out) / "searches" / path.stem,
                            sink, seed=seed + index, parallel=parallel, devices=devices, rules=rules,
                            learner=learner).run()
        except (SearchError, ProposalError) as e:
            if isinstance(e.__cause__, ProposerUnavailable):
                report.stopped = str(e)
                break
            report.tasks_rejected.append(f"{path.name}: the search could not start ({e})")
            continue
        finally:
            sink.listeners.pop()
        judged = result.tree.judged()
        report.candidates += len(judged)
        report.failures += sum(1 for n in judged if not n.valid)
        if result.proposer_unavailable:
            report.stopped = result.stopped_reason
            break
    return report
