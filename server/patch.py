"""Turning a search's best.py into edits of the user's document.

The original class stays, renamed ``<Class>Reference`` (with the references to its own name inside it);
the kernels, their launchers and the new class — best.py's ``ModelNew`` renamed to ``<Class>`` — go right
after it, so every use of ``<Class>`` elsewhere now gets the Triton version; imports best.py needs and the
document lacks are added once, after the document's last top-level import. Definitions best.py copied from
the document (constants, helpers) are not duplicated. No line of the user's code is removed.
"""
from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from typing import Iterator

from adaexplore_core.schema import envelope as envelope_text

from . import analysis
from .analysis import ModuleClass, Position


class PatchError(Exception):
    """best.py cannot be merged into the document; the message says why."""


@dataclass(frozen=True)
class TextEdit:
    """Replace [start, end) — LSP positions in the document's encoding — with ``text``."""

    start: Position
    end: Position
    text: str


def reference_name(class_name: str, taken: set[str]) -> str:
    name = f"{class_name}Reference"
    while name in taken:
        name += "_"
    return name


def _assigned_names(node: ast.AST) -> list[str]:
    """The names a top-level assignment binds (``a = b = 1``, ``A, B = 1, 2``, ``a, *b = ...``); [] when not
    only names."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    names: list[str] = []
    for target in targets:
        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        elements = [e.value if isinstance(e, ast.Starred) else e for e in elements]
        if not all(isinstance(e, ast.Name) for e in elements):
            return []
        names += [e.id for e in elements]
    return names


def _is_main_guard(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "__name__" in ast.unparse(node.test) and "__main__" in ast.unparse(node.test)


def _segments(best: str) -> tuple[list[str], list[tuple[str, str]]]:
    """(import statements, [(defined names joined by ",", source segment)]) of best.py's top level, in order.
    An ``if __name__ == "__main__":`` block is left out; any other statement with effects at import is
    refused (Apply would make the user's module run it)."""
    try:
        tree = ast.parse(best)
    except SyntaxError as e:
        raise PatchError(f"the result file does not parse ({e.msg} at line {e.lineno})") from e
    imports, definitions = [], []
    for node in tree.body:
        segment = ast.get_source_segment(best, node, padded=False) or ""
        start = node.lineno - 1
        if getattr(node, "decorator_list", None):
            start = node.decorator_list[0].lineno - 1
            segment = "\n".join(best.splitlines()[start:node.end_lineno])
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(segment)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions.append((node.name, segment))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _assigned_names(node):
            definitions.append((",".join(_assigned_names(node)), segment))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue                                   # a docstring
        elif _is_main_guard(node):
            continue                                   # never runs when the module is imported
        else:
            raise PatchError(f"the result runs a statement at import (line {node.lineno}: "
                             f"{segment.splitlines()[0][:80]!r}); Apply will not add it to your module")
    if not any(name == "ModelNew" for name, _ in definitions):
        raise PatchError("the result file has no ModelNew class")
    return imports, definitions


def _rename(source: str, old: str, new: str) -> str:
    """Rename the identifier ``old`` in ``source``: whole names outside strings and comments, and not
    attributes (``nn.Linear`` stays when a class named Linear is renamed)."""
    out, pos = [], 0
    for start, end, text, after_dot in _names(source):
        if text == old and not after_dot:
            out.append(source[pos:start])
            out.append(new)
            pos = end
    out.append(source[pos:])
    return "".join(out)


def _names(source: str) -> Iterator[tuple[int, int, str, bool]]:
    """(start, end, name, follows a '.') for every NAME token of ``source``."""
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    previous = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NAME:
                start = offsets[tok.start[0] - 1] + tok.start[1]
                end = offsets[tok.end[0] - 1] + tok.end[1]
                yield start, end, tok.string, previous is not None and previous.string == "."
            if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT,
                                tokenize.DEDENT):
                previous = tok
    except (tokenize.TokenError, IndentationError) as e:
        raise PatchError(f"cannot tokenize the class ({e})") from e


def _import_line(tree: ast.Module, before_line: int) -> int:
    """The 0-based line where new imports go: after the last top-level import above ``before_line``
    (0-based), else before the first statement that is neither the module docstring nor a
    ``from __future__`` import."""
    last = None
    for node in tree.body:
        if node.lineno - 1 >= before_line:
            break
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            last = node.end_lineno
    if last is not None:
        return last
    for index, node in enumerate(tree.body):
        docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
            isinstance(node.value.value, str)
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (docstring or future):
            decorators = getattr(node, "decorator_list", None)
            return (decorators[0].lineno if decorators else node.lineno) - 1
        last = node.end_lineno
    return last or 0


def _top_level_imports(tree: ast.Module) -> set[str]:
    return {ast.dump(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))}


def build_edits(text: str, module: ModuleClass, best: str, encoding: str = "utf-16") -> list[TextEdit]:
    """The edits that apply ``best`` (a ModelNew file) to ``module`` of the document ``text``."""
    if analysis.syntax_error(text):
        raise PatchError(f"the document has a syntax error ({analysis.syntax_error(text)}); fix it first")
    document = ast.parse(text)
    imports, definitions = _segments(best)
    taken = analysis.top_level_names(text)
    old_name = reference_name(module.name, taken | {name for name, _ in definitions})
    renamed_class = _rename(module.source, module.name, old_name)
    added: list[str] = []
    for name, segment in definitions:
        if name == "ModelNew":
            segment = _rename(segment, "ModelNew", module.name)
            declared = envelope_text.declared(best)          # before the class is renamed
            scope = f"# {envelope_text.summary(declared)}\n" if declared else ""
            added.append(f"# AdaExplore: the Triton version of {module.name}; the original is {old_name} above.\n"
                         + scope + segment)
        elif set(name.split(",")) <= taken:
            continue                                   # copied from the document: already there
        else:
            added.append(segment)
    present = _top_level_imports(document)
    new_imports = [s for s in imports if ast.dump(ast.parse(s).body[0]) not in present]
    edits: list[TextEdit] = []
    if new_imports:
        at = Position(_import_line(document, module.range.start.line), 0)
        edits.append(TextEdit(at, at, "\n".join(new_imports) + "\n"))
    block = "\n\n\n" + "\n\n\n".join(added)
    edits.append(TextEdit(module.range.start, module.range.end, renamed_class + block))
    return edits


def apply_edits(text: str, edits: list[TextEdit], encoding: str = "utf-16") -> str:
    """``text`` with non-overlapping ``edits`` applied (the preview, and the tests' model of a client)."""
    spans = sorted(((analysis.offset_of(text, e.start, encoding), analysis.offset_of(text, e.end, encoding), e.text)
                    for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text
