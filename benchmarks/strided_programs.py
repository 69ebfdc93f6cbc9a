"""How many programs should the strided (middle-dim) reduction kernel aim for? For each given problem, the
built-in proposer's default candidate is generated with several values of reduction.MIN_PROGRAMS (0: the
columns are never narrowed) and judged (validity and timing against eager), all in one judge pool.

    python benchmarks/strided_programs.py PROBLEM.py ... [--values 0 256 512 1024 2048] [--out result.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adaexplore_core.judge.pool import JudgeConfig, JudgePool  # noqa: E402
from adaexplore_core.proposers.base import ProposalRequest  # noqa: E402
from adaexplore_core.proposers.builtin import reduction  # noqa: E402
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer  # noqa: E402
from adaexplore_core.task import TaskSpec  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("problems", nargs="+")
    parser.add_argument("--values", nargs="+", type=int, default=[0, 256, 512, 1024, 2048])
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--out")
    args = parser.parse_args()
    jobs = []
    with JudgePool(JudgeConfig(devices=(args.device,), workers_per_device=1)) as pool:
        for path in args.problems:
            spec = TaskSpec.parse(path)
            for value in args.values:
                reduction.MIN_PROGRAMS = value
                proposal = BuiltinProposer().initial(ProposalRequest(task=spec), 1)[0]
                jobs.append((Path(path).stem, value, pool.submit(spec, proposal.source)))
        rows = []
        for stem, value, future in jobs:
            verdict = future.result()
            t = verdict.timing
            rows.append({"problem": stem, "min_programs": value, "verdict": verdict.verdict,
                         "candidate_ms": t.candidate_ms if t else None, "eager_ms": t.eager_ms if t else None})
            print(f"{stem[:40]:40} MIN_PROGRAMS {value:5}  {verdict.verdict:8} "
                  + (f"{t.candidate_ms:8.3f} ms  eager {t.eager_ms:8.3f} ms  {t.speedup_vs_eager:5.2f}x" if t else ""),
                  flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps({"rows": rows, "env": verdict.env}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
