"""Best-of-K built-in proposer candidates on KernelBench problems, judged against eager and torch.compile.

    python benchmarks/proposer_gpu.py --kernelbench DIR --out results.json [--k 2] [--levels level2]

No search: the proposer's first K distinct candidates per problem, each judged (validity, timing). Results
are written after every verdict, so a run cut short still reports what it judged.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adaexplore_core.judge.pool import JudgeConfig, JudgePool  # noqa: E402
from adaexplore_core.proposers.base import ProposalError, ProposalRequest  # noqa: E402
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer  # noqa: E402
from adaexplore_core.task import TaskSpec  # noqa: E402


def problem_number(path: Path) -> tuple[int, str]:
    """KernelBench number order; files without a number (the project's own test modules) after, by name."""
    head = path.name.split("_")[0]
    return (int(head), path.name) if head.isdigit() else (1 << 30, path.name)


def summarize(problems: dict) -> dict:
    supported = [p for p in problems.values() if p["supported"]]
    judged = [p for p in supported if p["judged"]]
    valid = [p for p in judged if p["best_vs_eager"] is not None]

    def geomean(values: list[float]) -> float | None:
        return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None

    return {
        "problems": len(problems), "supported": len(supported), "judged": len(judged), "valid": len(valid),
        "coverage_of_judged": len(valid) / len(judged) if judged else None,
        "geomean_vs_eager_valid": geomean([p["best_vs_eager"] for p in valid]),
        "geomean_vs_compile_valid": geomean([p["best_vs_compile"] for p in valid if p["best_vs_compile"]]),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernelbench", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--levels", nargs="*", default=["level2"])
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args()
    proposer = BuiltinProposer()
    problems: dict = {}
    jobs = []
    started = time.monotonic()
    with JudgePool(JudgeConfig(devices=(args.device,), workers_per_device=args.workers)) as pool:
        for level in args.levels:
            for path in sorted((Path(args.kernelbench) / level).glob("*.py"), key=problem_number):
                key = f"{level}/{path.name}"
                entry = problems[key] = {"supported": True, "judged": False, "reason": "", "candidates": [],
                                         "best_vs_eager": None, "best_vs_compile": None}
                spec = TaskSpec.parse(str(path))
                try:
                    proposals = proposer.initial(ProposalRequest(task=spec), args.k)
                except ProposalError as e:
                    entry.update(supported=False, reason=str(e))
                    continue
                jobs.extend((key, p, pool.submit(spec, p.source)) for p in proposals)
        for key, proposal, future in jobs:
            verdict = future.result()
            entry = problems[key]
            entry["judged"] = True
            t = verdict.timing
            entry["candidates"].append({"description": proposal.description, "verdict": verdict.verdict,
                                        "stage": verdict.stage, "reason": verdict.reason,
                                        "timing": t.__dict__ if t else None, "seconds": verdict.seconds})
            if verdict.ok and t:
                entry["best_vs_eager"] = max(entry["best_vs_eager"] or 0, t.speedup_vs_eager)
                if t.speedup_vs_compile:
                    entry["best_vs_compile"] = max(entry["best_vs_compile"] or 0, t.speedup_vs_compile)
            print(json.dumps({"problem": key, "verdict": verdict.verdict, "reason": verdict.reason[:160],
                              "at_s": round(time.monotonic() - started, 1)}), flush=True)
            Path(args.out).write_text(json.dumps({"summary": summarize(problems), "problems": problems,
                                                  "env": verdict.env}, indent=1))
    print(json.dumps(summarize(problems)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
