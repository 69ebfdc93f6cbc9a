"""A patch's envelope in words, without torch (the language server shows it).

``declared``: a candidate's ``ENVELOPE`` literal (the calls its Triton path is for), read from its source
without running it. ``summary``: that envelope in one line (the comment above an applied class).
``validated``: what a verdict's ``envelope`` says the judge tried (the editor's hover).
"""
from __future__ import annotations

import ast
from typing import Any


def declared(source: str, class_name: str = "ModelNew") -> dict[str, Any] | None:
    """The ``ENVELOPE = {...}`` literal of class ``class_name`` in ``source`` (the built-in proposer's place) or
    of its top level; None when absent, not a dict literal, or the source does not parse. Read with
    ``ast.literal_eval``: nothing runs. Where it is bound twice the last binding wins, as at import."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
    found = None
    for body in ([classes[-1].body] if classes else []) + [tree.body]:
        values = [v for v in map(_envelope_value, body) if v is not None]
        if values:
            found = values[-1]
            break
    if found is None:
        return None
    try:
        envelope = ast.literal_eval(found)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return envelope if isinstance(envelope, dict) else None


def _envelope_value(node: ast.stmt) -> ast.expr | None:
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ENVELOPE" for t in node.targets):
        return node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "ENVELOPE":
        return node.value
    return None


def summary(envelope: dict[str, Any]) -> str:
    """'Triton path: cuda float32 inputs (B, 256), train and eval, no autograd; every other call runs the
    original forward.'"""
    specs = [s for s in envelope.get("inputs", []) if isinstance(s, dict) and "sizes" in s]
    shapes = " ".join("(" + ", ".join(str(d) for d in s["sizes"]) + ")" for s in specs)
    dtypes = sorted({str(s.get("dtype", "")).replace("torch.", "") for s in specs if s.get("dtype")})
    modes = "eval" if envelope.get("eval_only") else "train" if envelope.get("train_only") else "train and eval"
    devices = "/".join(envelope.get("device_types", [])) or "any device"
    grads = "autograd through Triton backward kernels" if envelope.get("autograd") is True else "no autograd"
    return (f"Triton path: {devices} {'/'.join(dtypes) or 'tensor'} inputs {shapes}, {modes}, {grads}; "
            "every other call runs the original forward.")


def validated(envelope: dict[str, Any] | None) -> list[str]:
    """Lines for the hover: what the judge validated, from a verdict's ``envelope`` (empty when none)."""
    if not envelope:
        return []
    lines = []
    if envelope.get("declared"):
        lines.append(summary(envelope["declared"]))
    shapes = envelope.get("shapes_validated") or []
    if shapes:
        triton = sum(1 for s in shapes if s.get("triton"))
        lines.append(f"Shapes validated: {len(shapes)} besides the example ({triton} on the Triton path): "
                     + ", ".join(str(s.get("label", "")) for s in shapes))
    if envelope.get("shapes_timed"):
        lines.append("Timed at: " + " ".join(str(tuple(s)) for s in envelope["shapes_timed"]))
    tried = [f"{name} {', '.join(str(v).replace('torch.', '') for v in envelope[key])}"
             for key, name in (("dtypes", "dtypes"), ("modes", "modes"), ("devices", "devices"))
             if envelope.get(key)]
    if tried:
        lines.append("Matched the original with " + "; ".join(tried))
    if envelope.get("gradients"):
        how = {"triton": " (Triton backward kernels)", "fallback": " (through the original forward)"}
        lines.append(f"Gradients: {envelope['gradients']}{how.get(envelope.get('backward'), '')}")
    return lines
