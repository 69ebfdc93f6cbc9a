"""What the envelope check costs per call: ``ModelNew._in_envelope`` of built-in candidates, on the host.

    python benchmarks/dispatch_cost.py [--device cuda|cpu] [--out results.json]

For each reference below (the bundled example and two of tests/data/proposers), the first built-in candidate
is imported and ``model._in_envelope(inputs)`` is timed under ``torch.no_grad()`` (the Triton path's case: every
check runs) with ``timeit`` in CPU time (host work, which other processes on a loaded host change least),
median and best of 21 repeats of 2000 calls; and the whole forward on the same small inputs, to set the check
beside a sub-millisecond call. On a GPU the forward is synchronised.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adaexplore_core.proposers.base import ProposalRequest  # noqa: E402
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer  # noqa: E402
from adaexplore_core.task import TaskSpec, import_file, load_task  # noqa: E402

REFERENCES = ["adaexplore_core/examples/fused_bias_gelu.py", "tests/data/proposers/layer_norm_module.py",
              "tests/data/proposers/sequential_children.py"]


def per_call_us(fn, number: int, repeat: int = 7, timer=time.perf_counter) -> tuple[float, float]:
    """(median, best) microseconds per call over ``repeat`` runs of ``number`` calls."""
    runs = [t / number * 1e6 for t in timeit.repeat(fn, number=number, repeat=repeat, timer=timer)]
    return statistics.median(runs), min(runs)


def measure(path: str, device: str, folder: Path) -> dict:
    spec = TaskSpec.parse(str(ROOT / path))
    task = load_task(spec)
    source = BuiltinProposer(device_type=torch.device(device).type).initial(ProposalRequest(task=spec), 1)[0].source
    file = folder / Path(path).name
    file.write_text(source)
    module = import_file(str(file), prefix="dispatch_cost")
    model = task.build(module.ModelNew, 0, device)
    inputs = task.make_inputs(0, device)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    with torch.no_grad():
        assert model._in_envelope(inputs), "not inside its own envelope"
        # the check is host work: its CPU time (process_time) is what other processes on a loaded host
        # change least
        check, check_best = per_call_us(lambda: model._in_envelope(inputs), 2000, repeat=21, timer=time.process_time)

        def forward() -> None:
            model(*inputs)
            sync()
        forward()
        whole = per_call_us(forward, 20 if device == "cpu" else 200)[0]
    params = sum(1 for _ in model.parameters()) + sum(1 for _ in model.buffers())
    return {"reference": path, "tensors_checked": params + len(inputs), "check_us": round(check, 2),
            "check_best_us": round(check_best, 2),
            "forward_us": round(whole, 1), "check_share": round(check / whole, 4)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--out")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for path in REFERENCES:
            rows.append(measure(path, args.device, Path(folder)))
            print(json.dumps(rows[-1]), flush=True)
    result = {"device": torch.cuda.get_device_name() if args.device.startswith("cuda") else "cpu",
              "torch": torch.__version__, "date": time.strftime("%Y-%m-%d"), "rows": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
