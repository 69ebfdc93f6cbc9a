"""bench.png: one pair of bars per problem, named on the x axis, and no line joining different problems;
`adaexplore bench --replot` writes it from a recorded bench.json."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adaexplore_core.search import bench

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "docs" / "results" / "2026-11-30-bench-l2-h200" / "bench.json"


def entry(name: str, eager: float | None, compile_: float | None, valid: bool = True) -> dict:
    path = Path(f"level2/{name}.py")
    row = bench.problem_entry(path, None)
    row.update(supported=True, valid=valid, timed=eager is not None, best_vs_eager=eager, best_vs_compile=compile_,
               steps=4)
    return row


DATA = bench.report([entry("3_Conv2d_Tanh", 1.8, 1.2), entry("1_Gemm_ReLU", 0.9, 0.7),
                     entry("5_Softmax_Sum", None, None, valid=False), entry("7_LayerNorm_GELU", 1.1, None)], steps=4)


def joining_lines(ax) -> list:
    """Lines with more than one point, other than the horizontal 1x reference."""
    return [line for line in ax.get_lines() if len(line.get_xdata()) > 1 and line.get_linestyle() not in ("None", "")
            and set(line.get_ydata()) != {1.0}]


def test_bars_per_problem_with_names_and_no_joining_lines():
    import matplotlib.pyplot as plt

    fig = bench.figure(DATA)
    try:
        ax = fig.axes[0]
        names = [label.get_text() for label in ax.get_xticklabels()]
        # the failed problem first, then sorted by the speedup over eager
        assert names == ["5_Softmax_Sum", "1_Gemm_ReLU", "7_LayerNorm_GELU", "3_Conv2d_Tanh"]
        assert not joining_lines(ax)
        eager, compiled = ax.containers                  # two bar series: vs eager, vs torch.compile
        assert [round(b.get_y() + b.get_height(), 3) for b in eager] == [0.9, 1.1, 1.8]
        assert [round(b.get_y() + b.get_height(), 3) for b in compiled] == [0.7, 1.2]
        assert all(b.get_y() == 1.0 for b in (*eager, *compiled))   # each bar drawn from 1x
    finally:
        plt.close(fig)


def test_long_names_are_shortened_with_an_ellipsis():
    import matplotlib.pyplot as plt

    long = "11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm"
    fig = bench.figure(bench.report([entry(long, 1.3, 1.0)], steps=4))
    try:
        (label,) = [t.get_text() for t in fig.axes[0].get_xticklabels()]
        assert len(label) == bench.NAME_CHARS and label.endswith("\u2026") and long.startswith(label[:-1])
    finally:
        plt.close(fig)


def test_replot_of_the_recorded_bench(tmp_path):
    (tmp_path / bench.JSON_FILE).write_text(RECORDED.read_text())
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "-m", "adaexplore_core.cli", "bench", "--replot", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / bench.PLOT_FILE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    problems = json.loads(RECORDED.read_text())["problems"]
    import matplotlib.pyplot as plt
    fig = bench.figure(json.loads(RECORDED.read_text()))
    try:
        names = [t.get_text() for t in fig.axes[0].get_xticklabels()]
        assert sorted(names) == sorted(bench._short(p["name"]) for p in problems)
    finally:
        plt.close(fig)
