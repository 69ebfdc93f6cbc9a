"""Failure-driven adaptation (the first half of the method): the LLM writes small tasks (``memory/tasks.py``),
short LLM-only searches on them collect compile and runtime failures, and those are distilled into "You
cannot ..." rules in the memory (repeats raise scores; frequent rules reach later prompts)."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ..memory.distill import RuleLearner, llm_same_rule
from ..memory.tasks import AdaptReport, examples_from, synthesize_task
from ..proposers.base import ProposalError, ProposerUnavailable
from ..proposers.llm.proposer import LLMProposer
from ..search.explore import SearchError
from ..task import TaskSpec
from .wiring import search_with_memory


def adapt(*, client: Any, memory: Any, pool: Any, tasks: int, steps: int, out: Path, sink: Any,
          devices: tuple[str, ...], seed: int = 0, examples_folder: Path | None = None) -> AdaptReport:
    """Write ``tasks`` tasks, search each for ``steps`` LLM candidates, and learn rules from the failures."""
    rng = random.Random(seed)
    report = AdaptReport()
    folder = Path(out) / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    hardware = "an NVIDIA GPU" if any(d.startswith("cuda") for d in devices) else \
        "the CPU (Triton interpreter: correctness only)"
    learner = RuleLearner(memory, client.chat)
    memory.duplicate_check = llm_same_rule(client.chat)
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
        sink.listeners.append(lambda e, r=report: r.rules_learned.append(e["rule"]) if e["event"] == "rule_learned"
                              else None)
        try:
            result = search_with_memory(task, LLMProposer(client, hardware), pool, steps=steps,
                                        out=Path(out) / "searches" / path.stem, sink=sink, devices=devices,
                                        seed=seed + index, memory=memory, learner=learner)
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
