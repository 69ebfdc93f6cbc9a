"""``adaexplore bench``: the search on every problem of KernelBench-format folders or files, one judge pool for
all, with the paper's metrics (``search/bench.py``) written after each problem."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..proposers.base import ProposalError
from ..search import bench
from ..search.events import EventSink
from ..search.explore import SearchError
from ..task import TaskError, TaskSpec
from .wiring import run_search


def run_bench(files: list[Path], *, steps: int, out: Path, pool: Any, proposer_factory: Any, sink: EventSink,
              devices: tuple[str, ...], seed: int = 0, resume: bool = False,
              cache_dir: Path | None = None) -> dict[str, Any]:
    """Search every problem in turn with one shared judge pool; results are written after each problem."""
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
    env: dict[str, Any] = {}
    data: dict[str, Any] = bench.report(entries, steps, skipped=skipped)
    if not runnable:
        bench.write(data, out)
    for path in runnable:
        try:
            task = TaskSpec.parse(str(path))
            result = run_search(task, steps=steps, out=out / "problems" / bench.problem_slug(path), pool=pool,
                                proposer=proposer_factory(), sink=sink, devices=devices, seed=seed, resume=resume,
                                cache_dir=cache_dir)
        except (SearchError, ProposalError, TaskError) as e:
            sink.emit("error", message=f"{path.name}: {e}", fatal=False)
            entries.append(bench.problem_entry(path, None, str(e)))
        else:
            entries.append(bench.problem_entry(path, result))
            for node in result.tree.judged():
                if node.verdict and node.verdict.get("env"):
                    env = env or _env_summary(node.verdict["env"])
            if result.interrupted:
                data = bench.report(entries, steps, env, skipped)
                bench.write(data, out)
                raise KeyboardInterrupt
        data = bench.report(entries, steps, env, skipped)
        bench.write(data, out)
        print(f"{len(entries)}/{len(runnable)} {path.name}: " + _problem_line(entries[-1]), file=sys.stderr,
              flush=True)
    return data


def _env_summary(env: dict[str, Any]) -> dict[str, Any]:
    return {k: env.get(k) for k in ("gpu", "torch", "triton", "cuda", "python", "tf32", "capability")}


def _problem_line(entry: dict[str, Any]) -> str:
    if not entry["supported"]:
        return f"failed ({entry['error'][:100]})"
    if not entry["valid"]:
        return f"no valid candidate in {entry['steps']} steps"
    if not entry["timed"]:
        return f"valid ({entry['valid_candidates']}/{entry['steps']}), not timed"
    return (f"{entry['best_vs_eager']:.2f}x vs eager, {bench.fmt(entry['best_vs_compile'])} vs compile "
            f"(first candidate {bench.fmt(entry['first_vs_eager'])})")
