"""Judge figures on a GPU: baselines beside KernelBench's H100 numbers, timing spread, throughput.

    python benchmarks/judge_gpu.py --kernelbench DIR --out results.json [--problems level1/19_ReLU.py ...]

Every problem is judged with a passthrough candidate (its own forward, outputs copied by Triton: valid by
construction, measures the judge); three have hand-written candidates in benchmarks/candidates/, judged
three times each to show run-to-run spread. Results are written after every verdict.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from adaexplore_core.judge.pool import JudgeConfig, JudgePool  # noqa: E402
from adaexplore_core.task import TaskSpec  # noqa: E402
from passthrough import passthrough_candidate  # noqa: E402

DEFAULT_PROBLEMS = [   # hand-written ones first, then level 2, then the large level-1 inputs
    "level1/19_ReLU.py", "level1/23_Softmax.py", "level2/1_Conv2D_ReLU_BiasAdd.py",
    "level2/9_Matmul_Subtract_Multiply_ReLU.py", "level2/29_Matmul_Mish_Mish.py", "level2/59_Matmul_Swish_Scaling.py",
    "level2/63_Gemm_ReLU_Divide.py", "level2/81_Gemm_Swish_Divide_Clamp_Tanh_Clamp.py",
    "level1/21_Sigmoid.py", "level1/25_Swish.py", "level1/47_Sum_reduction_over_a_dimension.py",
    "level1/9_Tall_skinny_matrix_multiplication_.py",
]
HAND_WRITTEN = {
    "level1/19_ReLU.py": "kb_l1_19_relu.py",
    "level1/23_Softmax.py": "kb_l1_23_softmax.py",
    "level2/1_Conv2D_ReLU_BiasAdd.py": "kb_l2_1_conv_relu_bias.py",
}
REPEATS = 3


def h100_baselines(kb: Path, problem: str) -> dict:
    level, name = problem.split("/")
    out = {}
    for key, file in (("eager", "baseline_time_torch.json"),
                      ("compile", "baseline_time_torch_compile_inductor_default.json")):
        path = kb / "baselines" / "H100_Modal" / file
        if path.is_file():
            out[key] = json.loads(path.read_text()).get(level, {}).get(name, {}).get("mean")
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernelbench", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--problems", nargs="*", default=DEFAULT_PROBLEMS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--throughput", nargs="*", default=[],
                        help="problems judged again afterwards, --throughput-rounds passthrough candidates each, "
                             "on the warm pool: candidates per minute")
    parser.add_argument("--throughput-rounds", type=int, default=4)
    args = parser.parse_args()
    kb = Path(args.kernelbench)
    jobs = []
    for problem in args.problems:
        spec = TaskSpec.parse(str(kb / problem))
        jobs.append((problem, "passthrough", spec, passthrough_candidate(spec.read_source())))
        if problem in HAND_WRITTEN:
            source = (HERE / "candidates" / HAND_WRITTEN[problem]).read_text()
            jobs.extend((problem, f"hand-written#{i + 1}", spec, source) for i in range(REPEATS))
    results: dict = {"problems": {}, "jobs": []}
    config = JudgeConfig(devices=(args.device,), workers_per_device=args.workers)
    started = time.monotonic()
    with JudgePool(config) as pool:
        futures = [(p, kind, pool.submit(spec, src, name=f"{kind}.py")) for p, kind, spec, src in jobs]
        for problem, kind, future in futures:
            verdict = future.result()
            entry = {"problem": problem, "kind": kind, "verdict": verdict.verdict, "stage": verdict.stage,
                     "reason": verdict.reason, "seconds": verdict.seconds,
                     "done_at_s": round(time.monotonic() - started, 2),
                     "timing": verdict.timing.__dict__ if verdict.timing else None, "env": verdict.env}
            results["jobs"].append(entry)
            print(json.dumps({k: entry[k] for k in ("problem", "kind", "verdict", "reason", "seconds",
                                                   "done_at_s")}), flush=True)
            Path(args.out).write_text(json.dumps(results, indent=1))
        total = time.monotonic() - started
        if args.throughput:
            warm = [(p, TaskSpec.parse(str(kb / p))) for p in args.throughput]
            phase = time.monotonic()
            futures = [pool.submit(spec, passthrough_candidate(spec.read_source()))
                       for _ in range(args.throughput_rounds) for _, spec in warm]
            verdicts = [f.result() for f in futures]
            wall = time.monotonic() - phase
            results["throughput"] = {
                "problems": args.throughput, "candidates": len(verdicts), "wall_s": round(wall, 2),
                "valid": sum(v.ok for v in verdicts), "per_minute": round(len(verdicts) / wall * 60, 1),
                "median_candidate_s": statistics.median(v.seconds for v in verdicts),
                "workers": args.workers}
            print("throughput:", json.dumps(results["throughput"]))
    for problem in args.problems:
        entries = [j for j in results["jobs"] if j["problem"] == problem and j["timing"]]
        row: dict = {"h100": h100_baselines(kb, problem)}
        if entries:
            row["eager_ms"] = [j["timing"]["eager_ms"] for j in entries]
            row["compile_ms"] = [j["timing"]["compile_ms"] for j in entries]
        hand = [j["timing"]["candidate_ms"] for j in entries if j["kind"].startswith("hand")]
        if hand:
            row["hand_written_ms"] = hand
            row["hand_written_spread_pct"] = 100 * (max(hand) - min(hand)) / statistics.median(hand)
        results["problems"][problem] = row
    results["wall_s"] = total
    results["candidates_per_minute"] = len(jobs) / total * 60
    Path(args.out).write_text(json.dumps(results, indent=1))
    print(f"{len(jobs)} candidates in {total:.1f} s: {len(jobs) / total * 60:.1f} per minute")
    for problem, row in results["problems"].items():
        print(problem, json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
