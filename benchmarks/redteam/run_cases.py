"""Judge a folder of red-team cases on one warm pool (the search's configuration) and print one line each.

    python benchmarks/redteam/run_cases.py CASES_DIR OUT_DIR [--device cuda]

CASES_DIR holds one folder per case with ``ref.py`` and ``cand.py``; each verdict is written to
OUT_DIR/<case>.json as it comes. Every case is submitted at once, so they are judged as a search's candidates
are (several at a time, timing alone on the GPU).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from adaexplore_core.app.wiring import judge_config  # noqa: E402
from adaexplore_core.judge.pool import JudgePool  # noqa: E402
from adaexplore_core.task import TaskSpec  # noqa: E402


def summary(name: str, verdict: dict) -> str:
    t = verdict.get("timing") or {}

    def f(key: str) -> str:
        v = t.get(key)
        return f"{v:.4g}" if isinstance(v, (int, float)) else "-"
    return (f"{name}: {verdict.get('verdict')} ({verdict.get('stage')}) x_eager={f('speedup_vs_eager')} "
            f"[{f('speedup_vs_eager_low')}-{f('speedup_vs_eager_high')}] x_compile={f('speedup_vs_compile')} "
            f"cand_ms={f('candidate_ms')} host_ms={f('candidate_host_ms')} eager_ms={f('eager_ms')} "
            f"roof={f('roofline_fraction')} | {(verdict.get('reason') or '')[:240]}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("cases", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    cases = sorted(d for d in args.cases.iterdir() if (d / "ref.py").exists() and (d / "cand.py").exists())
    started = time.monotonic()
    with JudgePool(judge_config((args.device,))) as pool:
        futures = {d.name: pool.submit(TaskSpec.parse(str(d / "ref.py")), (d / "cand.py").read_text())
                   for d in cases}
        for name, future in futures.items():
            verdict = json.loads(future.result().to_json())
            (args.out / f"{name}.json").write_text(json.dumps(verdict, indent=1))
            print(summary(name, verdict), flush=True)
    print(f"{len(cases)} cases in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
