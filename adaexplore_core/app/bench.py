"""``adaexplore bench``: the search on every problem of KernelBench-format folders or files, one judge pool for
all, with the paper's metrics (``search/bench.py``) written after each problem, under a judging protocol that
bench.json and bench.md name. On a Ray cluster (a pool with several actors) as many problems are searched at
once as there are actors, each search in a thread of this process with one actor's worth of judge slots."""
from __future__ import annotations

import concurrent.futures
import json
import math
import queue
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..proposers.base import ProposalError
from ..search import bench
from ..search.events import EventSink
from ..search.explore import SearchError
from ..task import TaskError, TaskSpec
from .wiring import judge_slots, run_search


@dataclass(frozen=True)
class Protocol:
    """The rules a bench judges by. ``tolerance``: the judge's override for every float output (None: its own
    tolerance per dtype); ``tf32``: the JudgeConfig's ("": off unless --allow-tf32; "torch": torch's default)."""

    name: str
    rules: str
    tolerance: dict[str, float] | None
    tf32: str

    def record(self, allow_tf32: bool = False) -> dict[str, Any]:
        """What bench.json keeps of it."""
        tf32 = "torch default (cuDNN on, cuBLAS off)" if self.tf32 == "torch" else "on" if allow_tf32 else "off"
        return {"name": self.name, "rules": self.rules, "tf32": tf32}


PROTOCOLS = {
    "adaexplore": Protocol(
        "adaexplore", "AdaExplore's strict judge: float32 outputs within atol = rtol = 1e-4 and a relative L2 error "
                      "of 1e-3 (float16, bfloat16: 1e-2 and 5e-2)", None, ""),
    "kernelbench": Protocol(
        "kernelbench", "KernelBench's rules: every float output within atol = rtol = 1e-2, no L2 check, and TF32 as "
                       "torch leaves it; the judge's other checks (out-of-range inputs, repeated calls, the Triton "
                       "ablation, safe to keep) still apply",
        {"atol": 1e-2, "rtol": 1e-2, "rel_l2": math.inf}, "torch"),
}
DEFAULT_PROTOCOL = "adaexplore"


class ProtocolPool:
    """A judge pool whose every candidate is judged under one tolerance; everything else is the pool's."""

    def __init__(self, pool: Any, tolerance: dict[str, float]) -> None:
        self.pool, self.tolerance = pool, tolerance

    def submit(self, task: TaskSpec, candidate_source: str, **kwargs: Any) -> concurrent.futures.Future:
        return self.pool.submit(task, candidate_source, **{"tolerance": self.tolerance, **kwargs})

    def judge(self, task: TaskSpec, candidate_source: str, **kwargs: Any) -> Any:
        return self.submit(task, candidate_source, **kwargs).result()

    def __getattr__(self, name: str) -> Any:      # config, actor_count, close
        return getattr(self.pool, name)


class ProblemEvents:
    """One problem's events in a bench that searches several at once: the bench's sink, under a job id of the
    problem's own, so that each line of the events file says which search it belongs to."""

    def __init__(self, sink: EventSink, job: str) -> None:
        self.sink, self.job = sink, job

    def emit(self, event_type: str, /, **fields: Any) -> dict[str, Any]:
        return self.sink.emit(event_type, **{**fields, "job": self.job})


def run_bench(files: list[Path], *, steps: int, out: Path, pool: Any, proposer_factory: Any, sink: EventSink,
              devices: tuple[str, ...], seed: int = 0, resume: bool = False,
              cache_dir: Path | None = None, protocol: str = DEFAULT_PROTOCOL,
              allow_tf32: bool = False) -> dict[str, Any]:
    """Search every problem with one shared judge pool; results are written after each problem. A pool with
    several Ray actors searches that many problems at once."""
    rules = PROTOCOLS[protocol]
    judge = pool if rules.tolerance is None else ProtocolPool(pool, rules.tolerance)
    entries: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    runnable: list[Path] = []
    for path in files:
        missing = bench.missing_requirements(path)
        if missing:
            skipped.append({"problem": str(path), "name": path.stem, "missing": missing})
            print(f"{path.name}: skipped (needs {', '.join(missing)}, not installed)", file=sys.stderr, flush=True)
        else:
            runnable.append(path)
    run = _BenchRun(steps=steps, out=out, pool=judge, proposer_factory=proposer_factory, sink=sink,
                    devices=devices, seed=seed, resume=resume, cache_dir=cache_dir,
                    protocol=rules.record(allow_tf32), skipped=skipped)
    if not runnable:
        write(run.report([]), out)
    at_once = min(getattr(pool, "actor_count", 1), len(runnable))
    if at_once > 1:
        return run.concurrently(runnable, at_once)
    for path in runnable:
        entry, result = run.search(path, sink, judge_slots(judge))
        entries.append(entry)
        run.note_env(result)
        data = run.report(entries)
        write(data, out)
        if result is not None and result.interrupted:
            raise KeyboardInterrupt
        print(f"{len(entries)}/{len(runnable)} {path.name}: " + _problem_line(entry), file=sys.stderr, flush=True)
    return run.report(entries)


@dataclass
class _BenchRun:
    """What every problem's search of one bench shares."""

    steps: int
    out: Path
    pool: Any
    proposer_factory: Any
    sink: EventSink
    devices: tuple[str, ...]
    seed: int
    resume: bool
    cache_dir: Path | None
    protocol: dict[str, Any]
    skipped: list[dict[str, Any]]

    def __post_init__(self) -> None:
        self.env: dict[str, Any] = {}

    def search(self, path: Path, events: Any, parallel: int) -> tuple[dict[str, Any], Any]:
        """One problem's search: its bench entry, and its SearchResult (None when it could not run)."""
        try:
            task = TaskSpec.parse(str(path))
            result = run_search(task, steps=self.steps, out=self.out / "problems" / bench.problem_slug(path),
                                pool=self.pool, proposer=self.proposer_factory(), sink=events, devices=self.devices,
                                seed=self.seed, resume=self.resume, cache_dir=self.cache_dir, parallel=parallel)
        except (SearchError, ProposalError, TaskError) as e:
            events.emit("error", message=f"{path.name}: {e}", fatal=False)
            return bench.problem_entry(path, None, str(e)), None
        return bench.problem_entry(path, result), result

    def note_env(self, result: Any) -> None:
        for node in result.tree.judged() if result is not None else []:
            if node.verdict and node.verdict.get("env") and not self.env:
                self.env = _env_summary(node.verdict["env"])

    def report(self, entries: list[dict[str, Any]]) -> dict[str, Any]:
        return {**bench.report(entries, self.steps, self.env, self.skipped), "protocol": self.protocol}

    def concurrently(self, runnable: list[Path], at_once: int) -> dict[str, Any]:
        """``at_once`` searches at a time, each in a thread with one actor's worth of judge slots; entries keep
        the problems' order. Ctrl-C closes the pool (the searches stop where their trees were last saved, which
        ``--resume`` continues), writes the finished problems and raises KeyboardInterrupt."""
        todo: queue.Queue[int] = queue.Queue()
        for index in range(len(runnable)):
            todo.put(index)
        done: queue.Queue[tuple[int, Any]] = queue.Queue()
        parallel = max(1, judge_slots(self.pool) // at_once)

        def searcher() -> None:
            while True:
                try:
                    index = todo.get_nowait()
                except queue.Empty:
                    return
                events = ProblemEvents(self.sink, f"{self.sink.job}-{index + 1}")
                try:
                    done.put((index, self.search(runnable[index], events, parallel)))
                except concurrent.futures.CancelledError:       # the bench was interrupted: the pool closed
                    done.put((index, None))
                    return
                except BaseException as e:  # noqa: BLE001 - said in the main thread, which ends the bench
                    done.put((index, e))
                    return

        threads = [threading.Thread(target=searcher, name=f"bench-search-{i}", daemon=True) for i in range(at_once)]
        for thread in threads:
            thread.start()
        finished: dict[int, dict[str, Any]] = {}
        try:
            while len(finished) < len(runnable):
                index, outcome = done.get()
                if isinstance(outcome, BaseException):
                    raise outcome
                entry, result = outcome
                finished[index] = entry
                self.note_env(result)
                write(self.report([finished[i] for i in sorted(finished)]), self.out)
                print(f"{len(finished)}/{len(runnable)} {runnable[index].name}: " + _problem_line(entry),
                      file=sys.stderr, flush=True)
        except KeyboardInterrupt:
            self.pool.close()
            for thread in threads:
                thread.join(5.0)
            write(self.report([finished[i] for i in sorted(finished)]), self.out)
            raise
        return self.report([finished[i] for i in sorted(finished)])


def write(data: dict[str, Any], out: Path) -> str:
    """bench.json, bench.md (``markdown``) and bench.png; a note when there is no plot."""
    note = bench.write(data, out)
    (out / bench.MARKDOWN_FILE).write_text(markdown(data))
    return note


def replot(out: Path) -> str:
    """bench.md and bench.png again from OUT/bench.json (``--replot``)."""
    note = bench.replot(out)
    (out / bench.MARKDOWN_FILE).write_text(markdown(json.loads((out / bench.JSON_FILE).read_text())))
    return note


def markdown(data: dict[str, Any]) -> str:
    """bench.md: the tables of ``search/bench.py``, with the protocol that produced them under the title."""
    title, rest = bench.markdown(data).split("\n", 1)
    return f"{title}\n\n{protocol_line(data)}\n{rest}"


def protocol_line(data: dict[str, Any]) -> str:
    """Which protocol produced the tables (a bench.json from before protocols: the strict one, the only one
    there was then)."""
    protocol = data.get("protocol") or {**PROTOCOLS[DEFAULT_PROTOCOL].record(), "tf32": "as the Environment says"}
    line = f"Protocol: `{protocol['name']}`: {protocol['rules']} (TF32: {protocol['tf32']})."
    env = data.get("env") or {}
    if protocol["tf32"].startswith("torch default") and env.get("gpu") and env.get("tf32") is False:
        line += (" **The judge reported cuDNN TF32 off**: it did not apply this protocol's TF32, so these figures "
                 "are not judged as KernelBench judges.")
    return line


def _env_summary(env: dict[str, Any]) -> dict[str, Any]:
    return {k: env.get(k) for k in ("gpu", "torch", "triton", "cuda", "python", "tf32", "tf32_matmul", "capability")}


def _problem_line(entry: dict[str, Any]) -> str:
    if not entry["supported"]:
        return f"failed ({entry['error'][:100]})"
    if not entry["valid"]:
        return f"no valid candidate in {entry['steps']} steps"
    if not entry["timed"]:
        return f"valid ({entry['valid_candidates']}/{entry['steps']}), not timed"
    return (f"{entry['best_vs_eager']:.2f}x vs eager, {bench.fmt(entry['best_vs_compile'])} vs compile "
            f"(first candidate {bench.fmt(entry['first_vs_eager'])})")
