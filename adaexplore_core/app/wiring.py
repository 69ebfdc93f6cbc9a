"""The wiring of a search: the proposer by name, the judge pool on the chosen devices (here, or on a Ray
cluster: ``ray_pool.py``), the rule memory, the events to a file or stdout (the command line's progress display
is progress.py)."""
from __future__ import annotations

import contextlib
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ..jsonstore import default_cache_dir
from ..judge.pool import JudgeConfig, JudgePool
from ..proposers.base import Proposer
from ..search.events import EventSink
from ..search.explore import Search, SearchError, SearchResult
from ..search.tree import SearchConfig
from ..task import TaskSpec

PROPOSERS = ("builtin", "llm")


@dataclass
class ProposerSettings:
    name: str = "builtin"
    model: str = ""
    base_url: str = ""
    timeout_s: float = 120.0
    concurrency: int = 4
    price_per_million: tuple[float, float] | None = None   # USD per million prompt / completion tokens
    seeds: int = 2                     # built-in branches that seed an LLM search's pool


def make_proposer(settings: ProposerSettings | str, devices: tuple[str, ...] = ()) -> Proposer:
    """The proposer by name; "llm" is the LLM proposer seeded with built-in candidates."""
    if isinstance(settings, str):
        settings = ProposerSettings(name=settings)
    from ..proposers.builtin.proposer import BuiltinProposer
    device_type = None if not devices else "cuda" if any(d.startswith("cuda") for d in devices) else "cpu"
    if settings.name == "builtin":
        return BuiltinProposer(device_type)
    if settings.name == "llm":
        from ..proposers.llm.client import LLMClient, LLMConfig, LLMError
        from ..proposers.llm.proposer import LLMProposer, SeededProposer
        try:
            client = LLMClient(LLMConfig(model=settings.model, base_url=settings.base_url or None,
                                         timeout_s=settings.timeout_s, concurrency=settings.concurrency,
                                         price_per_million=settings.price_per_million))
        except LLMError as e:
            raise SearchError(str(e)) from e
        hardware = "an NVIDIA GPU" if any(d.startswith("cuda") for d in devices) else \
            "the CPU (Triton interpreter: correctness only, no timing)"
        return SeededProposer(BuiltinProposer(device_type), LLMProposer(client, hardware), seeds=settings.seeds)
    raise SearchError(f"unknown proposer {settings.name!r}; available: {', '.join(PROPOSERS)}")


GPU_WORKERS = 4   # per GPU: three compile and check while one group times (H200, level-2 sizes, one task as a
                  # search judges it: 21.9-22.1 judged/min with 4, 17.7-18.5 with 3; docs/benchmarks.md); each
                  # takes 0.225 of the GPU's memory, and a task out of memory there gets the whole GPU
CPU_WORKERS = 2


def judge_config(devices: tuple[str, ...], timeout_s: float = 180.0, allow_tf32: bool = False,
                 tf32: str = "") -> JudgeConfig:
    """The search's judge: GPU_WORKERS per GPU, CPU_WORKERS on the CPU (interpreter, no timing). ``tf32``:
    "torch" for torch's own TF32 default (a bench protocol's), else ``allow_tf32`` decides."""
    gpu = any(d.startswith("cuda") for d in devices)
    return JudgeConfig(devices=devices, workers_per_device=GPU_WORKERS if gpu else CPU_WORKERS, timeout_s=timeout_s,
                       allow_tf32=allow_tf32, tf32=tf32)


@contextlib.contextmanager
def judge_pool(config: JudgeConfig, ray_address: str | None = None) -> Iterator[Any]:
    """The local JudgePool on ``config.devices``; with ``ray_address`` (``auto`` or a cluster's address) a
    RayJudgePool instead: one actor per GPU of the cluster, each judging on its own GPU, or in the Triton
    interpreter when ``config.devices`` is ``("cpu",)``. Both offer submit/judge/close and ``config``."""
    if not ray_address:
        with JudgePool(config) as pool:
            yield pool
        return
    from .ray_pool import RayJudgePool, ray_session
    device = "cpu" if config.devices == ("cpu",) else "cuda:0"
    # a local cluster started for the interpreter declares one GPU, so that its one actor is placed as on GPUs
    with ray_session(ray_address, num_gpus=1 if device == "cpu" else None), \
            RayJudgePool(config, device=device) as pool:
        yield pool


def judge_slots(pool: Any) -> int:
    """How many candidates ``pool`` judges at once: every slot of every device (of every actor, on Ray)."""
    return len(pool.config.devices) * pool.config.workers_per_device * getattr(pool, "actor_count", 1)


@contextlib.contextmanager
def event_sink(events: str | None) -> Iterator[EventSink]:
    """Events to ``events`` (a path, or '-' for stdout); the command line adds its progress display
    (progress.py) as a listener."""
    sink = EventSink(job=uuid.uuid4().hex[:12])
    handle = None
    if events == "-":
        sink.streams.append(sys.stdout)
    elif events:
        Path(events).parent.mkdir(parents=True, exist_ok=True)
        handle = open(events, "a", encoding="utf-8")
        sink.streams.append(handle)
    try:
        yield sink
    finally:
        if handle:
            handle.close()


def rule_memory(cache_dir: Path | None, devices: tuple[str, ...]) -> Any:
    from ..memory.fingerprint import namespace
    from ..memory.rules import RuleMemory
    return RuleMemory(Path(cache_dir or default_cache_dir()), namespace(devices))


def search_with_memory(task: TaskSpec, proposer: Proposer, pool: Any, *, steps: int, out: Path,
                       sink: Any, devices: tuple[str, ...], seed: int = 0, resume: bool = False,
                       config: SearchConfig = SearchConfig(), memory: Any = None, learner: Any = None,
                       parallel: int | None = None) -> SearchResult:
    """One search. With ``memory``, its rules relevant to the task go into the proposer's prompts; with
    ``learner``, the failures of the search teach the memory new ones. ``parallel``: candidates with the
    judge at once (default: every slot of the pool)."""
    rules: list[str] = []
    if memory is not None:
        from ..memory.rules import ops_of
        rules = [r.text for r in memory.relevant(ops_of(task.read_source()))]
    parallel = parallel or judge_slots(pool)
    search = Search(task, proposer, pool, steps, out, sink, config=config, seed=seed, resume=resume,
                    parallel=parallel, devices=devices, rules=rules, learner=learner)
    return search.run()


def run_search(task: TaskSpec, *, steps: int, out: Path, pool: Any, proposer: Proposer,
               sink: Any, devices: tuple[str, ...], seed: int = 0, resume: bool = False,
               config: SearchConfig = SearchConfig(), cache_dir: Path | None = None,
               parallel: int | None = None) -> SearchResult:
    """One search (``optimize``, a problem of a bench) with ``pool`` (a JudgePool or a RayJudgePool). An LLM
    proposer gets the rule memory in ``cache_dir``: its relevant rules in the prompts, and the rules it learns
    from this search's failures."""
    client = getattr(proposer, "client", None)
    if client is None:
        return search_with_memory(task, proposer, pool, steps=steps, out=out, sink=sink, devices=devices,
                                  seed=seed, resume=resume, config=config, parallel=parallel)
    from ..memory.distill import RuleLearner, llm_same_rule
    memory = rule_memory(cache_dir, devices)
    try:
        memory.duplicate_check = llm_same_rule(client.chat)
        return search_with_memory(task, proposer, pool, steps=steps, out=out, sink=sink, devices=devices,
                                  seed=seed, resume=resume, config=config, memory=memory,
                                  learner=RuleLearner(memory, client.chat), parallel=parallel)
    finally:
        memory.close()
