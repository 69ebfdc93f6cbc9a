"""Compile, without running, every Triton kernel that the built-in proposer's candidates launch, for an
NVIDIA Hopper GPU (sm_90), on a machine without a GPU. The Triton interpreter that the other tests use does
not catch what only the compiler refuses (types of scalars, block shapes, loop bounds); this does.

    python tests/support/hopper_compile.py [--candidates K] REFERENCE.py ...   ->  one JSON line per candidate
    (the first K candidates of the proposer's initial(), 2 by default)

A stand-in driver names the target; each launch compiles through Triton's own path (ttir to cubin, ptxas
included) and does not run, so the candidate's forward goes on with uninitialized outputs: enough to reach
every launch of straight-line code. Run it in a process of its own: it replaces Triton's active driver.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from pathlib import Path

os.environ.pop("TRITON_INTERPRET", None)
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import torch  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.runtime import driver  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from adaexplore_core.proposers.base import ProposalError, ProposalRequest  # noqa: E402
from adaexplore_core.proposers.builtin.proposer import BuiltinProposer  # noqa: E402
from adaexplore_core.task import TaskSpec, import_file, load_task  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)


class HopperStandIn:
    """What JITFunction.run asks of the driver when it only compiles."""

    def get_current_device(self) -> int:
        return 0

    def get_current_stream(self, device: int | None = None) -> int:
        return 0

    def get_current_target(self) -> GPUTarget:
        return TARGET


compiled: list[str] = []
_run = JITFunction.run


def _compile_only(self, *args, grid, warmup, **kwargs):
    kernel = _run(self, *args, grid=grid, warmup=True, **kwargs)
    assert "cubin" in kernel.asm, f"{self.fn.__name__}: no cubin"
    compiled.append(self.fn.__name__)
    return kernel


def check(path: str, count: int, folder: Path) -> list[dict]:
    spec = TaskSpec.parse(path)
    try:
        proposals = BuiltinProposer().initial(ProposalRequest(task=spec), count)
    except ProposalError as e:
        return [{"reference": path, "unsupported": str(e)}]
    task = load_task(spec)
    rows = []
    for i, proposal in enumerate(proposals):
        file = folder / f"{Path(path).stem}_{i}.py"
        file.write_text(proposal.source)
        compiled.clear()
        row = {"reference": path, "description": proposal.description}
        try:
            module = import_file(str(file), prefix="adaexplore_hopper_compile")
            torch.manual_seed(0)
            model = task.build(module.ModelNew, 0, "cpu")
            with torch.no_grad():
                model(*task.make_inputs(0, "cpu"))
        except Exception as e:  # noqa: BLE001 - reported with the kernels compiled so far
            row["error"] = "".join(traceback.format_exception_only(e)).strip()[-2000:]
        row["kernels"] = list(compiled)
        rows.append(row)
    return rows


def main() -> int:
    count = 2
    paths = sys.argv[1:]
    if paths[:1] == ["--candidates"]:
        count, paths = int(paths[1]), paths[2:]
    driver.set_active(HopperStandIn())
    JITFunction.run = _compile_only
    with tempfile.TemporaryDirectory() as folder:
        for path in paths:
            for row in check(path, count, Path(folder)):
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
