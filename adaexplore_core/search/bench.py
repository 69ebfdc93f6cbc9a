"""``adaexplore bench``'s problems, metrics and reports (``app/bench.py`` runs the searches).

Per problem: the best validated speedup over eager and over torch.compile found by the search, and the
first candidate's (the proposer's single shot) beside it. Summary, as in the paper: accuracy (share of
problems with a valid candidate), mean speedup capped at 10x with failures as 0, geomean speedup with
failures as 0.1, fast@1.2 and fast@2 (valid and faster than 1.2x / 2x), plus the geomean over
torch.compile. Speed metrics exist only for timed (GPU) runs. Files: bench.json, bench.md, bench.png.
"""
from __future__ import annotations

import importlib.util
import json
import math
import re
from pathlib import Path
from typing import Any

from ..task import TaskError
from .tree import speedup_of

CAP = 10.0           # mean speedup: capped
FAILED_MEAN = 0.0    # a failed problem in the mean
FAILED_GEOMEAN = 0.1  # a failed problem in the geomean
FAST_THRESHOLDS = (1.2, 2.0)
JSON_FILE, MARKDOWN_FILE, PLOT_FILE = "bench.json", "bench.md", "bench.png"


def problem_files(inputs: list[str]) -> list[Path]:
    """Files as given and every .py file of each folder (KernelBench number order when names start with
    one); duplicates dropped. Missing paths raise TaskError."""
    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            found = sorted(path.glob("*.py"), key=_problem_order)
            if not found:
                raise TaskError(f"no .py problem files in folder {item}")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise TaskError(f"not a file or folder: {item}")
    unique: list[Path] = []
    for f in files:
        if f.resolve() not in [u.resolve() for u in unique]:
            unique.append(f)
    return unique


REQUIRES = re.compile(r"#\s*requires:\s*(?P<names>[\w.\-, ]+?)\s*$")


def missing_requirements(path: Path) -> list[str]:
    """The libraries a problem's first line ``# requires: transformers, timm`` names that this Python cannot
    import (such a problem is skipped, not failed)."""
    try:
        with path.open(encoding="utf-8") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError):
        return []                              # the search says what is wrong with the file
    match = REQUIRES.match(first.strip())
    if not match:
        return []
    names = [n.strip() for n in match["names"].split(",") if n.strip()]
    return [n for n in names if importlib.util.find_spec(n) is None]


def _problem_order(path: Path) -> tuple[int, str]:
    match = re.match(r"(\d+)_", path.name)
    return (int(match.group(1)) if match else 1 << 30, path.name)


def problem_slug(path: Path) -> str:
    """A folder name for the problem's results: level folder and file stem."""
    return f"{path.parent.name}__{path.stem}" if path.parent.name else path.stem


def problem_entry(path: Path, result: Any | None, error: str = "") -> dict[str, Any]:
    """One problem's row: the search's best and the first candidate (the proposer's single shot)."""
    entry: dict[str, Any] = {"problem": str(path), "name": path.stem, "supported": result is not None,
                             "error": error, "steps": 0, "valid_candidates": 0, "valid": False,
                             "timed": False, "best_vs_eager": None, "best_vs_compile": None,
                             "first_vs_eager": None, "first_vs_compile": None, "first_valid": False,
                             "best_description": "",
                             "gpu": None, "interrupted": False}
    if result is None:
        return entry
    entry["interrupted"] = result.interrupted
    judged = result.tree.judged()
    entry["steps"] = len(judged)
    entry["valid_candidates"] = sum(1 for n in judged if n.valid)
    best = result.best
    if best is not None:
        entry.update(valid=True, timed=speedup_of(best.verdict) is not None,
                     best_vs_eager=speedup_of(best.verdict), best_vs_compile=_best_vs_compile(judged),
                     best_description=best.description, gpu=(best.verdict.get("env") or {}).get("gpu"))
    first = judged[0] if judged else None
    if first is not None and first.valid:
        entry.update(first_valid=True, first_vs_eager=speedup_of(first.verdict),
                     first_vs_compile=speedup_of(first.verdict, "compile"))
    return entry


def _best_vs_compile(judged: list[Any]) -> float | None:
    """The best speedup over torch.compile among valid candidates (it may be another node than the best
    over eager; each ratio is measured in the same run as its candidate)."""
    values = [speedup_of(n.verdict, "compile") for n in judged if n.valid]
    values = [v for v in values if v]
    return max(values) if values else None


def _geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarize(entries: list[dict[str, Any]], key: str = "best") -> dict[str, Any]:
    """The paper's metrics over all problems (unsupported and invalid ones count as failures). A problem
    whose search was interrupted is left out until ``--resume`` finishes it."""
    entries = [e for e in entries if not e.get("interrupted")]
    if key == "first":                 # the single shot: valid only when the first candidate was
        entries = [{**e, "valid": bool(e.get("first_valid"))} for e in entries]
    n = len(entries)
    valid = [e for e in entries if e["valid"]]
    timed = n > 0 and all(e["timed"] for e in valid) and bool(valid)
    summary: dict[str, Any] = {"problems": n, "valid": len(valid), "accuracy": len(valid) / n if n else None,
                               "timed": timed}
    if not timed:
        summary.update({"mean_speedup": None, "geomean_speedup": None, "geomean_vs_compile": None,
                        **{f"fast@{p}": None for p in FAST_THRESHOLDS}})
        return summary
    speed = [e[f"{key}_vs_eager"] if e["valid"] and e[f"{key}_vs_eager"] else None for e in entries]
    vs_compile = [e[f"{key}_vs_compile"] if e["valid"] and e[f"{key}_vs_compile"] else None for e in entries]
    summary["mean_speedup"] = sum(min(s, CAP) if s else FAILED_MEAN for s in speed) / n
    summary["geomean_speedup"] = _geomean([s if s else FAILED_GEOMEAN for s in speed])
    summary["geomean_vs_compile"] = _geomean([s if s else FAILED_GEOMEAN for s in vs_compile])
    summary["geomean_speedup_valid_only"] = _geomean([s for s in speed if s])
    summary["geomean_vs_compile_valid_only"] = _geomean([s for s in vs_compile if s])
    for p in FAST_THRESHOLDS:
        summary[f"fast@{p}"] = sum(1 for s in speed if s and s > p) / n
    return summary


def report(entries: list[dict[str, Any]], steps: int, env: dict[str, Any] | None = None,
           skipped: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """bench.json: the metrics over the problems run; ``skipped``: problems whose libraries are not installed
    (in no metric)."""
    return {"steps_per_problem": steps, "summary": summarize(entries, "best"),
            "single_shot": summarize(entries, "first"), "problems": entries, "env": env or {},
            "skipped": skipped or []}


def fmt(value: Any, suffix: str = "x") -> str:
    if value is None:
        return "-"
    return f"{value:.2f}{suffix}" if isinstance(value, float) else str(value)


def markdown(data: dict[str, Any]) -> str:
    s, first = data["summary"], data["single_shot"]
    lines = [f"# AdaExplore bench: {s['problems']} problem(s), {data['steps_per_problem']} steps each", ""]
    env = data.get("env") or {}
    if env:
        lines.append(f"Environment: {env.get('gpu') or 'CPU (Triton interpreter, not timed)'}; torch "
                     f"{env.get('torch')}, triton {env.get('triton')}, TF32 {_tf32(env)}")
        lines.append("")
    lines += ["| metric | search (best) | single shot (first candidate) |", "|---|---|---|"]
    rows = [("accuracy (valid)", "accuracy", "%"), ("mean speedup (cap 10x, failures 0)", "mean_speedup", "x"),
            ("geomean speedup (failures 0.1)", "geomean_speedup", "x"),
            ("geomean vs torch.compile (failures 0.1)", "geomean_vs_compile", "x"),
            ("fast@1.2", "fast@1.2", "%"), ("fast@2", "fast@2.0", "%")]
    for label, key, unit in rows:
        a, b = s.get(key), first.get(key)
        if unit == "%":
            lines.append(f"| {label} | {_pct(a)} | {_pct(b)} |")
        else:
            lines.append(f"| {label} | {fmt(a)} | {fmt(b)} |")
    if not s["timed"]:
        lines += ["", "Not timed (no GPU, or no valid candidate): speed metrics need a GPU run."]
    lines += ["", "| problem | valid | best vs eager | best vs compile | first vs eager | steps | best candidate |",
              "|---|---|---|---|---|---|---|"]
    for e in data["problems"]:
        status = "interrupted" if e.get("interrupted") else "yes" if e["valid"] else \
            "unsupported" if not e["supported"] else "no"
        lines.append(f"| {e['name']} | {status} | {fmt(e['best_vs_eager'])} | {fmt(e['best_vs_compile'])} | "
                     f"{fmt(e['first_vs_eager'])} | {e['steps']} | {e['best_description'] or e['error'][:120]} |")
    skipped = data.get("skipped") or []
    if skipped:
        lines += ["", "Skipped, libraries not installed (in no metric): "
                  + ", ".join(f"{e['name']} (needs {', '.join(e['missing'])})" for e in skipped)]
    return "\n".join(lines) + "\n"


def _tf32(env: dict[str, Any]) -> str:
    """TF32 as the judge ran: off, for convolutions only (torch's default), or on."""
    if not env.get("tf32"):
        return "off"
    return "on" if env.get("tf32_matmul", True) else "for convolutions only (cuDNN), not matmuls"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


NAME_CHARS = 40      # longer problem names are shortened on the plot's x axis


def plot(data: dict[str, Any], path: Path) -> str:
    """``figure(data)`` saved as a PNG at ``path``; '' when done, else why not (matplotlib missing, nothing
    timed)."""
    fig = figure(data)
    if isinstance(fig, str):
        return fig
    import matplotlib.pyplot as plt
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return ""


def figure(data: dict[str, Any]) -> Any:
    """A bar chart of per-problem speedups over eager and over torch.compile (log scale, each bar drawn from
    1x), one pair of bars per problem named on the x axis, sorted by the speedup over eager; problems without a
    timed valid candidate are marked at the bottom. A matplotlib Figure, or a str saying why there is none."""
    timed = [e for e in data["problems"] if e["valid"] and e["best_vs_eager"]]
    if not timed:
        return "no timed valid problem to plot"
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib), so no bench.png"
    failed = [e for e in data["problems"] if not (e["valid"] and e["best_vs_eager"]) and not e.get("interrupted")]
    entries = failed + sorted(timed, key=lambda e: e["best_vs_eager"])
    values = [v for e in timed for v in (e["best_vs_eager"], e["best_vs_compile"]) if v]
    low, high = min(0.5, min(values) / 1.2), max(2.0, max(values) * 1.2)
    xs = list(range(len(entries)))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.3 * len(entries) + 2), 6.0))
    width = 0.4
    for offset, key, label in ((-width / 2, "best_vs_eager", "vs eager PyTorch"),
                               (width / 2, "best_vs_compile", "vs torch.compile")):
        pairs = [(x + offset, e[key]) for x, e in zip(xs, entries) if x >= len(failed) and e[key]]
        ax.bar([x for x, _ in pairs], [v - 1.0 for _, v in pairs], width=width, bottom=1.0, label=label)
    if failed:
        ax.plot(xs[:len(failed)], [low * 1.05] * len(failed), "x", color="firebrick", linestyle="none",
                label="no timed valid candidate")
    ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylim(low, high)
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_yticks([t for t in (0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10) if low <= t <= high])
    ax.set_xticks(xs)
    ax.set_xticklabels([_short(e["name"]) for e in entries], rotation=90, fontsize=7)
    ax.set_xlim(-0.6, len(entries) - 0.4)
    ax.set_xlabel("problem (sorted by speedup over eager)")
    ax.set_ylabel("speedup of the best valid candidate")
    gpu = (data.get("env") or {}).get("gpu") or ""
    ax.set_title(f"AdaExplore, {data['steps_per_problem']} steps per problem" + (f", {gpu}" if gpu else ""))
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "\u2026"


def write(data: dict[str, Any], out: Path) -> str:
    """bench.json, bench.md and bench.png in ``out``; returns a note when the plot was not made."""
    out.mkdir(parents=True, exist_ok=True)
    (out / JSON_FILE).write_text(json.dumps(data, indent=1))
    (out / MARKDOWN_FILE).write_text(markdown(data))
    return plot(data, out / PLOT_FILE)


def replot(out: Path) -> str:
    """Rewrite bench.md and bench.png from ``out``/bench.json (e.g. after a GPU run on a machine without
    matplotlib)."""
    path = out / JSON_FILE
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise TaskError(f"cannot read {path}: {e}") from e
    return write(data, out)

