"""Is the judge's timing true? Figures for the certificate, on a GPU (one run, results written as they come).

    python benchmarks/judge_integrity_gpu.py --kernelbench DIR --out results.json [--problems 20]

1. agreement: the built-in proposer's first candidate for N KernelBench problems (levels 2 then 1), judged
   with the winner's re-timing rounds; each valid one timed again with ``triton.testing.do_bench`` in a separate
   process (fixed inputs, its own L2 flush). Goal: within 5 %.
2. spread: one sub-millisecond two-kernel candidate (residual add + RMSNorm, 16384 x 4096 fp32) judged 5 times. Goal: candidate time spread (max - min) / median <= 3 %.
3. throughput: passthrough candidates of two level-2 problems on a warm pool (of 2, or --throughput-workers, per
   GPU), alternating, then of one problem. Goal: >= 20 per minute per GPU. Reported as the pass's candidates
   over its wall time, and as the candidates finished after every worker's first one over the time since (the
   pass's start, every worker beginning at once, left out).
4. sandbox: escape candidates judged with the static guard off on the GPU; none may create its marker file.
5. memory: level-1 problems with 7.5-8.6 GB inputs on a pool of the search's workers per GPU (--memory-workers;
   the whole-GPU retry).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from adaexplore_core.judge.pool import JudgeConfig, JudgePool  # noqa: E402
from adaexplore_core.proposers.base import ProposalError, ProposalRequest  # noqa: E402
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer  # noqa: E402
from adaexplore_core.search.explore import RETIME_ROUNDS  # noqa: E402
from adaexplore_core.app.wiring import GPU_WORKERS  # noqa: E402
from adaexplore_core.task import TaskSpec  # noqa: E402
from passthrough import passthrough_candidate  # noqa: E402

DO_BENCH = r'''
import json, sys, importlib.util, torch, triton.testing
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
ref = load(sys.argv[1], "reference_module")
cand = load(sys.argv[2], "candidate_module")
torch.manual_seed(0)
model = cand.ModelNew(*ref.get_init_inputs()).cuda()
with torch.device("cuda"):
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in ref.get_inputs()]
with torch.no_grad():
    ms = [triton.testing.do_bench(lambda: model(*inputs), warmup=25, rep=200, return_mode="median")
          for _ in range(3)]
print(json.dumps({"ms": sorted(ms)[1], "all": ms}))
'''


def number(path: Path) -> int:
    return int(path.name.split("_")[0])


def do_bench(ref: Path, source: str, scratch: Path) -> dict:
    scratch.mkdir(parents=True, exist_ok=True)
    cand = scratch / f"cand_{ref.stem}.py"
    cand.write_text(source)
    script = scratch / "do_bench_one.py"
    script.write_text(DO_BENCH)
    done = subprocess.run([sys.executable, str(script), str(ref), str(cand)], capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        return {"error": done.stderr[-500:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def agreement(pool: JudgePool, kb: Path, count: int, scratch: Path, results: dict, save, deadline: float,
              skip: int = 0) -> None:
    """The first ``count`` valid problems after the first ``skip`` problems (levels 2 then 1, by number)."""
    proposer = BuiltinProposer()
    rows = results["agreement"] = []
    paths = [(level, path) for level in ("level2", "level1") for path in sorted((kb / level).glob("*.py"), key=number)]
    for level, path in paths[skip:]:
        if sum(1 for r in rows if r.get("judge_ms")) >= count or time.monotonic() > deadline:
            return
        spec = TaskSpec.parse(str(path))
        try:
            proposal = proposer.initial(ProposalRequest(task=spec), 1)[0]
        except (ProposalError, IndexError):
            continue
        verdict = pool.judge(spec, proposal.source, rounds=RETIME_ROUNDS)
        row = {"problem": f"{level}/{path.name}", "verdict": verdict.verdict, "reason": verdict.reason[:300],
               "envelope": verdict.envelope}
        if verdict.stage in ("timeout", "crash", "internal"):
            row["log_tail"] = verdict.log_tail[-1500:]
        if verdict.ok and verdict.timing:
            t = verdict.timing
            row.update(judge_ms=t.candidate_ms, eager_ms=t.eager_ms, compile_ms=t.compile_ms,
                       speedup=t.speedup_vs_eager, low=t.speedup_vs_eager_low, high=t.speedup_vs_eager_high)
            bench = do_bench(path, proposal.source, scratch)
            row["do_bench"] = bench
            if "ms" in bench:
                row["difference_pct"] = 100 * (t.candidate_ms - bench["ms"]) / bench["ms"]
        rows.append(row)
        print(json.dumps(row), flush=True)
        save()


def spread(pool: JudgePool, kb: Path, results: dict, save) -> None:
    spec = TaskSpec.parse(str(HERE / "references" / "add_rmsnorm.py"))
    source = (HERE / "candidates" / "add_rmsnorm_two_kernels.py").read_text()
    runs = []
    for _ in range(5):
        v = pool.judge(spec, source)
        t = v.timing
        runs.append({"verdict": v.verdict, "reason": v.reason[:300], "log_tail": v.log_tail[-1000:] if not v.ok else "",
                     "candidate_ms": t.candidate_ms if t else None,
                     "speedup": t.speedup_vs_eager if t else None,
                     "interval": [t.speedup_vs_eager_low, t.speedup_vs_eager_high] if t else None})
        print(json.dumps(runs[-1]), flush=True)
    times = [r["candidate_ms"] for r in runs if r["candidate_ms"]]
    results["spread"] = {"problem": "benchmarks/references/add_rmsnorm.py (two hand-written kernels)", "runs": runs,
                         "spread_pct": 100 * (max(times) - min(times)) / statistics.median(times) if times else None}
    save()


def throughput(pool: JudgePool, kb: Path, results: dict, save) -> None:
    """Two passes of 20 passthrough candidates: the two problems alternating (candidates of one task are timed
    together only when they meet), then one problem alone (a search: every candidate of one task)."""
    problems = ["level2/9_Matmul_Subtract_Multiply_ReLU.py", "level2/29_Matmul_Mish_Mish.py"]
    specs = [TaskSpec.parse(str(kb / p)) for p in problems]
    for spec in specs:                              # warm: the baselines are prepared once per task
        pool.judge(spec, passthrough_candidate(spec.read_source()))
    rows = results.setdefault("throughput", {})
    for name, queue in (("alternating", [spec for _ in range(10) for spec in specs]), ("one_task", [specs[0]] * 20)):
        started = time.monotonic()
        futures = [pool.submit(spec, passthrough_candidate(spec.read_source())) for spec in queue]
        done: list[float] = []
        for f in futures:
            f.add_done_callback(lambda _: done.append(time.monotonic()))
        verdicts = [f.result() for f in futures]
        wall = time.monotonic() - started
        done.sort()
        workers = pool.config.workers_per_device
        groups = [v.timing.group for v in verdicts if v.timing is not None]
        rows[f"{pool.config.workers_per_device}/{name}"] = {
            "problems": sorted({Path(s.path).name for s in queue}), "candidates": len(verdicts), "wall_s": round(wall, 2),
            "valid": sum(v.ok for v in verdicts), "per_minute": round(len(verdicts) / wall * 60, 1),
            # once every worker has finished its first candidate: the rate of a search that keeps the pool full
            "per_minute_after_first_round": round((len(done) - workers) / (done[-1] - done[workers - 1]) * 60, 1)
            if len(done) > workers and done[-1] > done[workers - 1] else None,
            "median_candidate_s": statistics.median(v.seconds for v in verdicts),
            "timing_groups": {str(n): groups.count(n) for n in sorted(set(groups))},
            "witness_processes_started": sum(v.env.get("witness_process") == "started for it" for v in verdicts),
            "reasons": sorted({v.reason[:200] for v in verdicts if not v.ok}),
            "phase_median_s": phase_medians(verdicts)}
        print(name, json.dumps(rows[f"{pool.config.workers_per_device}/{name}"]), flush=True)
        save()


def phase_medians(verdicts: list) -> dict:
    """The median seconds of each worker phase over ``verdicts`` (where it ran); a phase's wait for the GPU
    ("<phase>.gpu_wait") counts 0 where the phase ran without waiting."""
    names = [n for v in verdicts for n in v.phase_seconds]

    def ran(v, n: str) -> bool:
        return n.partition(".")[0] in v.phase_seconds

    return {n: round(statistics.median(v.phase_seconds.get(n, 0.0) for v in verdicts if ran(v, n)), 3)
            for n in dict.fromkeys(names)}


def memory(pool: JudgePool, kb: Path, results: dict, save) -> None:
    """Level-1 problems with 7.5-8.6 GB inputs, judged in a share of the GPU: out of memory there, each must be
    judged again with the whole GPU (the pool records which tasks needed it)."""
    proposer = BuiltinProposer()
    rows = results["memory"] = {"workers_per_gpu": pool.config.workers_per_device, "problems": {}}
    for name in ("35_GroupNorm_.py", "37_FrobeniusNorm_.py", "39_L2Norm_.py"):
        spec = TaskSpec.parse(str(kb / "level1" / name))
        try:
            proposal = proposer.initial(ProposalRequest(task=spec), 1)[0]
        except (ProposalError, IndexError) as e:
            rows["problems"][name] = {"skipped": str(e)}
            continue
        v = pool.judge(spec, proposal.source)
        rows["problems"][name] = {"verdict": v.verdict, "stage": v.stage, "reason": v.reason[:300],
                                  "seconds": v.seconds, "whole_gpu": spec.key() in pool._whole_gpu,
                                  "phases": v.phase_seconds, "checks": [c.detail[:160] for c in v.checks][-6:],
                                  "log_tail": v.log_tail[-1500:] if not v.ok else ""}
        print(name, json.dumps(rows["problems"][name]), flush=True)
        save()


ESCAPES = {
    "write_outside": "open('/tmp/adaexplore_gpu_escape_write', 'w').write('x')",
    "exec_shell": "__import__('os').system('touch /tmp/adaexplore_gpu_escape_exec')",
    "read_home": "open('/root/.adaexplore_gpu_secret').read()",
}


def sandbox(kb: Path, device: str, results: dict, save) -> None:
    Path("/root/.adaexplore_gpu_secret").write_text("secret")
    spec = TaskSpec.parse(str(kb / "level1" / "19_ReLU.py"))
    honest = (HERE / "candidates" / "kb_l1_19_relu.py").read_text()
    rows = {}
    config = JudgeConfig(devices=(device,), workers_per_device=1, static_guard=False, timing=False)
    with JudgePool(config) as pool:
        for name, attack in ESCAPES.items():
            source = honest.replace("class ModelNew", f"{attack}\n\n\nclass ModelNew", 1)
            v = pool.judge(spec, source)
            marker = Path(f"/tmp/adaexplore_gpu_escape_{name.split('_')[0]}")
            rows[name] = {"verdict": v.verdict, "stage": v.stage, "reason": v.reason[:300],
                          "marker_created": marker.exists(), "sandbox": v.env.get("sandbox")}
            if v.stage == "timeout":
                rows[name]["log_tail"] = v.log_tail[-1500:]
            print(name, json.dumps(rows[name]), flush=True)
        v = pool.judge(spec, honest)
        rows["honest"] = {"verdict": v.verdict, "reason": v.reason[:200], "sandbox": v.env.get("sandbox"),
                          "log_tail": v.log_tail[-1500:] if not v.ok else ""}
    results["sandbox"] = rows
    save()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernelbench", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--problems", type=int, default=20)
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--parts", nargs="*", default=["sandbox", "spread", "throughput", "agreement"])
    parser.add_argument("--seconds", type=float, default=1e9, help="start no agreement problem after this")
    parser.add_argument("--throughput-workers", type=int, nargs="*", default=[2],
                        help="throughput: one warm pool of this many workers per GPU for each number")
    parser.add_argument("--memory-workers", type=int, default=GPU_WORKERS, help="memory: workers per GPU")
    parser.add_argument("--skip", type=int, default=0, help="agreement: begin after this many problems")
    args = parser.parse_args()
    deadline = time.monotonic() + args.seconds
    kb = Path(args.kernelbench)
    results: dict = {}
    out = Path(args.out)

    def save() -> None:
        out.write_text(json.dumps(results, indent=1, default=str))

    if "sandbox" in args.parts:
        sandbox(kb, args.device, results, save)
    if "memory" in args.parts:
        with JudgePool(JudgeConfig(devices=(args.device,), workers_per_device=args.memory_workers)) as pool:
            memory(pool, kb, results, save)
    if "throughput" in args.parts:
        for workers in args.throughput_workers:
            with JudgePool(JudgeConfig(devices=(args.device,), workers_per_device=workers)) as pool:
                throughput(pool, kb, results, save)
    if "spread" in args.parts or "agreement" in args.parts:
        with JudgePool(JudgeConfig(devices=(args.device,), workers_per_device=2)) as pool:
            if "spread" in args.parts:
                spread(pool, kb, results, save)
            if "agreement" in args.parts:
                agreement(pool, kb, args.problems, Path("/tmp/adaexplore-do-bench"), results, save, deadline,
                          args.skip)
    rows = [r for r in results.get("agreement", []) if "difference_pct" in r]
    if rows:
        results["agreement_summary"] = {
            "problems": len(rows), "within_5pct": sum(abs(r["difference_pct"]) <= 5 for r in rows),
            "max_abs_pct": max(abs(r["difference_pct"]) for r in rows)}
    save()
    print(json.dumps({k: v for k, v in results.items() if k != "agreement"}, default=str)[:3000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
