"""Where one timing measurement's wall time goes, on a GPU (the judge's exclusive time per candidate).

    python benchmarks/measure_cost.py --kernelbench DIR --out results.json

For a few KernelBench problems, the baseline process's ``measure`` of eager PyTorch (``judge.baseline``) is
run several times in this process with its parts timed: making the base input sets, the first call, the
per-call estimate and warm-up, the timed loop, and freeing the cache. Also the loop's own cost per timed
call (fresh inputs and the L2 flush) beside the forward's median.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import torch  # noqa: E402

from adaexplore_core.judge import timing  # noqa: E402
from adaexplore_core.task import TaskSpec, load_task  # noqa: E402

PROBLEMS = ["level2/9_Matmul_Subtract_Multiply_ReLU.py", "level2/29_Matmul_Mish_Mish.py",
            "level1/19_ReLU.py", "level2/1_Conv2D_ReLU_BiasAdd.py"]


def seconds(fn):
    torch.cuda.synchronize()
    began = time.perf_counter()
    value = fn()
    torch.cuda.synchronize()
    return value, time.perf_counter() - began


def probe(path: Path, device: torch.device, repeats: int) -> dict:
    task = load_task(TaskSpec.parse(str(path)))
    model = task.build(task.model_class, 0, device)
    rng = random.Random(0)
    rows = []
    for _ in range(repeats):
        row = {}
        first = task.make_inputs(rng.getrandbits(62), device)
        sets, row["make_sets_s"] = seconds(lambda: [first] + [task.make_inputs(rng.getrandbits(62), device)
                                                              for _ in range(timing.input_set_count(first) - 1)])
        fresh = timing.FreshInputs(sets, rng.getrandbits(62))
        m, row["measure_s"] = seconds(lambda: timing.measure(model, fresh, device))
        row["calls"] = len(m.samples)
        row["median_ms"] = statistics.median(m.samples)
        _, row["empty_cache_s"] = seconds(torch.cuda.empty_cache)
        # the loop's own cost: a timed loop of an empty function (fresh inputs and the L2 flush only)
        _, loop_s = seconds(lambda: timing._time_calls(lambda *a: None, fresh, device, row["calls"]))
        row["loop_overhead_per_call_ms"] = loop_s / row["calls"] * 1e3
        with torch.no_grad():
            _, row["first_call_s"] = seconds(lambda: model(*fresh.next()))
        rows.append({k: round(v, 5) if isinstance(v, float) else v for k, v in row.items()})
        del sets, fresh, m
    return {"problem": path.name, "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernelbench", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=4)
    args = parser.parse_args()
    device = torch.device("cuda:0")
    torch.backends.cuda.matmul.allow_tf32 = False
    results = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "problems": []}
    for name in PROBLEMS:
        path = Path(args.kernelbench) / name
        if path.is_file():
            results["problems"].append(probe(path, device, args.repeats))
            print(json.dumps(results["problems"][-1]), flush=True)
            torch.cuda.empty_cache()
    Path(args.out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
