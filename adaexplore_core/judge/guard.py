"""Static guard: an allowlist check of a candidate's AST before any of it runs.

The guard runs in the judge's parent process, which never imports torch or triton; its tables are static
data in ``allowlist.py`` (a unit test compares them with the installed packages). It is the first line of
defence, not the wall (the OS sandbox is): it refuses what the later stages cannot catch cheaply, and every
finding quotes what it refused (``'torch.os'``, ``'exec'``, ``'data_ptr'``) because its messages teach the
model that wrote the candidate.

Rules:

- Imports. Only the modules in ``allowlist.MODULES`` (torch, torch.nn, torch.nn.functional, torch.nn.init,
  torch.cuda, torch.fft, torch.linalg, torch.special, torch.functional, torch.autograd (its Function and
  grad) and torch.autograd.forward_ad (its unpack_dual), triton, triton.language and its math / extra.libdevice /
  target_info, math, typing, operator, itertools, __future__), and ``from M import x`` only for x on M's
  list. Dropped: numpy (savetxt / load / memmap / ctypeslib write and map files, and a candidate needs no
  arrays besides tensors), functools
  (``lru_cache`` keeps results across calls; ``partial`` builds callables out of sight), collections and
  dataclasses (class factories). Kept, trimmed: operator (the functions torch.fx writes into captured graphs,
  which the built-in proposer emits; not ``attrgetter`` / ``methodcaller``, whose string paths walk
  attributes the guard never sees) and a few itertools. No relative or star imports. With
  ``reference_source``, every import statement of the reference (same module, same name; any alias) is
  allowed too, except under ``allowlist.NEVER_IMPORT`` (os, sys, subprocess, builtins, ...). Names those
  imports bind may be called, subclassed, passed around and have public attributes read (object rules
  below); module paths they import (``import transformers.models.llama``) may be walked attribute by
  attribute.
- Module attributes. ``M.x`` on an allowed module needs x on M's list; everything else is refused with the
  whole dotted name (``torch.backends.cuda.matmul.allow_tf32``, ``torch.utils.cpp_extension.load_inline``,
  ``torch.glob``), with the reason from ``allowlist.REFUSED`` where there is one. A module is usable only as
  the base of an attribute (``torch.cuda.synchronize()``): ``c = torch.cuda``, ``f(torch)`` and
  ``getattr(torch, name)`` with a computed name are refused, so every use of a module is resolved
  statically (``getattr(torch, "os")`` with a constant name counts as ``torch.os``). ``torch.cuda.synchronize``
  is allowed (it can only slow the candidate), and so is ``with torch.cuda.device(x.device):``; streams,
  events, ``current_stream``, graphs, the allocator, the RNG and global settings are not (their getters neither:
  a candidate could tell the judge's phases apart), except the read-only queries a patch needs to follow a
  program's settings or fall back to the original forward: ``torch.is_grad_enabled``,
  ``torch.is_autocast_enabled``, ``torch.get_autocast_dtype`` (the dtype a kernel must compute in under
  autocast) and ``torch.autograd.forward_ad.unpack_dual`` (whether an input carries a forward-mode tangent);
  the judge's gradient, autocast and forward-AD trials run with them on, as programs do. ``torch.ops`` and
  ``torch.library`` are refused (they reach library operators around the allowlist).
- Names. A loaded name must resolve (Python's scoping: local, enclosing function, module) to a definition of
  the file, to an import, or to a builtin on ``allowlist.BUILTINS``; refused builtins (exec, eval, compile,
  open, __import__, globals, locals, vars, dir, setattr, delattr, type, id, hash, memoryview, input,
  breakpoint, exit, SystemExit, ...) are refused wherever they are named, as values too (``run = exec``,
  ``map(setattr, ...)``). Function parameters and locals may reuse those names (``def forward(self,
  input)``); the module level may not bind them (a name bound conditionally there would fall back to the
  builtin). ``getattr`` and ``hasattr`` are allowed only with a constant public attribute name (then checked
  like ``obj.name``). ``type`` is refused outright: three-argument ``type`` builds classes around the class
  rules, and ``type(type(x))`` is ``type`` itself; isinstance covers the legitimate uses. Names bound by an
  import may not be rebound. No dunder names besides ``__name__`` (no ``__builtins__``, ``__loader__``).
- Attributes of other objects (tensors, modules, locals). Types are unknown statically, so this is a
  denylist: no dunders but ``__init__`` and ``__name__``; no private ``_x`` except ``self._x`` / ``cls._x``
  that this file itself defines (``self`` being a method's first parameter); nothing on
  ``allowlist.REFUSED_ATTRIBUTES`` (``data_ptr``: tensor addresses enable identity caches, Triton launches
  take tensors; ``storage`` / ``untyped_storage`` / ``set_``; ``numpy`` / ``tofile`` / ``dump``;
  frame, code and generator internals; module names like ``os`` / ``sys``); nothing whose name contains
  ``hook``, except ``_forward_hooks``, ``_forward_pre_hooks``, ``_backward_hooks`` and
  ``_backward_pre_hooks`` where only their truth is read (``if m._forward_hooks or m._backward_hooks:``: a
  patch falls back when the program registered hooks on a submodule its kernels replace); ``_modules``,
  ``_parameters`` and ``_buffers`` only as ``m._parameters.get('w')`` (one constant key: the dispatch reads a
  module's state without ``Module.__getattr__``). ``str.format`` / ``format_map`` only on a string literal whose fields read no
  attribute or key (``"{0.gi_frame}".format(g)`` walks frames), never through ``getattr`` (which meets every
  rule the attribute meets), and ``case C(__class__=c)`` is checked too. A method of a class of the file only
  through an instance (``self.helper()``): ``Class.helper(obj, ...)`` makes any object its ``self``.
- Assignments only to names and ``self.<name>`` / ``cls.<name>`` (subscripts of locals too); no ``global`` /
  ``nonlocal``; no try/except (a failing kernel must fail); ``with`` only over ``torch.no_grad()``,
  ``torch.enable_grad()``, ``torch.inference_mode()`` and ``torch.cuda.device(...)`` (any other manager's
  ``__exit__`` can swallow exceptions, ``contextlib.suppress`` among them); no ``yield`` (generator
  functions: a suspended generator's frame is the classic way into the caller's frames, and nothing here
  needs one; generator expressions are fine); no async code. Lambdas are fine.
- Classes may define no dunder but ``__init__`` (no ``__exit__``, ``__torch_function__``, ``__getattr__``,
  ``__del__``, ...), take no keywords (metaclass) and no decorators, and derive only from
  torch.nn.Module, a torch.nn layer, torch.autograd.Function, ``object``, an allowed exception, a class of
  this file or a name the reference's imports bind; never from torch.Tensor or nn.Parameter. ModelNew must
  be a top-level class deriving directly from torch.nn.Module or from a base class of the reference's own
  class (as the reference names it), never from the reference class.
- Decorators: triton.jit / autotune / heuristics, staticmethod, classmethod, property (and its setter,
  getter, deleter), torch.no_grad / enable_grad / inference_mode.
- Structure: a top-level ``class ModelNew`` and at least one top-level ``@triton.jit`` function.

Findings come in line order and, within a line, in evaluation order (``getattr(getattr(g, "gi_frame"),
"f_back")`` reports gi_frame first); uses of a refused import are not reported again.
"""
from __future__ import annotations

import ast
import builtins
import fnmatch
import re
from dataclasses import dataclass

from . import allowlist as A

_BUILTIN_NAMES = frozenset(dir(builtins))
REFUSED_BUILTINS = _BUILTIN_NAMES - A.BUILTINS
_SELF_NAMES = ("self", "cls", "ctx")      # ctx: the first parameter of an autograd.Function method
_FORMAT_FIELD = re.compile(r"\{[^{}!:]*[.\[]")     # a field name with an attribute or an index step


@dataclass(frozen=True)
class Finding:
    """One guard rule broken at one line."""

    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def refusal_reason(dotted: str) -> str | None:
    """Why ``dotted`` (or the nearest refused module above it) is refused, from ``allowlist.REFUSED``."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in A.REFUSED:
            return A.REFUSED[prefix]
        for pattern, reason in A.REFUSED.items():
            if "*" in pattern and fnmatch.fnmatchcase(prefix, pattern):
                return reason
    return None


# --- scopes ------------------------------------------------------------------------------------------------

class _Scope:
    """One namespace: the module, a class body, or a function (def, lambda, comprehension)."""

    def __init__(self, node: ast.AST, kind: str, parent: _Scope | None) -> None:
        self.node, self.kind, self.parent = node, kind, parent
        self.bindings: dict[str, list[tuple[str, str | None, ast.AST]]] = {}   # name -> (how, import target, node)
        self.params: list[str] = []
        self.is_method = False

    def bind(self, name: str, how: str, node: ast.AST, target: str | None = None) -> None:
        self.bindings.setdefault(name, []).append((how, target, node))


class _Scopes(ast.NodeVisitor):
    """Every binding per scope, and the scope each Name is read or written in (Python's own scoping rules)."""

    def __init__(self, tree: ast.Module) -> None:
        self.module = _Scope(tree, "module", None)
        self.all: list[_Scope] = [self.module]
        self.of_name: dict[int, _Scope] = {}
        self.current = self.module
        for stmt in tree.body:
            self.visit(stmt)

    def _push(self, node: ast.AST, kind: str) -> _Scope:
        scope = _Scope(node, kind, self.current)
        self.all.append(scope)
        return scope

    def _within(self, scope: _Scope, nodes: list) -> None:
        saved, self.current = self.current, scope
        for n in nodes:
            if n is not None:
                self.visit(n)
        self.current = saved

    def visit_Name(self, node: ast.Name) -> None:
        self.of_name[id(node)] = self.current
        if not isinstance(node.ctx, ast.Load):
            self.current.bind(node.id, "assign", node)

    def _arguments(self, args: ast.arguments, scope: _Scope) -> None:
        for d in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
            self.visit(d)
        every = [*args.posonlyargs, *args.args, *([args.vararg] if args.vararg else []), *args.kwonlyargs,
                 *([args.kwarg] if args.kwarg else [])]
        for a in every:
            if a.annotation is not None:
                self.visit(a.annotation)
            scope.params.append(a.arg)
            scope.bind(a.arg, "param", a)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in node.decorator_list:
            self.visit(d)
        if node.returns is not None:
            self.visit(node.returns)
        scope = self._push(node, "function")
        scope.is_method = self.current.kind == "class"
        self._arguments(node.args, scope)
        self.current.bind(node.name, "def", node)
        self._within(scope, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        scope = self._push(node, "function")
        self._arguments(node.args, scope)
        self._within(scope, [node.body])

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for n in [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]:
            self.visit(n)
        self.current.bind(node.name, "class", node)
        self._within(self._push(node, "class"), node.body)

    def _comprehension(self, node: ast.AST, parts: list) -> None:
        generators = node.generators
        self.visit(generators[0].iter)
        scope = self._push(node, "comprehension")
        rest: list = []
        for i, g in enumerate(generators):
            rest += [g.target, *( [g.iter] if i else []), *g.ifs]
        self._within(scope, rest + parts)

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        scope = self.current
        while scope.kind == "comprehension":
            scope = scope.parent
        self.of_name[id(node.target)] = scope
        scope.bind(node.target.id, "assign", node.target)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.asname:
                self.current.bind(a.asname, "import", node, a.name)
            else:
                root = a.name.split(".")[0]
                self.current.bind(root, "import", node, root)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for a in node.names:
            if a.name != "*":
                target = f"{node.module}.{a.name}" if node.module and not node.level else None
                self.current.bind(a.asname or a.name, "import" if target else "assign", node, target)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.current.bind(node.name, "assign", node)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.current.bind(node.name, "assign", node)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.current.bind(node.name, "assign", node)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.current.bind(node.rest, "assign", node)
        self.generic_visit(node)

    def resolve(self, name: str, scope: _Scope) -> tuple[str, _Scope | None]:
        """Where a read of ``name`` in ``scope`` looks it up: local, free, class, module or builtin."""
        if name in scope.bindings:
            return ("local" if scope.kind in ("function", "comprehension") else scope.kind), scope
        outer = scope.parent
        while outer is not None and outer.kind != "module":
            if outer.kind != "class" and name in outer.bindings:
                return "free", outer
            outer = outer.parent
        if name in self.module.bindings:
            return "module", self.module
        return "builtin", None


# --- the reference's imports -------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Reference:
    modules: frozenset[str]                 # X.Y.Z of every `import X.Y.Z [as n]`
    names: frozenset[tuple[str, str]]       # (module, name) of every `from module import name [as n]`
    bases: frozenset[str]                   # dotted bases of the reference class that come from its imports

    @staticmethod
    def parse(source: str | None, class_name: str) -> _Reference:
        if not source:
            return _Reference(frozenset(), frozenset(), frozenset())
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return _Reference(frozenset(), frozenset(), frozenset())
        modules, names, aliases = set(), set(), {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    modules.add(a.name)
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name != "*":
                        names.add((node.module, a.name))
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        bases = set()
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == class_name:
                for b in node.bases:
                    dotted = _plain_dotted(b, aliases)
                    if dotted:
                        bases.add(dotted)
        return _Reference(frozenset(modules), frozenset(names), frozenset(bases))

    def allows_module(self, module: str) -> bool:
        return module in self.modules and module.split(".")[0] not in A.NEVER_IMPORT

    def allows_name(self, module: str, name: str) -> bool:
        return (module, name) in self.names and module.split(".")[0] not in A.NEVER_IMPORT

    def is_transit(self, path: str) -> bool:
        """``path`` lies on the way to a module the reference imports (``transformers.models``)."""
        return any(m.startswith(path + ".") for m in self.modules if m.split(".")[0] not in A.NEVER_IMPORT)


def _plain_dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(parts)])
    return None


# --- static values -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Static:
    """What an expression is, when known statically.

    kind: ``module`` (an allowlisted module), ``refmod`` (a module the reference imports), ``transit`` (a
    package on the way to one), ``object`` (an allowlisted name of a module), ``refobj`` (a name a reference
    import binds, or anything reached from a refmod), ``refused`` (a refused chain, already reported)."""

    kind: str
    dotted: str

    @property
    def is_module(self) -> bool:
        return self.kind in ("module", "refmod", "transit")


def _module_kind(path: str, ref: _Reference) -> str | None:
    if path in A.MODULES:
        return "module"
    if ref.allows_module(path):
        return "refmod"
    if ref.is_transit(path):
        return "transit"
    return None


def _import_message(module: str, name: str | None = None) -> str:
    shown = f"{module}.{name}" if name else module
    reason = refusal_reason(shown)
    if reason is None and name is not None and module in A.MODULES:
        hint = A.MODULE_HINTS.get(module)
        reason = f"'{name}' is not on the guard's allowlist for '{module}'" + (f" ({hint})" if hint else "")
    if reason is None:
        reason = (f"it is not on the guard's import allowlist (allowed: {A.IMPORT_SUMMARY}; and what the reference "
                  "file itself imports)")
    return f"import of '{shown}' is not allowed: {reason}"


class _Checker(ast.NodeVisitor):
    def __init__(self, tree: ast.Module, scopes: _Scopes, reference_class: str, ref: _Reference) -> None:
        self.tree, self.scopes, self.reference_class, self.ref = tree, scopes, reference_class, ref
        self.findings: list[tuple[tuple, Finding]] = []      # (evaluation order, finding)
        self.parent: dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
        # Private names the file defines for itself: self._x = ..., cls._x = ..., or class-body bindings.
        self.own_private: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load) \
                    and isinstance(node.value, ast.Name) and node.value.id in _SELF_NAMES:
                self.own_private.add(node.attr)
        for s in scopes.all:
            if s.kind == "class":
                self.own_private |= {n for n in s.bindings if n.startswith("_")}
        # The file's top-level functions decorated with something (its kernels among them: a launch's value is
        # checked against these names; the decorators themselves are checked where they stand).
        self.kernels = {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.decorator_list}
        for node in ast.walk(tree):                   # and the names they are bound to again (kk = k)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in self.kernels:
                self.kernels |= {t.id for t in node.targets if isinstance(t, ast.Name)}

    def add(self, node: ast.AST, rule: str, message: str) -> None:
        line = getattr(node, "lineno", 0) or 0
        # Within a line, the innermost (first evaluated) construct first: getattr(getattr(g, "gi_frame"), "f_back")
        # reports gi_frame before f_back.
        order = (line, getattr(node, "end_lineno", line) or line, getattr(node, "end_col_offset", 0) or 0)
        self.findings.append((order, Finding(line, rule, message)))

    # resolution ---------------------------------------------------------------------------------------------

    def resolve(self, node: ast.Name) -> tuple[str, _Scope | None]:
        scope = self.scopes.of_name.get(id(node), self.scopes.module)
        return self.scopes.resolve(node.id, scope)

    def import_target(self, node: ast.Name) -> str | None:
        """The dotted name a Name stands for when every binding it resolves to is one import of it."""
        kind, scope = self.resolve(node)
        if scope is None:
            return None
        binds = scope.bindings[node.id]
        targets = {t for how, t, _ in binds if how == "import"}
        if len(targets) == 1 and all(how == "import" for how, _, _ in binds):
            return targets.pop()
        return None

    def static(self, node: ast.AST) -> _Static | None:
        if isinstance(node, ast.Name):
            target = self.import_target(node)
            if target is None:
                return None
            kind = _module_kind(target, self.ref)
            if kind:
                return _Static(kind, target)
            module, _, name = target.rpartition(".")
            if module in A.MODULES and name in A.MODULES[module]:
                return _Static("object", target)
            if self.ref.allows_name(module, name):
                return _Static("refobj", target)
            return _Static("refused", target)     # the import statement itself is reported
        if isinstance(node, ast.Attribute):
            base = self.static(node.value)
            if base is None:
                return None
            path = f"{base.dotted}.{node.attr}"
            if base.kind == "refused":
                return _Static("refused", path)
            if base.kind in ("module", "transit"):
                kind = _module_kind(path, self.ref)
                if kind:
                    return _Static(kind, path)
                if base.kind == "module" and node.attr in A.MODULES[base.dotted]:
                    return _Static("object", path)
                return _Static("refused", path)
            return _Static("object" if base.kind == "object" else "refobj", path)
        name = self._getattr_name(node)
        if name is not None:
            base = self.static(node.args[0])
            if base is not None and base.is_module:
                return self.static(ast.Attribute(value=node.args[0], attr=name, ctx=ast.Load()))
        return None

    def _is_getattr_call(self, node: ast.AST | None, names: tuple[str, ...] = ("getattr", "hasattr")) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names \
            and self.resolve(node.func)[0] == "builtin"

    def _getattr_name(self, node: ast.AST | None) -> str | None:
        """``name`` of ``getattr(x, "name"[, default])`` (the builtin, a constant name), else None."""
        if self._is_getattr_call(node, ("getattr",)) and len(node.args) in (2, 3) and not node.keywords \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            return node.args[1].value
        return None

    def is_self(self, node: ast.AST) -> bool:
        """``self`` / ``cls`` as the first parameter of a method (or a closure over it)."""
        if not (isinstance(node, ast.Name) and node.id in _SELF_NAMES):
            return False
        kind, scope = self.resolve(node)
        return kind in ("local", "free") and scope is not None and scope.is_method and scope.params[:1] == [node.id]

    def _top_of_chain(self, node: ast.AST) -> ast.AST:
        """The outermost attribute chain around ``node`` (``getattr(x, "c")`` counting as ``x.c``)."""
        while True:
            parent = self.parent.get(id(node))
            if isinstance(parent, ast.Attribute) and parent.value is node \
                    or self._getattr_name(parent) is not None and parent.args[0] is node:
                node = parent
            else:
                return node

    def _is_called(self, node: ast.AST) -> bool:
        parent = self.parent.get(id(node))
        return isinstance(parent, ast.Call) and parent.func is node

    def _module_value(self, node: ast.AST, static: _Static) -> None:
        """A module used as anything but the base of an attribute."""
        parent = self.parent.get(id(node))
        if isinstance(parent, ast.Attribute) and parent.value is node or self._is_getattr_call(parent) \
                and parent.args[:1] == [node]:
            return          # getattr(torch, <not a constant>) is reported as a misuse of getattr
        self.add(node, "module-value", f"use of the module '{static.dotted}' as a value is not allowed: write "
                                       f"'{static.dotted}.<name>' where you need it (a module held in a variable "
                                       "or passed around is out of the guard's sight)")

    # imports ------------------------------------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.name in A.MODULES or self.ref.allows_module(a.name):
                continue
            self.add(node, "import", _import_message(a.name))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.add(node, "import", "relative imports are not allowed: a candidate is one self-contained file")
            return
        module = node.module or ""
        for a in node.names:
            if a.name == "*":
                self.add(node, "import", f"'from {module} import *' is not allowed: import the names you use")
            elif self.ref.allows_name(module, a.name):
                continue
            elif module.split(".")[0] in A.NEVER_IMPORT or module not in A.MODULES:
                self.add(node, "import", _import_message(module))
                return
            elif f"{module}.{a.name}" not in A.MODULES and a.name not in A.MODULES[module]:
                self.add(node, "import", _import_message(module, a.name))

    # names --------------------------------------------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        if not isinstance(node.ctx, ast.Load):
            if node.id in _SELF_NAMES:
                self.add(node, "name", f"rebinding '{node.id}' is not allowed: 'self' and 'cls' are a method's "
                                       "first parameter only")
            return
        kind, _ = self.resolve(node)
        if kind != "builtin" and not (kind == "class" and node.id in REFUSED_BUILTINS):
            static = self.static(node)
            if static is not None and static.is_module:
                self._module_value(node, static)
            return
        name = node.id
        if name in ("getattr", "hasattr") and not self._is_called(node):
            self.add(node, "builtin", f"the builtin '{name}' is not allowed as a value: call it directly, as "
                                      f"{name}(obj, 'public_name'), so the guard sees the name it looks up")
            return
        if name in A.BUILTINS or name == "__name__":
            return
        if name in REFUSED_BUILTINS:
            reason = A.BUILTIN_REASONS.get(name, "is not on the guard's allowlist of builtins")
            if self._is_called(node):
                self.add(node, "builtin", f"calling '{name}' is not allowed: the builtin '{name}' {reason}")
            else:
                self.add(node, "builtin", f"the builtin '{name}' is not allowed, not even as a value: it {reason}")
            return
        if _is_dunder(name):
            self.add(node, "name", f"the name '{name}' is not allowed: module internals are out of bounds")
        else:
            self.add(node, "name", f"the name '{name}' is not defined in this file: only its own definitions, its "
                                   "imports and allowed builtins may be used")

    def check_bindings(self) -> None:
        for scope in self.scopes.all:
            for name, binds in scope.bindings.items():
                how, target, node = binds[0]
                if any(h == "import" for h, _, _ in binds):
                    clash = next((n for h, t, n in binds if h != "import" or t != target), None) \
                        if how == "import" else node
                    if clash is not None:
                        self.add(clash, "name", f"rebinding the imported name '{name}' is not allowed: give the "
                                                "other value another name")
                if scope.kind == "module" and name in REFUSED_BUILTINS:
                    self.add(node, "name", f"binding the name '{name}' at module level is not allowed: it would stand "
                                           f"in for the builtin '{name}', which the guard refuses")
                if _is_dunder(name) and not (scope.kind == "class" and name == "__init__"):
                    if scope.kind == "class":
                        self.add(node, "class", f"class '{scope.node.name}' may not define '{name}': dunder "
                                                "methods other than __init__ change how Python treats the object "
                                                "(__exit__ can swallow exceptions, __torch_function__ intercepts "
                                                "torch calls)")
                    elif how != "param":
                        self.add(node, "name", f"binding the name '{name}' is not allowed: dunder names are "
                                               "interpreter hooks")

    # attributes ---------------------------------------------------------------------------------------------

    def visit_Attribute(self, node: ast.Attribute) -> None:
        base = self.static(node.value)
        if base is not None and base.kind in ("module", "transit"):
            mine = self.static(node)
            if mine.kind == "refused":
                self._refused_module_attribute(node, mine.dotted)
            elif mine.is_module:
                self._module_value(node, mine)
            self.generic_visit(node)
            return
        if base is not None and base.kind == "refused":
            self.generic_visit(node)
            return
        if base is not None and base.kind in ("refmod", "refobj") and node.attr in A.REFERENCE_WALK_REFUSED:
            self.add(node, "attribute", f"'{ast.unparse(node)}' is not allowed: "
                                        f"{A.REFERENCE_WALK_REFUSED[node.attr]}")
        if node.attr in A.KERNEL_INTERNALS:
            self.add(node, "attribute", f"the attribute '{node.attr}' (in '{ast.unparse(node)}') is not allowed: "
                                        f"{A.KERNEL_INTERNALS[node.attr]}")
        self._object_attribute(node, node.attr)
        if node.attr in ("format", "format_map"):
            self._format_call(node)
        self._class_function(node)
        self.generic_visit(node)

    def _class_function(self, node: ast.Attribute) -> None:
        """A function a class of this file defines, read through the class (``ModelNew.helper``): called so, any
        object is its ``self``, and its ``self.x = ...`` assigns attributes of torch's classes (red team b2)."""
        if not isinstance(node.value, ast.Name):
            return
        kind, scope = self.resolve(node.value)
        bindings = scope.bindings.get(node.value.id, []) if scope is not None and kind in ("module", "local",
                                                                                          "free", "class") else []
        classes = [n for how, _, n in bindings if how == "class" and isinstance(n, ast.ClassDef)]
        for cls in classes:
            for item in cls.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == node.attr and not any(
                        isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                        for d in item.decorator_list):
                    self.add(node, "attribute", f"'{ast.unparse(node)}' is not allowed: a method of a class of this "
                                                "file is called on its instances (self.name(...)), never through "
                                                "the class, where any object could be its self")
                    return

    def _format_call(self, node: ast.Attribute) -> None:
        """``str.format`` walks the attributes and keys its fields name, out of the guard's sight: only on a
        string literal, with plain fields (``{}``, ``{0}``, ``{name}``, conversions and format specs)."""
        literal = node.value.value if isinstance(node.value, ast.Constant) else None
        if not isinstance(literal, str):
            self.add(node, "attribute", f"'{ast.unparse(node)}' is not allowed: str.{node.attr} only on a string "
                                        "literal (a format string made at run time can read any attribute); use "
                                        "an f-string")
        elif _FORMAT_FIELD.search(literal):
            self.add(node, "attribute", f"str.{node.attr} with a field that reads an attribute or a key "
                                        f"({literal!r}) is not allowed; use an f-string")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        key = node.slice.value if isinstance(node.slice, ast.Constant) else None
        if isinstance(key, str) and _is_dunder(key):
            self.add(node, "dunder", f"the key '{key}' (in '{ast.unparse(node)}') is not allowed: dunder keys "
                                     "reach the interpreter's internals (a module's globals, its builtins)")
        self.generic_visit(node)

    def _refused_module_attribute(self, node: ast.Attribute, dotted: str) -> None:
        top = self._top_of_chain(node)
        full = self.static(top)
        shown = full.dotted if full is not None else dotted
        module, _, name = dotted.rpartition(".")
        reason = refusal_reason(dotted)
        if reason is None and name.startswith("_"):
            kind = "dunder" if _is_dunder(name) else "private"
            reason = f"{kind} names of '{module}' are not part of its API"
        if reason is None and module in A.MODULES:
            hint = A.MODULE_HINTS.get(module)
            reason = f"'{name}' is not on the guard's allowlist for '{module}'" + (f" ({hint})" if hint else "")
        if reason is None:
            reason = f"'{dotted}' is not a module the reference imports"
        verb = "calling" if self._is_called(top) else "use of"
        self.add(node, "module-attribute", f"{verb} '{shown}' is not allowed: {reason}")

    def _object_attribute(self, node: ast.AST, attr: str, shown: str | None = None) -> None:
        """The denylist rules for ``x.attr`` where x is not a module."""
        owner = node.value if isinstance(node, ast.Attribute) else None
        if shown is None:
            shown = ast.unparse(self._top_of_chain(node))
        if len(shown) > 60:
            shown = "..." + shown[-57:]
        where = f" (in '{shown}')" if shown != attr else ""
        if _is_dunder(attr):
            if attr not in A.DUNDER_ATTRIBUTES:
                self.add(node, "dunder", f"the attribute '{attr}'{where} is not allowed: dunder attributes reach the "
                                         "interpreter's internals")
            return
        if attr in A.REFUSED_ATTRIBUTES:
            self.add(node, "attribute", f"the attribute '{attr}'{where} is not allowed: {A.REFUSED_ATTRIBUTES[attr]}")
            return
        if attr in A.HOOK_TESTS and isinstance(node, ast.Attribute) and self._truth_tested(node):
            return                  # `if m._forward_hooks or m._backward_hooks:` falls back; nothing else
        if attr in A.STATE_SLOTS and isinstance(node, ast.Attribute) and self._read_by_key(node):
            return                  # `m._parameters.get('weight')`: the tensor or None, nothing else
        if A.HOOK_MARK in attr.lower():
            self.add(node, "attribute", f"the attribute '{attr}'{where} is not allowed: hooks run code inside the "
                                        "judge, on the reference too")
            return
        if attr.startswith("_") and not (owner is not None and self.is_self(owner) and attr in self.own_private):
            self.add(node, "private", f"the private attribute '{attr}'{where} is not allowed: only self._x "
                                      "attributes that this file defines")

    def _read_by_key(self, node: ast.Attribute) -> bool:
        """Whether ``node`` (``m._parameters``) is only read through ``.get`` with one constant string key."""
        method = self.parent.get(id(node))
        call = self.parent.get(id(method))
        return isinstance(node.ctx, ast.Load) and isinstance(method, ast.Attribute) and method.attr == "get" and \
            isinstance(call, ast.Call) and call.func is method and not call.keywords and len(call.args) == 1 and \
            isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)

    def _truth_tested(self, node: ast.AST) -> bool:
        """Whether only the truth of ``node``'s value is read: an if/while test, ``not``, ``bool()``/``len()``, the
        element of a generator that any()/all() read, or an and/or chain that is itself truth-tested (a chain's
        value could be the object itself)."""
        parent = self.parent.get(id(node))
        if isinstance(parent, (ast.If, ast.IfExp, ast.While)):
            return parent.test is node
        if isinstance(parent, ast.UnaryOp):
            return isinstance(parent.op, ast.Not)
        if isinstance(parent, ast.Call):
            return isinstance(parent.func, ast.Name) and parent.func.id in ("len", "bool") and \
                parent.args == [node] and not parent.keywords
        if isinstance(parent, ast.BoolOp):
            return self._truth_tested(parent)
        if isinstance(parent, ast.GeneratorExp) and parent.elt is node:    # any(m._forward_hooks for m in ...)
            call = self.parent.get(id(parent))
            return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and \
                call.func.id in ("any", "all") and call.args == [parent] and not call.keywords
        return False

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        # `case C(attr=p)` reads x.attr: the same rules as writing it
        for attr in node.kwd_attrs:
            self._object_attribute(node, attr, shown=f"case {ast.unparse(node.cls)}({attr}=...)")
        self.generic_visit(node)

    # calls --------------------------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        for keyword in node.keywords:
            unpacked = [k.value for k in keyword.value.keys if isinstance(k, ast.Constant)] \
                if keyword.arg is None and isinstance(keyword.value, ast.Dict) else []
            refused = next((k for k in unpacked if k in A.REFUSED_KEYWORDS), None)
            if keyword.arg in A.REFUSED_KEYWORDS:
                self.add(node, "keyword", f"the keyword argument '{keyword.arg}=' is not allowed: "
                                          f"{A.REFUSED_KEYWORDS[keyword.arg]}")
            elif refused is not None:
                self.add(node, "keyword", "a refused keyword argument given through '**{...}' is not allowed: "
                                          + A.REFUSED_KEYWORDS[refused])
            elif keyword.arg is None and isinstance(node.func, ast.Subscript):
                self.add(node, "keyword", "'**' arguments to a launch are not allowed: pass the kernel's arguments "
                                          "by name (a stream could hide in them)")
        self._launch_value(node)
        name = self._getattr_name(node)
        base = self.static(node.args[0]) if name is not None else None
        if base is not None and base.is_module:               # getattr(torch, "os") is torch.os
            mine = self.static(node)
            if mine.kind == "refused":
                self._refused_module_attribute(node, mine.dotted)
            elif mine.is_module:
                self._module_value(node, mine)
            self._attribute_by_name(node, name, base)
        elif base is not None and base.kind == "refused":
            pass
        elif self._is_getattr_call(node):
            arity = (2, 3) if func.id == "getattr" else (2,)
            name = node.args[1] if len(node.args) > 1 else None
            if len(node.args) not in arity or node.keywords or any(isinstance(a, ast.Starred) for a in node.args) \
                    or not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self.add(node, "builtin", f"calling '{func.id}' this way is not allowed: the builtin '{func.id}' "
                                          f"{A.BUILTIN_REASONS[func.id]}")
            else:
                top = self._top_of_chain(node)
                self._object_attribute(node, name.value, shown=None if top is not node else
                                       f"{func.id}(..., {name.value!r})")
                self._attribute_by_name(node, name.value, self.static(node.args[0]))
        self.generic_visit(node)

    def _launch_value(self, node: ast.Call) -> None:
        """A launch of one of the file's kernels, ``kernel[grid](...)``, is a statement: its value is Triton's
        compiled kernel, whose launcher takes any stream and is not counted (red team, 2026-12-02)."""
        func = node.func
        if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name) and func.value.id in self.kernels \
                and not isinstance(self.parent.get(id(node)), ast.Expr):
            self.add(node, "launch", f"the value of the launch '{func.value.id}[...](...)' is not allowed: it is "
                                     "Triton's compiled kernel, which launches on any stream and outside the judge's "
                                     "count of launches; launch kernels as statements")

    def _attribute_by_name(self, node: ast.Call, attr: str, base: _Static | None) -> None:
        """``getattr(x, "name")`` meets the rules ``x.name`` meets (red team b1: ``getattr(text, "format")``
        with a format string made at run time read the judge's frames)."""
        shown = ast.unparse(node)
        if attr in ("format", "format_map"):
            self.add(node, "attribute", f"'{shown}' is not allowed: str.{attr} only as a method of a string "
                                        "literal (a format string made at run time can read any attribute); use "
                                        "an f-string")
        if attr in A.KERNEL_INTERNALS:
            self.add(node, "attribute", f"the attribute '{attr}' (in '{shown}') is not allowed: "
                                        f"{A.KERNEL_INTERNALS[attr]}")
        if base is not None and base.kind in ("refmod", "refobj") and attr in A.REFERENCE_WALK_REFUSED:
            self.add(node, "attribute", f"'{shown}' is not allowed: {A.REFERENCE_WALK_REFUSED[attr]}")

    # statements ---------------------------------------------------------------------------------------------

    def visit_Try(self, node: ast.AST) -> None:
        self.add(node, "try", "try/except is not allowed: a failing kernel must fail, not fall back silently")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            expr = item.context_expr
            static = self.static(expr.func) if isinstance(expr, ast.Call) else None
            if static is None or static.kind != "object" or static.dotted not in A.CONTEXT_MANAGERS:
                shown = ast.unparse(expr)
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
                self.add(expr, "with", f"the context manager '{shown}' is not allowed: only 'torch.no_grad()', "
                                       "'torch.enable_grad()', 'torch.inference_mode()' and 'torch.cuda.device(...)' "
                                       "(another manager's __exit__ could swallow exceptions)")
            if item.optional_vars is not None:
                self._check_target(item.optional_vars)
        self.generic_visit(node)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> None:
        self.add(node, "async", "async code is not allowed")
        self.visit_With(node)

    def _async(self, node: ast.AST) -> None:
        self.add(node, "async", "async code is not allowed")
        self.generic_visit(node)

    visit_Await = visit_AsyncFor = _async

    def _yield(self, node: ast.AST) -> None:
        self.add(node, "generator", f"'{'yield from' if isinstance(node, ast.YieldFrom) else 'yield'}' is not "
                                    "allowed: generator functions are not needed (return a list or tuple)")
        self.generic_visit(node)

    visit_Yield = visit_YieldFrom = _yield

    def visit_Global(self, node: ast.Global) -> None:
        self.add(node, "global", "'global' statements are not allowed: a candidate may not keep state between "
                                 "calls outside its module instance")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.add(node, "global", "'nonlocal' statements are not allowed: keep state on self")

    def _check_target(self, target: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._check_target(t)
        elif isinstance(target, ast.Starred):
            self._check_target(target.value)
        elif isinstance(target, ast.Attribute):
            if self.is_self(target.value):
                return
            static = self.static(target.value)
            if static is not None and static.kind != "refused":
                self.add(target, "patch", f"assigning to an attribute of an imported module is not allowed "
                                          f"('{static.dotted}.{target.attr}'): it would patch torch/triton for "
                                          "everyone, the judge's timers included")
            elif static is None:
                self.add(target, "patch", f"assigning to an attribute of anything but self is not allowed "
                                          f"('{ast.unparse(target)}'): assign only to self.<name> or to variables")
        elif isinstance(target, ast.Subscript):
            static = self.static(target.value)
            if static is not None and static.kind != "refused":
                self.add(target, "patch", f"assigning into '{static.dotted}' is not allowed: it would patch an "
                                          "imported module's objects")

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._check_target(t)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign | ast.AnnAssign) -> None:
        self._check_target(node.target)
        self.generic_visit(node)

    visit_AnnAssign = visit_AugAssign

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            self._check_target(t)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        self._check_target(node.target)
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        if node.is_async:
            self.add(node.target, "async", "async code is not allowed")
        self._check_target(node.target)
        self.generic_visit(node)

    # functions and classes ----------------------------------------------------------------------------------

    def _decorator_ok(self, decorator: ast.expr, in_class: bool) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        static = self.static(target)
        if static is not None and static.kind == "object" and static.dotted in A.DECORATORS:
            return True
        if isinstance(decorator, ast.Name) and decorator.id in A.BUILTIN_DECORATORS \
                and self.resolve(decorator)[0] == "builtin":
            return True
        return (in_class and isinstance(decorator, ast.Attribute) and decorator.attr in A.PROPERTY_DECORATORS
                and isinstance(decorator.value, ast.Name) and self.resolve(decorator.value)[0] == "class")

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if isinstance(node, ast.AsyncFunctionDef):
            self.add(node, "async", "async code is not allowed")
        in_class = isinstance(self.parent.get(id(node)), ast.ClassDef)
        for d in node.decorator_list:
            if not self._decorator_ok(d, in_class):
                shown = ast.unparse(d)
                self.add(d, "decorator", f"the decorator '@{shown[:60]}' is not allowed: only @triton.jit, "
                                         "@triton.autotune(...), @triton.heuristics(...), @staticmethod, "
                                         "@classmethod, @property (and its .setter) and @torch.no_grad()")
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def _base_shown(self, base: ast.expr) -> str:
        static = self.static(base)
        return static.dotted if static is not None else ast.unparse(base)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for k in node.keywords:
            self.add(node, "class", f"class '{node.name}' may not pass '{k.arg or '**'}=' to its class statement "
                                    "(metaclasses and class keywords are not allowed)")
        for d in node.decorator_list:
            self.add(d, "decorator", f"the class decorator '@{ast.unparse(d)[:60]}' is not allowed")
        is_model = node.name == "ModelNew" and self.parent.get(id(node)) is self.tree
        for base in node.bases:
            static = self.static(base)
            shown = self._base_shown(base)
            if static is not None and static.kind == "object" and static.dotted in A.TENSOR_CLASSES:
                via = "" if static.dotted == "torch.Tensor" else f" (through '{static.dotted}')"
                self.add(node, "tensor-subclass", f"class '{node.name}' subclasses torch.Tensor{via}, which is not "
                                                  "allowed: a Tensor subclass can defer or fake the work")
            elif is_model:
                self._check_model_base(node, base, static, shown)
            elif static is not None and static.kind == "refused":
                pass                                         # reported as a refused module attribute
            elif not self._base_ok(base, static):
                self.add(node, "class", f"class '{node.name}' may not subclass '{shown}': allowed bases are "
                                        "torch.nn.Module and the torch.nn layers, torch.autograd.Function, object, "
                                        "exceptions, classes of this file and classes the reference imports")
        if is_model and len(node.bases) != 1:
            self.add(node, "subclass", "ModelNew must derive from exactly one base, torch.nn.Module")
        self.generic_visit(node)

    def _base_ok(self, base: ast.expr, static: _Static | None) -> bool:
        if static is not None:
            return (static.kind == "object" and static.dotted in A.CLASS_BASES) or static.kind == "refobj"
        if isinstance(base, ast.Name):
            kind, scope = self.resolve(base)
            if kind == "builtin":
                return base.id in A.BUILTIN_CLASS_BASES
            return scope is not None and all(how == "class" for how, _, _ in scope.bindings[base.id])
        return False

    def _check_model_base(self, node: ast.ClassDef, base: ast.expr, static: _Static | None, shown: str) -> None:
        allowed = {A.MODEL_BASE} | set(self.ref.bases)
        if static is not None and static.kind in ("object", "refobj") and static.dotted in allowed:
            return
        if isinstance(base, ast.Name) and base.id == self.reference_class:
            msg = f"ModelNew subclasses the reference class '{base.id}', which is not allowed"
        else:
            others = sorted(self.ref.bases - {A.MODEL_BASE})
            extra = f" or from the reference class's base '{others[0]}'" if others else ""
            msg = f"ModelNew must derive from torch.nn.Module directly{extra}, not from '{shown}'"
        self.add(node, "subclass", msg)


def _is_triton_jit(decorator: ast.expr, checker: _Checker) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    static = checker.static(target)
    return static is not None and static.dotted == "triton.jit"


def check_source(source: str, reference_class: str = "Model", reference_source: str | None = None) -> list[Finding]:
    """All guard findings for candidate source, in line order; an empty list means it may run.

    ``reference_source``: the reference file, whose own import statements the candidate may repeat."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        text = (e.text or "").strip()
        where = f": {text}" if text else ""
        return [Finding(e.lineno or 0, "syntax", f"syntax error: {e.msg}{where}")]
    scopes = _Scopes(tree)
    checker = _Checker(tree, scopes, reference_class, _Reference.parse(reference_source, reference_class))
    checker.visit(tree)
    checker.check_bindings()
    findings = sorted(set(checker.findings), key=lambda p: (p[0], p[1].rule, p[1].message))
    findings = list(dict.fromkeys(f for _, f in findings))

    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        findings.append(Finding(1, "structure", "the file must define 'class ModelNew(nn.Module)' at top level"))
    kernels = [n for n in tree.body if isinstance(n, ast.FunctionDef)
               and any(_is_triton_jit(d, checker) for d in n.decorator_list)]
    if not kernels:
        # Kernels wrapped by @triton.autotune / @triton.heuristics still carry @triton.jit innermost.
        findings.append(Finding(1, "structure", "the file must define at least one @triton.jit kernel at top "
                                                "level"))
    return sorted(findings, key=lambda f: f.line)      # stable: evaluation order within a line


def summarize(findings: list[Finding]) -> str:
    """One sentence for a verdict's reason: the first finding, plus how many more."""
    first = str(findings[0])
    more = len(findings) - 1
    return f"Rejected before running: {first}" + (f" (and {more} more)" if more else "")
