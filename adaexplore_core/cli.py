"""The ``adaexplore`` command line. Subcommands: judge, propose, optimize, bench, adapt, rules, lsp."""
from __future__ import annotations

import argparse
import ast
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from . import __version__
from .devices import DeviceError, resolve_devices
from .judge.lifetime import set_parent_death_signal
from .judge.pool import JudgeConfig, JudgePool
from .judge.verdict import Verdict
from .progress import search_progress
from .schema.report import headline, speedup_interval
from .search.explore import SearchError
from .app.wiring import ProposerSettings
from .task import TaskError, TaskSpec

INTERNAL_ERROR = 3     # exit status of an unexpected failure (0 ok, 1 no valid result, 2 bad input, 130 Ctrl-C)
USAGE_ERROR = 2
# Modules of the optional extras, by the extra that installs them (pyproject.toml); `lsp` needs all of "server".
EXTRA_OF_MODULE = {"openai": "llm", "diskcache": "llm", "pygls": "server", "lsprotocol": "server", "cattrs": "server",
                   "tree_sitter": "server", "tree_sitter_python": "server"}


def parse_reference(text: str) -> TaskSpec:
    """``FILE.py`` or ``FILE.py::ClassName`` whose class the file defines; TaskError otherwise.

    The check reads the file's names without running it; a file that may bind names in ways it cannot see
    (``from x import *``, ``global``, ``globals()``, ``setattr``, ``exec``, a syntax error) is left to the judge,
    which imports it and says what is wrong."""
    task = TaskSpec.parse(text)
    try:
        tree = ast.parse(task.read_source(), filename=task.path)
    except (OSError, UnicodeDecodeError) as e:
        raise TaskError(f"cannot read the reference {task.path}: {e}") from e
    except (SyntaxError, ValueError):
        return task
    if any(isinstance(node, ast.Global) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                            and node.func.id in ("globals", "setattr", "exec"))
           for node in ast.walk(tree)):
        return task
    bound, classes = set(), []
    for node in _module_level(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name == "*" for alias in node.names):
                return task
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
            if isinstance(node, ast.ClassDef):
                classes.append(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    if task.class_name not in bound:
        hint = f" (classes in the file: {', '.join(classes)}; pick one with FILE.py::ClassName)" if classes else ""
        raise TaskError(f"the reference {task.path} has no class {task.class_name!r}{hint}")
    return task


def _module_level(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node that runs at the module's top level (also inside if/try/with/for), not inside defs."""
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


@contextlib.contextmanager
def _events(events: str | None, quiet: bool) -> Iterator[Any]:
    """The search's event sink, with the progress display on stderr unless quiet or events go to stdout."""
    from .app.wiring import event_sink

    with event_sink(events) as sink, \
            search_progress(sink, sys.stderr, enabled=not quiet and events != "-"):
        yield sink


def format_verdict(verdict: Verdict) -> str:
    """A verdict for people: the answer first, then checks, timing and environment."""
    mark = {"valid": "VALID", "invalid": "INVALID", "error": "ERROR"}[verdict.verdict]
    lines = [f"{mark}: {verdict.reason}"]
    for check in verdict.checks:
        lines.append(f"  [{'ok' if check.passed else 'FAIL'}] {check.name}: {check.detail}".rstrip(": "))
    if verdict.checkpoint_compatible is not None:
        lines.append(f"  checkpoint-compatible: {'yes' if verdict.checkpoint_compatible else 'no'}")
    t = verdict.timing
    if t is not None:
        lines.append(f"  candidate {t.candidate_ms:.4f} ms (IQR {t.candidate_iqr_ms:.4f}) over {t.iterations} "
                     f"calls in {t.rounds} rounds, each call on new inputs")
        lines.append(f"  eager     {t.eager_ms:.4f} ms (IQR {t.eager_iqr_ms:.4f})  -> "
                     f"{speedup_interval(t.speedup_vs_eager, t.speedup_vs_eager_low, t.speedup_vs_eager_high)}")
        if t.compile_ms is not None and t.speedup_vs_compile is not None:
            lines.append(f"  compile   {t.compile_ms:.4f} ms (IQR {t.compile_iqr_ms:.4f})  -> "
                         f"{speedup_interval(t.speedup_vs_compile, t.speedup_vs_compile_low, t.speedup_vs_compile_high)}")
        else:
            lines.append(f"  compile   not measured ({t.compile_note})")
        if t.candidate_host_ms is not None:
            hosts = [f"candidate {t.candidate_host_ms:.4f}", f"eager {t.eager_host_ms:.4f}"] + \
                ([f"compile {t.compile_host_ms:.4f}"] if t.compile_host_ms is not None else [])
            lines.append(f"  device times above; the host's ms to launch one call: {', '.join(hosts)}"
                         + (f" ({t.uncovered_calls} launches outlasted the spin before them)" if t.uncovered_calls else ""))
    elif verdict.timing_note:
        lines.append(f"  timing: {verdict.timing_note}")
    env = verdict.env
    if env:
        where = env.get("gpu") or ("CPU, Triton interpreter" if env.get("triton_interpreter") else "CPU")
        lines.append(f"  on {where}; torch {env.get('torch')}, triton {env.get('triton')}, "
                     f"CUDA {env.get('cuda') or '-'}; {verdict.trials} trial(s) in {verdict.seconds:.1f} s")
        if env.get("sandbox"):
            lines.append(f"  sandbox: {env['sandbox']}")
    if verdict.log_tail and verdict.verdict != "valid":
        lines.append("  worker log (last lines):")
        lines.extend("    " + line for line in verdict.log_tail.strip().splitlines()[-15:])
    return "\n".join(lines)


def _cmd_judge(args: argparse.Namespace) -> int:
    try:
        task = parse_reference(args.reference)
        candidate_path = Path(args.candidate)
        if not candidate_path.is_file():
            raise TaskError(f"candidate file not found: {args.candidate}")
        source = candidate_path.read_text(encoding="utf-8")
        devices = resolve_devices(args.device)
    except (TaskError, DeviceError, OSError, UnicodeDecodeError) as e:
        print(f"adaexplore judge: {e}", file=sys.stderr)
        return 2
    config = JudgeConfig(devices=devices[:1], timeout_s=args.timeout, trials=args.trials,
                         memory_limit_mb=args.memory_mb or None, allow_tf32=args.allow_tf32)
    with JudgePool(config) as pool:
        verdict = pool.judge(task, source, name=candidate_path.name)
    print(verdict.to_json() if args.json else format_verdict(verdict))
    return 0 if verdict.ok else 1


def _cmd_propose(args: argparse.Namespace) -> int:
    from .proposers.base import ProposalError, ProposalRequest
    from .proposers.builtin.proposer import BuiltinProposer

    try:
        task = parse_reference(args.reference)
        devices = resolve_devices(args.device)
        device_type = "cuda" if any(d.startswith("cuda") for d in devices) else "cpu"
        proposals = BuiltinProposer(device_type).initial(ProposalRequest(task=task, seed=args.seed), args.n * 2)
    except (TaskError, DeviceError, ProposalError) as e:
        print(f"adaexplore propose: {e}", file=sys.stderr)
        return 2
    out = Path(args.out or Path("adaexplore-candidates") / Path(task.path).stem)
    out.mkdir(parents=True, exist_ok=True)
    config = JudgeConfig(devices=devices, workers_per_device=2 if devices == ("cpu",) else 1,
                         timeout_s=args.timeout, allow_tf32=args.allow_tf32)
    written = 0
    with JudgePool(config) as pool:
        futures = [(p, pool.submit(task, p.source)) for p in proposals]
        for proposal, future in futures:
            verdict = future.result()
            if not verdict.ok:
                print(f"  rejected: {proposal.description}\n    {verdict.reason}", file=sys.stderr)
                continue
            if written == args.n:
                continue
            written += 1
            path = out / f"candidate_{written:02d}.py"
            path.write_text(f"# AdaExplore built-in candidate: {proposal.description}\n"
                            f"# Judge: {verdict.reason}\n{proposal.source}", encoding="utf-8")
            timing = verdict.timing
            speed = f"{timing.speedup_vs_eager:.2f}x vs eager" if timing else "validated, not timed (no GPU)"
            print(f"{path}: {speed}\n    {proposal.description}")
    if not written:
        print("adaexplore propose: no candidate passed the judge (see the reasons above)", file=sys.stderr)
        return 1
    print(f"{written} validated candidate(s) in {out}")
    return 0


def _cmd_optimize(args: argparse.Namespace) -> int:
    from .proposers.base import ProposalError
    if args.parent_pid:
        set_parent_death_signal(args.parent_pid)      # first: a parent already gone ends this process now
    from .app.ray_pool import RayUnavailable
    from .app.wiring import judge_config, judge_pool, make_proposer, run_search

    try:
        task = parse_reference(args.reference)
        devices = _search_devices(args)
        proposer = make_proposer(_proposer_settings(args), devices)
        out = Path(args.out or Path("adaexplore-runs") / Path(task.path).stem)
    except (TaskError, DeviceError, SearchError, RayUnavailable) as e:
        print(f"adaexplore optimize: {e}", file=sys.stderr)
        return 2
    with _events(args.events, args.quiet) as sink:
        try:
            with judge_pool(judge_config(devices, args.timeout, args.allow_tf32), args.ray) as pool:
                result = run_search(task, steps=args.steps, out=out, pool=pool, proposer=proposer, sink=sink,
                                    devices=devices, seed=args.seed, resume=args.resume,
                                    cache_dir=Path(args.cache_dir) if args.cache_dir else None)
        except (SearchError, ProposalError, TaskError, RayUnavailable) as e:
            sink.emit("error", message=str(e), fatal=True)
            print(f"adaexplore optimize: {e}", file=sys.stderr)
            return 2
    report = result.report
    if report["stopped_reason"]:
        print(f"adaexplore optimize: the search stopped early: {report['stopped_reason']}", file=sys.stderr)
    if args.events != "-":
        print(f"{report['steps']} candidate(s), {report['valid']} valid; best: {headline(report['best'])}")
        print(f"results in {out}: best.py, report.json, summary.md, tree.json"
              + (" (interrupted: run again with --resume to continue)" if result.interrupted else ""))
    if result.interrupted:
        return 130
    return 0 if result.best is not None else 1


def _cmd_bench(args: argparse.Namespace) -> int:
    from .app import bench as bench_run
    from .app.ray_pool import RayUnavailable
    from .app.wiring import judge_config, judge_pool, make_proposer
    from .search import bench

    out = Path(args.out)
    try:
        if args.replot:
            note = bench_run.replot(out)
            print(f"rewrote {out / bench.MARKDOWN_FILE}" + (f" ({note})" if note else f" and {out / bench.PLOT_FILE}"))
            return 0
        if not args.inputs:
            raise TaskError("give KernelBench-format problem files or folders (or --replot)")
        files = bench.problem_files(args.inputs)
        if (out / bench.JSON_FILE).exists():
            if not args.resume:
                raise TaskError(f"{out / bench.JSON_FILE} exists (an earlier bench); pass --resume to continue it, "
                                "or choose another --out folder")
            _check_resumed_protocol(out / bench.JSON_FILE, args.protocol)
        protocol = bench_run.PROTOCOLS[args.protocol]
        if protocol.tf32 and args.allow_tf32:
            raise TaskError(f"--allow-tf32 does not go with --protocol {args.protocol}, which keeps torch's own TF32 "
                            "default")
        devices = _search_devices(args)
        make_proposer(_proposer_settings(args), devices)
    except (TaskError, DeviceError, SearchError, RayUnavailable) as e:
        print(f"adaexplore bench: {e}", file=sys.stderr)
        return 2
    # several problems at once on a cluster: one line per finished problem instead of a progress line
    with _events(args.events or str(out / "events.jsonl"), args.quiet or bool(args.ray)) as sink:
        try:
            with judge_pool(judge_config(devices, args.timeout, args.allow_tf32, protocol.tf32), args.ray) as pool:
                data = bench_run.run_bench(files, steps=args.steps, out=out, pool=pool,
                                           proposer_factory=lambda: make_proposer(_proposer_settings(args), devices),
                                           sink=sink, devices=devices, seed=args.seed, resume=args.resume,
                                           cache_dir=Path(args.cache_dir) if args.cache_dir else None,
                                           protocol=args.protocol, allow_tf32=args.allow_tf32)
        except RayUnavailable as e:
            print(f"adaexplore bench: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"adaexplore bench: interrupted; finished problems are in {out}; --resume continues",
                  file=sys.stderr)
            return 130
    note = bench_run.write(data, out)
    print(bench_run.markdown(data))
    print(f"results in {out}: {bench.JSON_FILE}, {bench.MARKDOWN_FILE}"
          + (f" ({note})" if note else f", {bench.PLOT_FILE}") + ", problems/<name>/")
    return 0


def _check_resumed_protocol(path: Path, protocol: str) -> None:
    """A bench continues under the protocol it began with (one from before protocols had the strict one)."""
    import json
    try:
        earlier = (json.loads(path.read_text()).get("protocol") or {}).get("name", "adaexplore")
    except (OSError, ValueError, AttributeError) as e:
        raise TaskError(f"cannot resume: {path} is not a bench's results ({e})") from e
    if earlier != protocol:
        raise TaskError(f"{path} was judged under --protocol {earlier}; resume it with --protocol {earlier} (one "
                        "table, one protocol), or choose another --out folder")


def _search_devices(args: argparse.Namespace) -> tuple[str, ...]:
    """The devices the judge uses. With --ray each actor judges on the GPU Ray gives it (auto, cuda) or in the
    Triton interpreter (cpu); this machine's own devices do not matter."""
    if not args.ray:
        return resolve_devices(args.device)
    from .app.ray_pool import require_ray
    require_ray()
    request = args.device.strip().lower()
    if request == "cpu":
        return ("cpu",)
    if request in ("auto", "cuda"):
        return ("cuda:0",)
    raise DeviceError(f"with --ray, --device is auto or cuda (each judge actor uses the one GPU Ray gives it) "
                      f"or cpu (the Triton interpreter), not {args.device!r}")


def _add_search_options(parser: argparse.ArgumentParser, events: str, resume: str) -> None:
    parser.add_argument("--device", default="auto", help="auto (default: every GPU, else cpu), cpu, cuda or "
                                                         "cuda:N; on the CPU validity only, no timing")
    parser.add_argument("--events", help=events)
    parser.add_argument("--resume", action="store_true", help=resume)
    parser.add_argument("--seed", type=int, default=0, help="search seed (a run is reproducible per seed)")
    parser.add_argument("--timeout", type=_positive_float, default=180.0, help="seconds of candidate time")
    parser.add_argument("--allow-tf32", action="store_true", help="as for judge")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--ray", metavar="auto|ADDRESS",
                        help="judge on a Ray cluster, one actor per GPU: auto (this machine's cluster, else a new "
                             "local one) or a cluster's address (HOST:6379, ray://HOST:10001); needs the 'ray' "
                             "extra; see docs/cluster.md")


def _proposer_settings(args: argparse.Namespace) -> ProposerSettings:
    if args.proposer == "llm" and not args.model:
        raise SearchError("--proposer llm needs --model (the name your endpoint serves)")
    return ProposerSettings(name=args.proposer, model=args.model or "", base_url=args.base_url or "",
                            timeout_s=args.llm_timeout, price_per_million=args.price)


def _add_proposer_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--proposer", default="builtin", choices=["builtin", "llm"],
                        help="who writes candidates: the built-in offline proposer (default) or an LLM through any "
                             "OpenAI-compatible endpoint (seeded with built-in candidates)")
    parser.add_argument("--model", help="LLM model name (with --proposer llm)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (default: "
                                           "OPENAI_BASE_URL, else OpenAI); the key comes from OPENAI_API_KEY")
    parser.add_argument("--llm-timeout", type=_positive_float, default=120.0, help="seconds per LLM request")
    parser.add_argument("--price", type=_prices, help="USD per million prompt and completion tokens, e.g. 0.25,2.0 "
                                                      "(the events then carry the cost)")
    parser.add_argument("--cache-dir", help="where the rule memory lives (default: ADAEXPLORE_CACHE_DIR, else "
                                            "~/.cache/adaexplore)")


def _cmd_rules(args: argparse.Namespace) -> int:
    import json

    from .memory.rules import load_export
    from .app.wiring import rule_memory

    try:
        devices = resolve_devices(args.device)
        memory = rule_memory(Path(args.cache_dir) if args.cache_dir else None, devices)
    except (DeviceError, OSError) as e:
        print(f"adaexplore rules: {e}", file=sys.stderr)
        return 2
    try:
        rules = memory.rules()
        if args.action == "list":
            print(f"{len(rules)} rule(s) for {memory.namespace} (score >= 2 reach prompts):")
            for i, rule in enumerate(rules, start=1):
                print(f"{i:3d}. [{rule.score}] {rule.text}" + (" (seed)" if rule.source == "seed" else ""))
        elif args.action == "show":
            if args.number is None or not 1 <= args.number <= len(rules):
                print(f"adaexplore rules show: give a number from 1 to {len(rules)} (see: adaexplore rules list)",
                      file=sys.stderr)
                return 2
            print(json.dumps(rules[args.number - 1].__dict__, indent=2))
        elif args.action == "export":
            exported = memory.export()
            text = json.dumps(exported, indent=2)
            if args.file and args.file != "-":
                Path(args.file).write_text(text + "\n", encoding="utf-8")
                print(f"exported {len(exported['rules'])} learned rule(s) to {args.file}")
            else:
                print(text)
        elif args.action == "import":
            if not args.file:
                print("adaexplore rules import: give the exported JSON file", file=sys.stderr)
                return 2
            added, merged = memory.import_rules(load_export(Path(args.file)))
            print(f"imported {added} new rule(s), {merged} repeat(s) merged into {memory.namespace}")
        elif args.action == "clear":
            print(f"removed {memory.clear()} learned rule(s) of {memory.namespace} (the seed rules stay)")
    except ValueError as e:
        print(f"adaexplore rules: {e}", file=sys.stderr)
        return 2
    finally:
        memory.close()
    return 0


def _cmd_adapt(args: argparse.Namespace) -> int:
    import json

    from .app.adapt import adapt
    from .proposers.llm.client import LLMClient, LLMConfig, LLMError
    from .app.wiring import judge_config, rule_memory

    try:
        if not args.model:
            raise SearchError("adapt needs --model (the name your endpoint serves)")
        devices = resolve_devices(args.device)
        client = LLMClient(LLMConfig(model=args.model, base_url=args.base_url or None, timeout_s=args.llm_timeout))
        examples = Path(args.examples) if args.examples else None
        if examples is not None and not examples.is_dir():
            raise TaskError(f"--examples must be a folder of KernelBench-format files: {args.examples}")
    except (DeviceError, LLMError, SearchError, TaskError) as e:
        print(f"adaexplore adapt: {e}", file=sys.stderr)
        return 2
    out = Path(args.out) / time.strftime("run-%Y%m%d-%H%M%S")      # every run its own folder: nothing clobbered
    while out.exists():
        out = out.with_name(out.name + "-")
    memory = rule_memory(Path(args.cache_dir) if args.cache_dir else None, devices)
    try:
        with _events(args.events or str(out / "events.jsonl"), args.quiet) as sink, \
                JudgePool(judge_config(devices, args.timeout)) as pool:
            report = adapt(client=client, memory=memory, pool=pool, tasks=args.tasks, steps=args.steps, out=out,
                           sink=sink, devices=devices, seed=args.seed, examples_folder=examples)
        rules_now = [r for r in memory.rules() if r.source != "seed"]
    finally:
        memory.close()
    (out / "adapt.json").write_text(json.dumps({**report.to_dict(), "usage": client.usage.to_dict()}, indent=2))
    print(f"{report.tasks_written} task(s) written ({len(report.tasks_rejected)} attempt(s) rejected), "
          f"{report.candidates} candidate(s) judged, {report.failures} failed; "
          f"{len(set(report.rules_learned))} rule(s) learned this run, {len(rules_now)} learned rule(s) in "
          f"{memory.namespace}")
    for rule in dict.fromkeys(report.rules_learned):
        print(f"  - {rule}")
    print(f"tasks, searches and adapt.json in {out}")
    if report.stopped:
        print(f"adaexplore adapt: stopped early: {report.stopped}", file=sys.stderr)
        return 1
    return 0


def _cmd_lsp(args: argparse.Namespace) -> int:
    try:
        import adaexplore_server.server  # noqa: F401 - its imports are the server extra's packages
    except ModuleNotFoundError as e:
        message = missing_extra_message("lsp", e)
        if message is None:                    # not a module of the extra: a real failure, shown as one
            raise
        print(message, file=sys.stderr)
        return USAGE_ERROR
    from adaexplore_server.__main__ import main as serve
    return serve()


def missing_extra_message(command: str, error: ModuleNotFoundError) -> str | None:
    """What to install when ``error`` is a module of an optional extra; None for any other module."""
    module = (error.name or "").split(".")[0]
    extra = "server" if command == "lsp" else EXTRA_OF_MODULE.get(module)
    if extra is None or module not in EXTRA_OF_MODULE:
        return None
    what = "the language server needs" if extra == "server" else "the LLM proposer and the rule memory need"
    return (f"adaexplore {command}: {what} the '{extra}' extra, which is not installed (no module named "
            f"{module!r}): pip install 'adaexplore[{extra}]'")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="adaexplore", description="Validated Triton replacements for PyTorch "
                                                                     "modules.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    judge = sub.add_parser("judge", help="judge one candidate against a reference",
                           description="Check that CANDIDATE's ModelNew computes the same function as REFERENCE "
                                       "with its own Triton kernels, and time it on a GPU. Exit status 0 only "
                                       "for a valid candidate.")
    judge.add_argument("reference", help="reference file in KernelBench format, or FILE.py::ClassName")
    judge.add_argument("candidate", help="candidate file defining ModelNew and at least one @triton.jit kernel")
    judge.add_argument("--device", default="auto", help="auto (default), cpu, cuda or cuda:N")
    judge.add_argument("--json", action="store_true", help="print exactly one JSON object")
    judge.add_argument("--timeout", type=_positive_float, default=180.0, help="seconds of candidate time")
    judge.add_argument("--trials", type=_trial_count, default=5, help="correctness trials (at least 5)")
    judge.add_argument("--memory-mb", type=_non_negative_int, default=0,
                       help="resident memory limit of the judge worker (default: half of this machine's)")
    judge.add_argument("--allow-tf32", action="store_true",
                       help="let cuBLAS/cuDNN use TF32 for fp32 work (reference, baselines and candidate alike)")
    judge.set_defaults(func=_cmd_judge)

    propose = sub.add_parser("propose", help="write validated candidates from the built-in proposer",
                             description="Capture REFERENCE's forward, generate up to N distinct Triton candidates "
                                         "with the built-in (offline) proposer, judge each, and write the valid "
                                         "ones to --out. Exit status 2 when the module is unsupported, 1 when no "
                                         "candidate passed.")
    propose.add_argument("reference", help="reference file in KernelBench format, or FILE.py::ClassName")
    propose.add_argument("--out", help="folder for the candidates (default: adaexplore-candidates/<file stem>)")
    propose.add_argument("--n", type=_positive_int, default=4, help="how many candidates at most (default 4)")
    propose.add_argument("--device", default="auto", help="auto (default), cpu, cuda or cuda:N")
    propose.add_argument("--seed", type=int, default=0, help="seed for knob choices (deterministic)")
    propose.add_argument("--timeout", type=_positive_float, default=180.0, help="seconds of candidate time")
    propose.add_argument("--allow-tf32", action="store_true", help="as for judge")
    propose.set_defaults(func=_cmd_propose)

    optimize = sub.add_parser("optimize", help="search for a faster validated Triton ModelNew",
                              description="Run the AdaExplore tree search on REFERENCE for --steps candidates "
                                          "(each one judged) and write best.py, report.json, summary.md and the "
                                          "tree to --out. Ctrl-C saves the tree; --resume continues it. Exit "
                                          "status 0 with a valid candidate, 1 without, 2 on bad input, 3 on an "
                                          "internal error, 130 when interrupted.")
    optimize.add_argument("reference", help="reference file in KernelBench format, or FILE.py::ClassName")
    optimize.add_argument("--steps", type=_positive_int, default=20, help="candidates to judge (default 20)")
    optimize.add_argument("--out", help="results folder (default: adaexplore-runs/<file stem>)")
    optimize.add_argument("--parent-pid", type=_positive_int, metavar="PID",
                          help="end (with every process of the search) when process PID ends; the language "
                               "server passes its own")
    _add_proposer_options(optimize)
    _add_search_options(optimize, events="append events as JSON lines to this file; '-' prints them on stdout "
                                         "instead of the progress line",
                        resume="continue the search saved in --out")
    optimize.set_defaults(func=_cmd_optimize)

    bench = sub.add_parser("bench", help="run the search on KernelBench-format problems, with the paper's metrics",
                           description="Search every problem file (folders: every .py in them) for --steps "
                                       "candidates and report accuracy, mean speedup (cap 10x, failures 0), "
                                       "geomean speedup (failures 0.1), fast@1.2, fast@2 and the geomean over "
                                       "torch.compile, for the search's best and for the first candidate alone. "
                                       "Writes bench.json, bench.md, bench.png and one folder per problem.")
    bench.add_argument("inputs", nargs="*", help="problem files or folders of them")
    bench.add_argument("--steps", type=_positive_int, default=10, help="candidates per problem (default 10)")
    bench.add_argument("--out", default="adaexplore-bench", help="results folder (default adaexplore-bench)")
    _add_proposer_options(bench)
    _add_search_options(bench, events="events file (default: OUT/events.jsonl)",
                        resume="continue the problems' saved searches")
    bench.add_argument("--protocol", default="adaexplore", choices=["adaexplore", "kernelbench"],
                       help="the judging rules: adaexplore (default, strict: fp32 atol=rtol=1e-4 with an L2 check, "
                            "TF32 off) or kernelbench (atol=rtol=1e-2, torch's TF32 default), to stand beside "
                            "KernelBench figures; bench.json and bench.md name it")
    bench.add_argument("--replot", action="store_true", help="only rewrite bench.md and bench.png from OUT/bench.json")
    bench.set_defaults(func=_cmd_bench)

    adapt_cmd = sub.add_parser("adapt", help="failure-driven adaptation: learn Triton rules from LLM-written tasks",
                               description="The LLM writes --tasks small KernelBench-format tasks (validated by "
                                           "running them), short LLM searches run on each, and their compile and "
                                           "runtime failures are distilled into 'You cannot ...' rules in the "
                                           "memory that later searches inject into their prompts.")
    adapt_cmd.add_argument("--tasks", type=_positive_int, default=10, help="tasks to write (default 10)")
    adapt_cmd.add_argument("--steps", type=_positive_int, default=4, help="candidates per task (default 4)")
    adapt_cmd.add_argument("--model", help="LLM model name")
    adapt_cmd.add_argument("--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)")
    adapt_cmd.add_argument("--llm-timeout", type=_positive_float, default=120.0, help="seconds per LLM request")
    adapt_cmd.add_argument("--examples", help="a folder of level-1-style example tasks for the prompt (e.g. "
                                              "KernelBench level 1); default: a built-in example")
    adapt_cmd.add_argument("--device", default="auto", help="as for optimize")
    adapt_cmd.add_argument("--out", default="adaexplore-adapt",
                           help="each run writes its tasks, searches and adapt.json to OUT/run-<time>")
    adapt_cmd.add_argument("--events", help="events file (default: OUT/events.jsonl)")
    adapt_cmd.add_argument("--cache-dir", help="where the rule memory lives (default: ADAEXPLORE_CACHE_DIR, else "
                                               "~/.cache/adaexplore)")
    adapt_cmd.add_argument("--seed", type=int, default=0)
    adapt_cmd.add_argument("--timeout", type=_positive_float, default=180.0, help="seconds of candidate time")
    adapt_cmd.add_argument("--quiet", action="store_true", help="no progress line")
    adapt_cmd.set_defaults(func=_cmd_adapt)

    rules = sub.add_parser("rules", help="the memory of Triton validity rules: list, show, export, import, clear",
                           description="Rules are kept per GPU architecture and Triton version (--device picks "
                                       "which). export/import move learned rules between machines and teams as "
                                       "JSON.")
    rules.add_argument("action", choices=["list", "show", "export", "import", "clear"])
    rules.add_argument("number", nargs="?", type=int, help="for show: the rule's number in the list")
    rules.add_argument("--file", help="for export (default: stdout) and import: the JSON file")
    rules.add_argument("--device", default="auto", help="whose rules: auto (default), cpu, cuda or cuda:N")
    rules.add_argument("--cache-dir", help="where the rule memory lives (default: ADAEXPLORE_CACHE_DIR, else "
                                           "~/.cache/adaexplore)")
    rules.set_defaults(func=_cmd_rules)

    lsp = sub.add_parser("lsp", help="run the language server on stdio (same as python -m adaexplore_server)")
    lsp.set_defaults(func=_cmd_lsp)
    return parser


def _prices(text: str) -> tuple[float, float]:
    try:
        prompt, completion = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("expected two numbers: PROMPT,COMPLETION (USD per million tokens)")
    if prompt < 0 or completion < 0:
        raise argparse.ArgumentTypeError("prices cannot be negative")
    return prompt, completion


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be a positive whole number")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (the default) or a positive number of MB")
    return value


def _trial_count(text: str) -> int:
    value = int(text)
    if value < 5:
        raise argparse.ArgumentTypeError("at least 5 trials are required")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:                   # bare `adaexplore`: nothing to do, so the help and a usage error
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    try:
        return args.func(args)
    except BrokenPipeError:                    # output piped into head and the like: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"adaexplore {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - a bug or an environment failure: said plainly, never as "no result"
        message = missing_extra_message(args.command, e) if isinstance(e, ModuleNotFoundError) else None
        if message is not None:                # an optional extra not installed: say which, no traceback
            print(message, file=sys.stderr)
            return USAGE_ERROR
        import traceback
        traceback.print_exc()
        print(f"adaexplore {args.command}: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        return INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
