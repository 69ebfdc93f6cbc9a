"""Do the built-in proposer's honest candidates stay valid under the judge? On a GPU, timing off.

    python benchmarks/builtin_validity_gpu.py --kernelbench DIR --out results.json [--problems 30]

The built-in proposer's first candidate for the first N KernelBench problems of levels 2 and 1 (in that
order; problems it writes no candidate for are listed as such), judged by a pool of the search's workers per
GPU with timing off (correctness, the envelope stage, the CPU trial). Every invalid verdict is a false
positive to explain: the built-in's candidates are honest. Results are written after every verdict.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from adaexplore_core.judge.pool import JudgeConfig, JudgePool  # noqa: E402
from adaexplore_core.proposers.base import ProposalError, ProposalRequest  # noqa: E402
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer  # noqa: E402
from adaexplore_core.app.wiring import GPU_WORKERS  # noqa: E402
from adaexplore_core.task import TaskSpec  # noqa: E402


def problems(kb: Path, count: int) -> list[Path]:
    found = []
    for level in ("level2", "level1"):
        found += sorted((kb / level).glob("*.py"), key=lambda p: int(p.name.split("_")[0]))
    return found[:count]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernelbench", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--problems", type=int, default=30)
    parser.add_argument("--device", default="cuda:0")
    args = parser.parse_args()
    out = Path(args.out)
    rows: dict = {}
    proposer = BuiltinProposer("cuda")
    started = time.monotonic()
    config = JudgeConfig(devices=(args.device,), workers_per_device=GPU_WORKERS, timing=False)
    with JudgePool(config) as pool:
        futures = {}
        for path in problems(Path(args.kernelbench), args.problems):
            spec = TaskSpec.parse(str(path))
            try:
                proposal = proposer.initial(ProposalRequest(task=spec), 1)[0]
            except (ProposalError, IndexError) as e:
                rows[f"{path.parent.name}/{path.name}"] = {"proposed": False, "why": str(e)[:200]}
                continue
            futures[f"{path.parent.name}/{path.name}"] = pool.submit(spec, proposal.source)
        for name, future in futures.items():
            v = future.result()
            failed = v.failed_check()
            rows[name] = {"proposed": True, "verdict": v.verdict, "stage": v.stage,
                          "check": failed.name if failed else None, "reason": v.reason[:400],
                          "seconds": v.seconds}
            print(name, v.verdict, v.reason[:160], flush=True)
            out.write_text(json.dumps({"rows": rows}, indent=1))
    judged = [r for r in rows.values() if r.get("proposed")]
    summary = {"problems": len(rows), "proposed": len(judged), "valid": sum(r["verdict"] == "valid" for r in judged),
               "wall_s": round(time.monotonic() - started, 1)}
    out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
