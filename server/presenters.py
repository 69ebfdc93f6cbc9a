"""How a class's search status reads in the editor: code lens, inlay hint, hover and diagnostic. The only
module where result states become lsprotocol types and words."""
from __future__ import annotations

import functools
import json
from typing import Any

from adaexplore_core.schema import envelope as envelope_text
from adaexplore_core.schema.report import headline as report_headline
from lsprotocol import types

from . import analysis
from .analysis import ModuleClass
from .states import ModuleStatus, ResultState

SOURCE = "AdaExplore"
CMD_OPTIMIZE, CMD_CANCEL, CMD_JOBS = "adaexplore.optimize", "adaexplore.cancelJob", "adaexplore.listJobs"
CMD_PREVIEW, CMD_APPLY, CMD_SHOW = "adaexplore.preview", "adaexplore.apply", "adaexplore.showResult"
CMD_CLEAR_CACHE = "adaexplore.clearCache"
APPLY_UNTIMED, KEEP_ORIGINAL = "Apply the untimed version", "Cancel"


def headline(result: dict[str, Any]) -> str:
    """'2.41x vs eager · 1.30x vs torch.compile · validated on NVIDIA H200' for a cached result."""
    return report_headline(result.get("best"), separator=" · ")


def no_valid_text(result: dict[str, Any]) -> str:
    """'no valid Triton candidate in 12 steps; most common rejection (7 of 12): <reason>'."""
    steps = result.get("steps")
    text = f"no valid Triton candidate in {steps} steps" if isinstance(steps, int) else "no valid Triton candidate"
    top = rejections(result)[:1]
    if top:
        reason, count = top[0]
        text += f"; most common rejection ({count} of {steps if isinstance(steps, int) else '?'}): {reason}"
    return text


def rejections(result: dict[str, Any]) -> list[tuple[str, int]]:
    """(reason, count), most common first, from a result's "rejections" (missing in older results)."""
    found = []
    for item in result.get("rejections") or []:
        if isinstance(item, dict) and isinstance(item.get("reason"), str) and isinstance(item.get("count"), int):
            found.append((item["reason"], item["count"]))
    return sorted(found, key=lambda r: -r[1])


def result_text(class_name: str, text: str) -> str:
    return f"AdaExplore, {class_name}: {text}"


def job_failed_text(class_name: str, message: str, workdir: Any) -> str:
    return f"AdaExplore could not optimize {class_name}: {message} (files kept in {workdir})"


def no_report_text(class_name: str) -> str:
    return f"AdaExplore: the search of {class_name} left no report"


def cache_cleared_text(base: Any) -> str:
    return f"AdaExplore: cleared the result cache in {base}"


def untimed_apply_question(class_name: str) -> str:
    return (f"AdaExplore: the Triton version of {class_name} was validated by the Triton interpreter only and never "
            "timed, so it may be slower than your code. On the CPU its dispatch falls back to the original code; "
            "the Triton path runs only on a GPU. Apply it anyway?")


def code_lenses(uri: str, module: ModuleClass, status: ModuleStatus) -> list[types.CodeLens]:
    args = [uri, module.name]
    state, result = status.state, status.result or {}
    if status.job is not None:
        label = f"⏳ AdaExplore: {status.job.status_line()}" if state == ResultState.RUNNING else \
            "⏳ AdaExplore: queued"
        titles = [(label + " · Cancel", CMD_CANCEL, [status.job.id])]
    elif state == ResultState.TIMED_FASTER:
        titles = [(f"⚡ {headline(result)}", CMD_SHOW, args), ("Preview", CMD_PREVIEW, args),
                  ("Apply", CMD_APPLY, args)]
    elif state == ResultState.TIMED_SLOWER:
        titles = [(f"AdaExplore: no faster kernel found (best {headline(result)})", CMD_SHOW, args),
                  ("Preview", CMD_PREVIEW, args), ("Optimize again", CMD_OPTIMIZE, args)]
    elif state == ResultState.UNTIMED:
        titles = [(f"AdaExplore: {headline(result)}", CMD_SHOW, args), ("Preview", CMD_PREVIEW, args),
                  ("Apply (untimed)", CMD_APPLY, args + [{"confirm": untimed_apply_question(module.name)}])]
    elif state == ResultState.APPLIED:
        titles = [(f"✓ AdaExplore applied: {headline(result)}", CMD_SHOW, args)]
    elif not _has_inputs(module):
        titles = []
    elif state == ResultState.NO_VALID:
        titles = [(f"AdaExplore: {no_valid_text(result)} · Optimize again", CMD_OPTIMIZE, args)]
    elif state == ResultState.STALE:
        titles = [(f"AdaExplore result is stale ({status.stale_reason}) · Optimize again", CMD_OPTIMIZE, args)]
    else:
        titles = [("Optimize with AdaExplore", CMD_OPTIMIZE, args)]
    start = module.range.start
    return list(_lenses(start.line, start.character, json.dumps(titles)))


@functools.lru_cache(maxsize=4096)
def _lenses(line: int, character: int, titles_json: str) -> tuple[types.CodeLens, ...]:
    """The lens objects of [title, command, arguments] triples given as JSON text, which is hashable (remembered:
    a request on a long file asks for hundreds of unchanged lenses)."""
    at = types.Range(types.Position(line, character), types.Position(line, character))
    return tuple(types.CodeLens(range=at, command=types.Command(title=title, command=command, arguments=args))
                 for title, command, args in json.loads(titles_json))


def inlay_hint(module: ModuleClass, status: ModuleStatus) -> types.InlayHint | None:
    best = (status.result or {}).get("best") or {}
    labels = {ResultState.TIMED_FASTER: lambda: f"⚡{best['speedup_vs_eager']:.2f}x",
              ResultState.TIMED_SLOWER: lambda: f"{best['speedup_vs_eager']:.2f}x (not faster)",
              ResultState.UNTIMED: lambda: "valid, untimed"}
    if status.state not in labels:
        return None
    return types.InlayHint(position=lsp_position(module.name_range.end), label=labels[status.state](),
                           padding_left=True, tooltip=headline(status.result or {}))


def diagnostic(module: ModuleClass, status: ModuleStatus) -> types.Diagnostic | None:
    result = status.result or {}
    messages = {
        ResultState.TIMED_FASTER: lambda: f"{headline(result)} (Preview / Apply in the code lens)",
        ResultState.TIMED_SLOWER: lambda: f"no faster kernel found (best validated: {headline(result)})",
        ResultState.UNTIMED: lambda: "validated by the Triton interpreter only, not timed (Preview / Apply in the "
                                     "code lens)",
        ResultState.NO_VALID: lambda: no_valid_text(result),
        ResultState.APPLIED: lambda: f"applied ({headline(result)})",
        ResultState.STALE: lambda: f"the result is stale ({status.stale_reason} since the search); run Optimize "
                                   "again",
    }
    if status.state not in messages:
        return None
    return types.Diagnostic(range=lsp_range(module.name_range), message=f"AdaExplore: {messages[status.state]()}",
                            severity=types.DiagnosticSeverity.Information, source=SOURCE)


def inputs_warning(text: str, module: ModuleClass) -> types.Diagnostic | None:
    inputs = module.inputs
    if inputs is None or not inputs.error:
        return None
    line = inputs.line
    return types.Diagnostic(range=types.Range(types.Position(line, 0),
                                              types.Position(line, len(text.split("\n")[line]))),
                            message=f"AdaExplore: {inputs.error}", severity=types.DiagnosticSeverity.Warning,
                            source=SOURCE)


def too_large_diagnostic(chars: int, lines: int, max_chars: int, max_lines: int) -> types.Diagnostic:
    return types.Diagnostic(range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                            message=f"AdaExplore: this file has {chars:,} characters in {lines:,} lines, more than "
                                    f"the {max_chars:,} characters or {max_lines:,} lines it analyses; its classes "
                                    "are not offered for optimization",
                            severity=types.DiagnosticSeverity.Information, source=SOURCE)


def hover(module: ModuleClass, status: ModuleStatus) -> types.Hover | None:
    if status.result is None:
        return None
    markdown = hover_markdown(module, status)
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
                       range=lsp_range(module.name_range))


def hover_markdown(module: ModuleClass, status: ModuleStatus) -> str:
    result = status.result or {}
    best = result.get("best") or {}
    if not best:
        lines = [f"**AdaExplore** — {module.name}: {no_valid_text(result)}"]
        found = rejections(result)
        if found:
            lines.append("\n**Why candidates were rejected**\n\n" +
                         "\n".join(f"- {count}×: {reason}" for reason, count in found[:5]))
        if status.state == ResultState.STALE:
            lines.append(f"\n*Stale: {status.stale_reason} since this search.*")
        return "\n".join(lines)
    lines = [f"**AdaExplore** — {module.name}: {headline(result)}"]
    if status.state == ResultState.STALE:
        lines.append(f"\n*Stale: {status.stale_reason} since this search. Run Optimize again.*")
    elif status.state == ResultState.APPLIED:
        lines.append("\n*Applied: this class is the Triton version.*")
    elif status.state == ResultState.UNTIMED:
        lines.append("\n*Not timed: validated by the Triton interpreter only (no GPU). On the CPU the patch's "
                     "dispatch runs the original code.*")
    lines += _timing_lines(best)
    checks = best.get("checks") or []
    if checks:
        passed = sum(1 for c in checks if c.get("passed"))
        lines.append(f"\nChecks passed: {passed}/{len(checks)} ("
                     + ", ".join(c["name"] for c in checks if c.get("passed")) + ")")
    envelope = envelope_text.validated(best.get("envelope"))
    if envelope:
        lines.append("\n**Validated envelope**\n\n" + "\n".join(f"- {line}" for line in envelope))
    compatible = best.get("checkpoint_compatible")
    if compatible is not None:
        lines.append(f"\nCheckpoint-compatible (same state_dict keys): {'yes' if compatible else 'no'}")
    lines.append(f"\n{result.get('steps')} candidates judged, {result.get('valid')} valid; "
                 f"{best.get('description', '')}")
    source = result.get("best_source", "")
    if source:
        lines.append("\n```python\n" + source.strip() + "\n```")
    return "\n".join(lines)


def _timing_lines(best: dict[str, Any]) -> list[str]:
    timing = best.get("timing")
    if not timing:
        return []
    lines = ["\n| | time | IQR |\n|---|---|---|",
             f"| candidate | {timing['candidate_ms']:.4f} ms | {timing['candidate_iqr_ms']:.4f} |",
             f"| eager | {timing['eager_ms']:.4f} ms | {timing['eager_iqr_ms']:.4f} |"]
    if timing.get("compile_ms") is not None:
        lines.append(f"| torch.compile | {timing['compile_ms']:.4f} ms | {timing['compile_iqr_ms']:.4f} |")
    if timing.get("roofline_fraction") is not None:
        lines.append(f"\nRoofline (lower bound): {timing['roofline_fraction']:.0%} of the {timing['roofline_bound']} "
                     f"limit ({timing['peak_gbps']:.0f} GB/s, {timing['peak_tflops']:.1f} fp32 TFLOP/s measured)")
    else:
        lines.append("\nRoofline: not measured for this result.")
    return lines


def _has_inputs(module: ModuleClass) -> bool:
    return module.inputs is not None and not module.inputs.error


def lsp_position(p: analysis.Position) -> types.Position:
    return types.Position(line=p.line, character=p.character)


def lsp_range(r: analysis.Range) -> types.Range:
    return types.Range(start=lsp_position(r.start), end=lsp_position(r.end))


def code_actions(uri: str, module: ModuleClass, status: ModuleStatus) -> list[types.CodeAction]:
    """The code actions at a class: add example inputs, Optimize or Cancel, Apply and Preview."""
    args = [uri, module.name]
    actions = []
    if module.inputs is None:
        where, stub = analysis.inputs_stub(module)
        edit = types.WorkspaceEdit(changes={uri: [types.TextEdit(
            range=types.Range(lsp_position(where), lsp_position(where)), new_text=stub)]})
        actions.append(types.CodeAction(title="Add example inputs for AdaExplore",
                                        kind=types.CodeActionKind.QuickFix, edit=edit))
    elif status.job is None:
        title = f"Optimize {module.name} with AdaExplore"
        actions.append(_action(title, types.Command(title=title, command=CMD_OPTIMIZE, arguments=args)))
    else:
        actions.append(_action(f"Cancel AdaExplore job for {module.name}",
                               types.Command(title="Cancel", command=CMD_CANCEL, arguments=[status.job.id])))
    if status.state.can_apply:
        untimed = " (untimed)" if status.state == ResultState.UNTIMED else ""
        for title, command in ((f"Apply AdaExplore result to {module.name}{untimed}", CMD_APPLY),
                               (f"Preview AdaExplore result for {module.name}", CMD_PREVIEW)):
            actions.append(_action(title, types.Command(title=title, command=command, arguments=args)))
    return actions


def _action(title: str, command: types.Command) -> types.CodeAction:
    return types.CodeAction(title=title, kind=types.CodeActionKind.RefactorRewrite, command=command)
