"""What the server knows about a Python document, from tree-sitter: pure functions on text.

Finds every class deriving from ``nn.Module`` (``nn.Module``, ``torch.nn.Module``, an imported ``Module``,
or another such class of the same file), its ``forward``, its ranges as LSP positions in the client's
encoding (UTF-16 code units unless the client chose UTF-8 or UTF-32), and where example inputs come from:
KernelBench-style ``get_inputs``/``get_init_inputs`` in the file, or an annotation comment in or just above
the class::

    # adaexplore: inputs=[torch.randn(8, 512)] init=[512]

Tolerant of half-typed files: tree-sitter recovers, and a class that does not parse is skipped.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import re
from dataclasses import dataclass, field

import tree_sitter_python
from tree_sitter import Language, Node, Parser

PYTHON = Language(tree_sitter_python.language())
ANNOTATION_HINT = "# adaexplore: inputs=[torch.randn(8, 512)] init=[512]"


@dataclass(frozen=True)
class Position:
    line: int
    character: int


@dataclass(frozen=True)
class Range:
    start: Position
    end: Position


@dataclass
class Inputs:
    """Where a module's example inputs come from: "functions" (get_inputs/get_init_inputs in the file) or
    "annotation" (expressions from the comment); ``error`` when an annotation is there but unusable."""

    kind: str
    inputs: str = ""
    init: str = "[]"
    line: int = 0
    error: str = ""


@dataclass
class ModuleClass:
    name: str
    range: Range                 # the whole class definition (decorators included)
    name_range: Range            # the class name
    source: str                  # the class's text
    forward: Range | None = None
    inputs: Inputs | None = None
    bases: list[str] = field(default_factory=list)
    inputs_text: str | None = None   # what defines the inputs (see inputs_text()); set by find_modules

    def digest(self) -> str:
        """Identifies the class text: a result computed for another text is stale."""
        return hashlib.sha256(self.source.encode()).hexdigest()[:20]

    def contains(self, position: Position) -> bool:
        return (self.range.start.line, self.range.start.character) <= (position.line, position.character) <= \
            (self.range.end.line, self.range.end.character)


class _Positions:
    """Byte points of tree-sitter -> LSP positions in the client's encoding."""

    def __init__(self, text: str, encoding: str) -> None:
        self.lines = text.split("\n")
        self.encoding = encoding

    def position(self, row: int, byte_column: int) -> Position:
        if row >= len(self.lines):
            return Position(row, 0)
        line = self.lines[row]
        if line.isascii():                      # the common case: bytes, UTF-16 units and characters agree
            return Position(row, byte_column)
        prefix = line.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore")
        return Position(row, units(prefix, self.encoding))

    def range(self, node: Node) -> Range:
        return Range(self.position(*node.start_point), self.position(*node.end_point))


def units(text: str, encoding: str = "utf-16") -> int:
    """Length of ``text`` in the code units of a position encoding."""
    if text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


def offset_of(text: str, position: Position, encoding: str = "utf-16") -> int:
    """The string index of an LSP position (clamped to the line and the text)."""
    lines = text.split("\n")
    line = min(max(position.line, 0), len(lines))
    start = sum(len(x) + 1 for x in lines[:line])
    if line >= len(lines):
        return len(text)
    count = 0
    for i, c in enumerate(lines[line]):
        if count >= position.character:
            return start + i
        count += units(c, encoding)
    return start + len(lines[line])


def parse(text: str) -> Node:
    return Parser(PYTHON).parse(text.encode("utf-8")).root_node


def _module_names(root: Node) -> tuple[set[str], set[str]]:
    """(names bound to torch.nn, names bound to Module) from the file's imports."""
    nn_names, module_names = {"nn"}, set()
    for node in root.children:
        text = node.text.decode("utf-8", errors="replace") if node.text else ""
        if node.type == "import_statement" and "torch.nn" in text:
            match = re.search(r"torch\.nn\s+as\s+(\w+)", text)
            nn_names.add(match.group(1) if match else "torch.nn")
        elif node.type == "import_from_statement":
            if re.match(r"from\s+torch\s+import\b", text):
                match = re.search(r"\bnn\s+as\s+(\w+)", text)
                nn_names.add(match.group(1) if match else "nn")
            if re.match(r"from\s+torch\.nn(\.modules(\.module)?)?\s+import\b", text):
                match = re.search(r"\bModule(?:\s+as\s+(\w+))?\b", text)
                if match:
                    module_names.add(match.group(1) or "Module")
    return nn_names, module_names


def _bases(cls: Node) -> list[str]:
    args = cls.child_by_field_name("superclasses")
    if args is None:
        return []
    return [c.text.decode("utf-8", errors="replace") for c in args.named_children
            if c.type in ("identifier", "attribute")]


def _is_module_base(base: str, nn_names: set[str], module_names: set[str], local: set[str]) -> bool:
    if base in module_names or base in local or base == "torch.nn.Module":
        return True
    head, _, tail = base.rpartition(".")
    return tail == "Module" and head in nn_names


def _class_nodes(root: Node) -> list[Node]:
    """Classes at the top level of the file (decorated or not). Classes nested in top-level if/try blocks are
    left out: Apply could not place the new class at their indentation."""
    found = []
    for node in root.children:
        if node.type == "class_definition":
            found.append(node)
        elif node.type == "decorated_definition":
            inner = node.child_by_field_name("definition")
            if inner is not None and inner.type == "class_definition":
                found.append(inner)
    return found


def find_modules(text: str, encoding: str = "utf-16") -> tuple[ModuleClass, ...]:
    """Every nn.Module class of the document, in order. Memoized on the text: every request of the editor
    on an unchanged document reuses one analysis (treat the result as read-only)."""
    return _find_modules(text, encoding)


@functools.lru_cache(maxsize=32)
def _find_modules(text: str, encoding: str) -> tuple[ModuleClass, ...]:
    root = parse(text)
    nn_names, module_names = _module_names(root)
    positions = _Positions(text, encoding)
    file_inputs = _file_inputs(root)
    local: set[str] = set()
    found: list[ModuleClass] = []
    for cls in _class_nodes(root):
        name_node = cls.child_by_field_name("name")
        body = cls.child_by_field_name("body")
        if name_node is None or body is None or not body.named_children:
            continue                               # a class still being typed: no body yet
        bases = _bases(cls)
        if not any(_is_module_base(b, nn_names, module_names, local) for b in bases):
            continue
        name = name_node.text.decode("utf-8", errors="replace")
        local.add(name)
        outer = cls.parent if cls.parent is not None and cls.parent.type == "decorated_definition" else cls
        module = ModuleClass(name=name, range=positions.range(outer), name_range=positions.range(name_node),
                             source=outer.text.decode("utf-8", errors="replace"), bases=bases)
        for child in body.named_children:
            fn = child.child_by_field_name("definition") if child.type == "decorated_definition" else child
            if fn is not None and fn.type == "function_definition" and \
                    fn.child_by_field_name("name") is not None and fn.child_by_field_name("name").text == b"forward":
                module.forward = positions.range(fn)
        module.inputs = _annotation(positions.lines, outer.start_point[0], outer.end_point[0]) or file_inputs
        module.inputs_text = _inputs_text(root, module.inputs)
        found.append(module)
    return tuple(found)


def module_at(text: str, position: Position, encoding: str = "utf-16") -> ModuleClass | None:
    """The module class whose definition contains ``position``."""
    return next((m for m in find_modules(text, encoding) if m.contains(position)), None)


def _file_inputs(root: Node) -> Inputs | None:
    names = set()
    for node in root.children:
        if node.type == "function_definition" and node.child_by_field_name("name") is not None:
            names.add(node.child_by_field_name("name").text.decode())
    return Inputs(kind="functions") if "get_inputs" in names else None


def _annotation(lines: list[str], first: int, last: int) -> Inputs | None:
    """The annotation comment in the class or in the comment lines just above it."""
    start = first
    while start > 0 and lines[start - 1].strip().startswith("#"):
        start -= 1
    for row in range(start, min(last + 1, len(lines))):
        stripped = lines[row].strip()
        if not stripped.startswith("#") or "adaexplore:" not in stripped:
            continue
        inputs, init, error = _parse_annotation(stripped)
        return Inputs(kind="annotation", inputs=inputs, init=init, line=row, error=error)
    return None


@functools.lru_cache(maxsize=1024)
def _parse_annotation(comment: str) -> tuple[str, str, str]:
    """(inputs, init, error) of one annotation comment: ``inputs=EXPR [init=EXPR] [# remark]``, each EXPR
    a Python list; split only where brackets and strings are closed."""
    body = comment.lstrip("#").strip()
    if not body.startswith("adaexplore:"):
        return "", "[]", f"the annotation must read like '{ANNOTATION_HINT}'"
    parts = _top_level_fields(re.sub(r"\b(inputs|init)\s*=\s*", r"\1=", body[len("adaexplore:"):].strip()))
    if parts is None or "inputs" not in parts or set(parts) - {"inputs", "init"}:
        return "", "[]", f"the annotation must read like '{ANNOTATION_HINT}'"
    parts.setdefault("init", "[]")
    for label in ("inputs", "init"):
        expr = parts[label]
        if not expr:
            return "", "[]", f"{label}= is empty; write a list, like [torch.randn(8, 512)]"
        try:
            tree = ast.parse(expr, mode="eval")
        except SyntaxError as e:
            return "", "[]", f"{label}= is not a Python expression ({e.msg})"
        if not isinstance(tree.body, (ast.List, ast.Tuple)):
            return "", "[]", f"{label}= must be a list, like [torch.randn(8, 512)]"
    return parts["inputs"], parts["init"], ""


def _top_level_fields(text: str) -> dict[str, str] | None:
    """``name=value`` fields separated by whitespace outside brackets and strings; a ``#`` there starts a
    remark that ends the fields. None when the text is not of that shape."""
    fields_: dict[str, str] = {}
    depth, quote, start, i = 0, "", 0, 0
    chunks: list[str] = []
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c == "#":
            break
        elif depth == 0 and c.isspace():
            chunks.append(text[start:i])
            start = i + 1
        i += 1
    chunks.append(text[start:i])
    for chunk in filter(None, (c.strip() for c in chunks)):
        name, sep, value = chunk.partition("=")
        if sep and re.fullmatch(r"[A-Za-z_]+", name.strip()) and name.strip() not in fields_:
            fields_[name.strip()] = value.strip()
        elif fields_:                     # a continuation: "inputs=[a, b]" written with spaces inside brackets
            last = list(fields_)[-1]
            fields_[last] = f"{fields_[last]} {chunk}".strip()
        else:
            return None
    return fields_


def syntax_error(text: str) -> str:
    """'' when ``text`` parses as Python; else 'message at line N'."""
    try:
        ast.parse(text)
    except SyntaxError as e:
        return f"{e.msg} at line {e.lineno}"
    except ValueError as e:                  # e.g. NUL bytes
        return str(e)
    return ""


def inputs_text(text: str, module: ModuleClass) -> str:
    """The text that defines the module's example inputs (for cache keys): the annotation's expressions, or
    the file's get_inputs/get_init_inputs functions."""
    return module.inputs_text if module.inputs_text is not None else _inputs_text(parse(text), module.inputs)


def _inputs_text(root: Node, inputs: Inputs | None) -> str:
    if inputs is None:
        return ""
    if inputs.kind == "annotation":
        return f"annotation:{inputs.inputs}|{inputs.init}"
    parts = [n.text.decode("utf-8", errors="replace") for n in root.children if n.type == "function_definition"
             and n.child_by_field_name("name") is not None
             and n.child_by_field_name("name").text in (b"get_inputs", b"get_init_inputs")]
    return "functions:" + "\n".join(parts)


def engine_source(text: str, module: ModuleClass) -> str:
    """The file the engine imports for ``module``: the document as it is, plus get_inputs/get_init_inputs
    from the annotation when there is one (defined last, so they win over the file's own)."""
    inputs = module.inputs
    if inputs is None or inputs.kind != "annotation" or inputs.error:
        return text
    return (text.rstrip("\n") + "\n\n\n# Added by AdaExplore from the class's annotation comment.\n"
            f"def get_inputs():\n    return list({inputs.inputs})\n\n\n"
            f"def get_init_inputs():\n    return list({inputs.init})\n")


def inputs_stub(module: ModuleClass) -> tuple[Position, str]:
    """Where and what to insert so the user can fill in example inputs: an annotation line above the class."""
    return (Position(module.range.start.line, 0),
            "# TODO: replace with this module's example forward inputs and constructor arguments\n"
            "# adaexplore: inputs=[torch.randn(8, 512)] init=[]\n")


def top_level_names(text: str) -> set[str]:
    """Names bound at the top level, for merging a patch: functions, classes, assignment targets (tuples,
    lists, starred, annotated, chained, augmented), for/with targets and imports, also inside top-level
    if/try/with/for/while blocks (not inside functions or classes)."""
    names: set[str] = set()
    _bind_statements(parse(text).children, names)
    return names


_BLOCK_STATEMENTS = ("if_statement", "elif_clause", "else_clause", "try_statement", "except_clause",
                     "finally_clause", "with_statement", "for_statement", "while_statement", "block")


def _bind_statements(nodes: list[Node], names: set[str]) -> None:
    for node in nodes:
        target = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
        if target is None:
            continue
        kind = target.type
        if kind in ("function_definition", "class_definition") and target.child_by_field_name("name"):
            names.add(_text(target.child_by_field_name("name")))
        elif kind == "expression_statement":
            for child in target.named_children:
                _bind_assignment(child, names)
        elif kind in ("import_statement", "import_from_statement"):
            _bind_imports(target, names)
        else:
            if kind == "for_statement":
                _bind_pattern(target.child_by_field_name("left"), names)
            elif kind == "with_statement":
                for alias in _descendants(target, "as_pattern_target", stop=("block",)):
                    _bind_pattern(alias, names)
            if kind in _BLOCK_STATEMENTS:
                _bind_statements(target.named_children, names)


def _bind_assignment(node: Node, names: set[str]) -> None:
    """``a = b = 1``, ``a, *b = ...``, ``a: int = 1``, ``a += 1``."""
    while node is not None and node.type in ("assignment", "augmented_assignment"):
        _bind_pattern(node.child_by_field_name("left"), names)
        node = node.child_by_field_name("right")


def _bind_pattern(node: Node | None, names: set[str]) -> None:
    """The names a target binds: identifiers, inside tuple/list patterns and starred; not attributes or
    subscripts (they bind no new name)."""
    if node is None:
        return
    if node.type == "identifier":
        names.add(_text(node))
    elif node.type in ("pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list",
                       "list_splat_pattern", "list_splat", "parenthesized_expression", "as_pattern_target"):
        for child in node.named_children:
            _bind_pattern(child, names)


def _bind_imports(node: Node, names: set[str]) -> None:
    """``import a.b`` binds a; ``import a as b`` and ``from m import a as b`` bind b; ``from m import a``
    binds a."""
    from_import = node.type == "import_from_statement"
    for child in node.children_by_field_name("name"):
        if child.type == "aliased_import":
            names.add(_text(child.child_by_field_name("alias")))
        elif child.type == "dotted_name" and child.named_children:
            names.add(_text(child.named_children[-1] if from_import else child.named_children[0]))


def _descendants(node: Node, kind: str, stop: tuple[str, ...]) -> list[Node]:
    found = []
    for child in node.named_children:
        if child.type == kind:
            found.append(child)
        elif child.type not in stop:
            found += _descendants(child, kind, stop)
    return found


def _text(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text else ""
