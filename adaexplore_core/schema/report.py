"""What a finished search leaves in its folder, and how its result reads in one line.

``report.json`` (written by ``search/explore.py``): the task, the steps, the valid share, ``best`` (the
winner's verdict summary with ``timed``, ``timing``, ``env`` and ``envelope``, or None), ``candidates`` and
``rejections``; ``best.py``: the winner's source. Readers must ignore keys they do not know.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TREE_FILE, BEST_FILE, REPORT_FILE, SUMMARY_FILE = "tree.json", "best.py", "report.json", "summary.md"


def read_report(out: Path) -> tuple[dict[str, Any], str] | None:
    """The report of the search in ``out`` and the best candidate's source ("" without a winner); None when
    the folder has no readable report."""
    try:
        report = json.loads((Path(out) / REPORT_FILE).read_text(encoding="utf-8"))
        if not isinstance(report, dict):
            return None
        best = report.get("best")
        best_path = Path(out) / BEST_FILE
        source = best_path.read_text(encoding="utf-8") if best and best_path.exists() else ""
    except (OSError, ValueError):            # UnicodeDecodeError is a ValueError
        return None
    return report, source


def speedup_interval(estimate: float, low: float | None, high: float | None) -> str:
    """'1.42x (1.38-1.47, 95 %)', or the estimate alone without an interval."""
    return f"{estimate:.2f}x ({low:.2f}-{high:.2f}, 95 %)" if low is not None and high is not None \
        else f"{estimate:.2f}x"


def speedup_claim(estimate: float, low: float | None, high: float | None, baseline: str) -> str:
    """'2.41x (2.30-2.52) vs eager'; 'no faster than eager (0.95-1.04x)' when the interval reaches 1."""
    if low is None or high is None:
        return f"{estimate:.2f}x vs {baseline}"
    if low <= 1.0 <= high:
        return f"no faster than {baseline} ({low:.2f}-{high:.2f}x)"
    return f"{estimate:.2f}x ({low:.2f}-{high:.2f}) vs {baseline}"


LAUNCH_RATIO = 2.0   # host-bound against a baseline only at twice its launch time (see host_bound_in_a_loop)


def host_bound_in_a_loop(timing: dict[str, Any], baseline: str = "eager") -> bool:
    """Whether a program calling the candidate in a loop is no faster than calling ``baseline`` ("eager" or
    "compile"), whatever its device time: launching one call takes the host at least as long as a whole call of
    the baseline (the larger of its device and host times) and at least LAUNCH_RATIO times the baseline's
    launch, all measured in the same rounds (red team 2026-12-02: 2 ms of Python per call, hidden under the
    timer's spin, was certified at the kernel's speedup). The ratio is there because the judge's other workers
    load the host and inflate every launch time several-fold while device times stay: the ratio of two launch
    times survives that, a launch time against a device time does not."""
    host, device, other_host = (timing.get("candidate_host_ms"), timing.get(f"{baseline}_ms"),
                                timing.get(f"{baseline}_host_ms"))
    return None not in (host, device, other_host) and host >= max(device, LAUNCH_RATIO * other_host)


def _loop_claim(timing: dict[str, Any], baseline: str, name: str) -> str:
    return (f"no faster than {name} in a loop (host-bound: {timing['candidate_host_ms']:.3f} ms to launch a "
            f"call, {name} {max(timing[f'{baseline}_ms'], timing[f'{baseline}_host_ms']):.3f} ms per call)")


def headline(best: dict[str, Any] | None, separator: str = ", ") -> str:
    """'2.41x vs eager, 1.30x vs torch.compile, validated on NVIDIA H200' for a report's best (or why there is
    no speed claim)."""
    if not best:
        return "no valid candidate"
    if not best.get("timed"):
        return "validated (interpreter), not timed"
    timing = best.get("timing") or {}
    parts = [_loop_claim(timing, "eager", "eager") if host_bound_in_a_loop(timing) else
             speedup_claim(best["speedup_vs_eager"], timing.get("speedup_vs_eager_low"),
                           timing.get("speedup_vs_eager_high"), "eager")]
    if best.get("speedup_vs_compile"):
        parts.append(_loop_claim(timing, "compile", "torch.compile") if host_bound_in_a_loop(timing, "compile")
                     else speedup_claim(best["speedup_vs_compile"], timing.get("speedup_vs_compile_low"),
                                        timing.get("speedup_vs_compile_high"), "torch.compile"))
    gpu = (best.get("env") or {}).get("gpu")
    return separator.join(parts + [f"validated on {gpu}" if gpu else "validated"])
