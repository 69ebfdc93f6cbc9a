"""Static guard: AST checks on candidate source before any of it runs.

The guard rejects what the later stages cannot catch cheaply or safely: imports outside an allowlist,
escapes to the interpreter (exec, open, dunder attributes), patches to torch/triton (timers, TF32 flags),
global RNG seeding, exception swallowing, streams and graphs the timer would not see, Tensor subclasses,
and a ModelNew that inherits the reference. Every finding names its line.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

ALLOWED_IMPORT_ROOTS = frozenset({
    "torch", "triton", "math", "numpy", "functools", "itertools", "typing", "typing_extensions",
    "dataclasses", "einops", "operator", "collections", "enum", "numbers", "abc", "__future__",
})

# Submodules of allowed packages that reach compilers other than Triton, or the interpreter's internals.
BANNED_MODULE_PREFIXES = (
    "torch.utils", "torch._inductor", "torch._dynamo", "torch._C", "torch.jit", "torch.cuda.graphs",
    "torch.backends", "torch.compiler", "torch.library", "torch.multiprocessing", "torch.distributed",
    "torch.hub", "torch.package", "torch.classes", "torch.ops.load_library", "torch.cuda.cudart",
    "torch.cuda.jiterator", "torch.cuda.caching_allocator", "triton.runtime", "triton.backends",
    "triton.testing", "triton.tools", "numpy.ctypeslib", "numpy.f2py", "numpy.distutils", "numpy.testing",
    "numpy.lib",
)

BANNED_BUILTINS = frozenset({
    "exec", "eval", "compile", "open", "__import__", "globals", "locals", "vars", "setattr", "delattr",
    "input", "breakpoint", "exit", "quit", "memoryview", "help",
})

# Dotted call targets (after resolving import aliases) that change global state the judge relies on.
BANNED_CALL_PREFIXES = {
    "torch.manual_seed": "seeds the global RNG",
    "torch.seed": "seeds the global RNG",
    "torch.random": "touches the global RNG",
    "torch.cuda.manual_seed": "seeds the global RNG",
    "torch.cuda.seed": "seeds the global RNG",
    "torch.set_rng_state": "sets the global RNG state",
    "torch.cuda.set_rng_state": "sets the global RNG state",
    "numpy.random.seed": "seeds the global RNG",
    "torch.set_": "changes torch's global settings",
    "torch.cuda.set_": "changes torch's global settings",
    "torch.use_deterministic_algorithms": "changes torch's global settings",
    "torch.compile": "hands the work to torch.compile instead of the candidate's Triton kernels",
    "torch.cuda.Stream": "creates a stream the judge's timer would not see",
    "torch.cuda.stream": "switches to a stream the judge's timer would not see",
    "torch.cuda.ExternalStream": "uses a stream the judge's timer would not see",
    "torch.cuda.CUDAGraph": "captures a CUDA graph (the judge manages graphs and streams)",
    "torch.cuda.graph": "captures a CUDA graph (the judge manages graphs and streams)",
    "torch.cuda.make_graphed_callables": "captures a CUDA graph (the judge manages graphs and streams)",
    "torch.cuda.empty_cache": "manipulates the allocator the judge relies on",
    "torch.cuda.memory": "manipulates the allocator the judge relies on",
    "torch.nn.modules.module.register_module_": "installs a hook on every module, the reference's included",
    "numpy.save": "writes files", "numpy.savetxt": "writes files", "numpy.savez": "writes files",
    "numpy.load": "reads files", "numpy.loadtxt": "reads files", "numpy.genfromtxt": "reads files",
    "numpy.fromfile": "reads files", "numpy.memmap": "maps files", "numpy.tofile": "writes files",
    "torch.save": "writes files", "torch.load": "reads files (and unpickles them)", "torch.from_file": "maps files",
}

# Modules that allowed packages happen to import (torch.os, typing.sys, dataclasses.builtins, ...).
ESCAPE_ATTRIBUTES = frozenset({
    "os", "sys", "builtins", "ctypes", "importlib", "subprocess", "inspect", "threading", "multiprocessing",
    "shutil", "pickle", "io", "gc", "socket", "marshal", "weakref", "pty", "posix", "tempfile", "pathlib",
})
# Frame, code and generator internals lead from candidate code into the judge's own frames; tofile writes files.
INTROSPECTION_ATTRIBUTES = frozenset({
    "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code", "f_back", "f_locals", "f_globals",
    "f_builtins", "f_code", "tb_frame", "tb_next", "tofile",
})
# The only names whose attributes a candidate may assign, or whose private (_x) attributes it may read.
OWN_OBJECTS = frozenset({"self", "cls"})

# Dunder attributes that are ordinary in model code; every other __x__ attribute is an escape hatch.
ALLOWED_DUNDERS = frozenset({"__init__", "__name__", "__doc__", "__call__", "__len__", "__repr__"})
TENSOR_HOOKS = frozenset({"__torch_function__", "__torch_dispatch__"})
MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})


@dataclass(frozen=True)
class Finding:
    """One guard rule broken at one line."""

    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _name_value_pairs(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """(name, value) for ``a = v`` and element-wise for ``a, b = v, w``."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts):
        return [p for t, v in zip(target.elts, value.elts) for p in _name_value_pairs(t, v)]
    return []


class _AliasMap:
    """Maps local names to the dotted module paths they were imported as."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.names[a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.names[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    self.names[a.asname or a.name] = f"{node.module}.{a.name}"
        # Plain aliases of those (cuda = torch.cuda; a, b = torch, 1; t: Any = cuda), through chains.
        pairs: list[tuple[str, ast.expr]] = []
        for n in ast.walk(tree):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) \
                and n.value is not None else []
            for t in targets:
                pairs.extend(_name_value_pairs(t, n.value))
        for _ in range(len(pairs) + 1):
            changed = False
            for name, value in pairs:
                dotted = self.dotted(value)
                if dotted and self.names.get(name) != dotted:
                    self.names[name] = dotted
                    changed = True
            if not changed:
                break

    def dotted(self, node: ast.AST) -> str | None:
        """``F.relu`` -> ``torch.nn.functional.relu`` when F came from an import; else None.

        ``getattr(torch, "cuda")`` counts as ``torch.cuda``."""
        parts: list[str] = []
        while True:
            if isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                  and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                  and isinstance(node.args[1].value, str)):
                parts.append(node.args[1].value)
                node = node.args[0]
            else:
                break
        if not isinstance(node, ast.Name) or node.id not in self.names:
            return None
        parts.append(self.names[node.id])
        return ".".join(reversed(parts))

    def is_module_alias(self, node: ast.AST) -> bool:
        return self.dotted(node) is not None


def _matches(dotted: str, prefix: str) -> bool:
    """``torch.set_`` matches any ``torch.set_*``; ``torch.compile`` matches itself and its attributes."""
    if prefix.endswith("_"):
        return dotted.startswith(prefix)
    return dotted == prefix or dotted.startswith(prefix + ".")


def _import_finding(module: str, line: int) -> Finding | None:
    root = module.split(".")[0]
    if root not in ALLOWED_IMPORT_ROOTS:
        allowed = ", ".join(sorted(ALLOWED_IMPORT_ROOTS - {"__future__"}))
        return Finding(line, "import", f"import of '{module}' is not allowed (allowed: {allowed})")
    for prefix in BANNED_MODULE_PREFIXES:
        if _matches(module, prefix):
            return Finding(line, "import", f"import of '{module}' is not allowed: it leaves Triton or reaches "
                                           "the runtime's internals")
    return None


class _Visitor(ast.NodeVisitor):
    def __init__(self, aliases: _AliasMap, reference_class: str) -> None:
        self.aliases = aliases
        self.reference_class = reference_class
        self.findings: list[Finding] = []

    def add(self, node: ast.AST, rule: str, message: str) -> None:
        self.findings.append(Finding(getattr(node, "lineno", 0), rule, message))

    # imports
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            f = _import_finding(a.name, node.lineno)
            if f:
                self.findings.append(f)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.add(node, "import", "relative imports are not allowed: a candidate is one self-contained file")
            return
        module = node.module or ""
        f = _import_finding(module, node.lineno)
        if f is None:
            for a in node.names:
                if a.name in ESCAPE_ATTRIBUTES:      # from torch import os
                    f = Finding(node.lineno, "import", f"import of '{module}.{a.name}' is not allowed: it "
                                                       "reaches a module the import allowlist forbids")
                else:
                    f = _import_finding(f"{module}.{a.name}", node.lineno) if a.name != "*" else None
                if f:
                    break
        if f:
            self.findings.append(f)

    # exception swallowing
    def visit_Try(self, node: ast.AST) -> None:
        self.add(node, "try", "try/except is not allowed: a failing kernel must fail, not fall back silently")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    # calls
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in BANNED_BUILTINS:
            self.add(node, "builtin", f"calling '{func.id}' is not allowed")
        if isinstance(func, ast.Name) and func.id == "getattr":
            name = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)
                    and not name.value.startswith("_")):
                self.add(node, "builtin", "getattr is allowed only with a constant public attribute name")
        dotted = self.aliases.dotted(func)
        if dotted:
            for prefix, why in BANNED_CALL_PREFIXES.items():
                if _matches(dotted, prefix):
                    self.add(node, "global-state", f"calling '{dotted}' is not allowed: it {why}")
                    break
            else:
                for prefix in BANNED_MODULE_PREFIXES:
                    if _matches(dotted, prefix):
                        self.add(node, "import", f"calling '{dotted}' is not allowed: it leaves Triton or "
                                                 "reaches the runtime's internals")
                        break
        self.generic_visit(node)

    # attribute use
    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        if attr.startswith("__") and attr.endswith("__"):
            if attr not in ALLOWED_DUNDERS:
                self.add(node, "dunder", f"access to '{attr}' is not allowed")
        elif attr.startswith("_") and not (isinstance(node.value, ast.Name) and node.value.id in OWN_OBJECTS):
            shown = self.aliases.dotted(node) or attr
            self.add(node, "private", f"access to the private attribute '{shown}' is not allowed (only self._x)")
            return
        if attr in INTROSPECTION_ATTRIBUTES:
            self.add(node, "introspection", f"access to '{attr}' is not allowed: it reaches the judge's own "
                                            "frames or files")
        if attr in ESCAPE_ATTRIBUTES:
            shown = self.aliases.dotted(node) or attr
            self.add(node, "import", f"use of '{shown}' is not allowed: it reaches a module the import "
                                     "allowlist forbids")
        dotted = self.aliases.dotted(node)
        if dotted:
            for prefix in ("torch._C", "torch._dynamo", "torch._inductor", "torch.backends", "triton.runtime"):
                if _matches(dotted, prefix):
                    self.add(node, "internals", f"use of '{dotted}' is not allowed: it reaches the runtime's "
                                                "internals or global flags")
                    return  # one finding per chain, not one per prefix of it
        self.generic_visit(node)

    def _check_targets(self, targets: list[ast.expr]) -> None:
        for t in targets:
            if isinstance(t, (ast.Tuple, ast.List)):
                self._check_targets(list(t.elts))
            elif isinstance(t, ast.Starred):
                self._check_targets([t.value])
            elif isinstance(t, ast.Subscript) and self.aliases.is_module_alias(t.value):
                self.add(t, "patch", "assigning into an imported module's objects is not allowed "
                                     "(it would patch torch/triton for everyone, timers included)")
            elif isinstance(t, ast.Attribute) and not (isinstance(t.value, ast.Name)
                                                       and t.value.id in OWN_OBJECTS):
                what = "an imported module" if self.aliases.is_module_alias(t.value) else "anything but self"
                self.add(t, "patch", f"assigning to an attribute of {what} is not allowed; assign only to "
                                     "self.<name> (anything else could patch torch/triton, timers included)")

    def visit_Assign(self, node: ast.Assign) -> None:
        self._check_targets(node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_targets([node.target])
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_targets([node.target])
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self._check_targets(node.targets)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.add(node, "global", "'global' statements are not allowed: a candidate may not keep state "
                                 "between calls outside its module instance")

    # classes
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            dotted = self.aliases.dotted(base) or (base.id if isinstance(base, ast.Name) else "")
            if dotted in ("torch.Tensor", "torch._tensor.Tensor") or (isinstance(base, ast.Name)
                                                                       and base.id == "Tensor"):
                self.add(node, "tensor-subclass", f"class '{node.name}' subclasses torch.Tensor, which is "
                                                  "not allowed")
            if node.name == "ModelNew" and dotted not in MODULE_BASES:
                shown = dotted or ast.unparse(base)
                if isinstance(base, ast.Name) and base.id == self.reference_class:
                    msg = f"ModelNew subclasses the reference class '{shown}', which is not allowed"
                else:
                    msg = f"ModelNew must derive from torch.nn.Module directly, not from '{shown}'"
                self.add(node, "subclass", msg)
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in TENSOR_HOOKS:
                self.add(item, "tensor-subclass", f"defining '{item.name}' is not allowed")
        self.generic_visit(node)


def _is_triton_jit(decorator: ast.expr, aliases: _AliasMap) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return aliases.dotted(target) in ("triton.jit", "triton.runtime.jit.jit")


def check_source(source: str, reference_class: str = "Model") -> list[Finding]:
    """All guard findings for candidate source, in line order; an empty list means it may run."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        text = (e.text or "").strip()
        where = f": {text}" if text else ""
        return [Finding(e.lineno or 0, "syntax", f"syntax error: {e.msg}{where}")]
    aliases = _AliasMap(tree)
    visitor = _Visitor(aliases, reference_class)
    visitor.visit(tree)
    findings = visitor.findings

    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ModelNew"]
    if not classes:
        findings.append(Finding(1, "structure", "the file must define 'class ModelNew(nn.Module)' at top level"))
    kernels = [n for n in tree.body if isinstance(n, ast.FunctionDef)
               and any(_is_triton_jit(d, aliases) for d in n.decorator_list)]
    if not kernels:
        # Kernels wrapped by @triton.autotune / @triton.heuristics still carry @triton.jit innermost.
        findings.append(Finding(1, "structure", "the file must define at least one @triton.jit kernel at top "
                                                "level"))
    return sorted(set(findings), key=lambda f: (f.line, f.rule, f.message))


def summarize(findings: list[Finding]) -> str:
    """One sentence for a verdict's reason: the first finding, plus how many more."""
    first = str(findings[0])
    more = len(findings) - 1
    return f"Rejected before running: {first}" + (f" (and {more} more)" if more else "")
