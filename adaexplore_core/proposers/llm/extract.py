"""Getting a candidate out of a model's reply, robustly: the first code block, the class renamed to ModelNew
when the model kept another name, and numbered OLD/NEW edit blocks applied by exact match (an edit that does
not match is reported back, never a crash)."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
EDIT = re.compile(r"<<<<<<<[ \t]*OLD[^\n]*\n(.*?)\n?=======[^\n]*\n(.*?)\n?>>>>>>>[ \t]*NEW", re.DOTALL)


class ExtractionError(Exception):
    """The reply holds no usable candidate; the message is feedback for the model."""


def first_code_block(reply: str) -> str:
    """The first ```python block (else the first fenced block of any language that parses as Python)."""
    blocks = FENCE.findall(reply or "")
    if not blocks:
        raise ExtractionError("the reply has no ``` code block; answer with one ```python block holding the whole "
                              "file")
    for language, body in blocks:
        if language.lower() in ("python", "py", "python3"):
            return body.strip("\n") + "\n"
    for _, body in blocks:
        try:
            ast.parse(body)
            return body.strip("\n") + "\n"
        except SyntaxError:
            continue
    return blocks[0][1].strip("\n") + "\n"


def as_model_new(source: str, reference_class: str = "Model") -> str:
    """``source`` with its module class named ModelNew: kept when present; else the class named like the
    reference, or the only class deriving from a Module, is renamed (with its own references)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise ExtractionError(f"the code does not parse: {e.msg} at line {e.lineno}") from e
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if any(c.name == "ModelNew" for c in classes):
        return source
    modules = [c for c in classes if any(_base_name(b).endswith("Module") for b in c.bases)]
    chosen = next((c for c in classes if c.name in (reference_class, "Model")), None)
    if chosen is None and len(modules) == 1:
        chosen = modules[0]
    if chosen is None:
        names = ", ".join(c.name for c in classes) or "none"
        raise ExtractionError(f"the code defines no class ModelNew (classes: {names}); name the optimized module "
                              "ModelNew")
    return re.sub(rf"\b{re.escape(chosen.name)}\b", "ModelNew", source)


def _base_name(node: ast.expr) -> str:
    return ast.unparse(node)


@dataclass
class EditResult:
    source: str
    applied: list[int] = field(default_factory=list)       # 1-based numbers of the edits that matched
    unmatched: list[str] = field(default_factory=list)      # feedback, one line per edit that did not

    def feedback(self) -> str:
        return "; ".join(self.unmatched)


def apply_edits(source: str, reply: str) -> EditResult:
    """Apply every OLD/NEW block of ``reply`` in order, each by exact match of its OLD text (once)."""
    edits = EDIT.findall(reply or "")
    if not edits:
        raise ExtractionError("the reply has no edit blocks; write each change as\n<<<<<<< OLD\n(exact lines)\n"
                              "=======\n(new lines)\n>>>>>>> NEW")
    result = EditResult(source=source)
    for number, (old, new) in enumerate(edits, start=1):
        if not old.strip():
            result.unmatched.append(f"edit {number}: its OLD part is empty")
            continue
        count = result.source.count(old)
        if count == 0:
            result.unmatched.append(f"edit {number}: its OLD text is not in the kernel (copy the lines exactly)")
            continue
        if count > 1:
            result.unmatched.append(f"edit {number}: its OLD text occurs {count} times; include more lines")
            continue
        result.source = result.source.replace(old, new, 1)
        result.applied.append(number)
    return result
