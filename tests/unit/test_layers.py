"""The layers' imports, read from the sources: the application layer (app/) is on top and nothing below imports
it; search/ and memory/ do not import each other; the server imports only the schema package and jsonstore from
the engine (and the package root, for its version). The schema package itself imports no torch."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "adaexplore_core"


def imported_modules(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports (relative imports resolved against ``package``), at any depth of the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)      # `from . import x` names a module
    return found


def package_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts if path.name == "__init__.py" else parts[:-1])


def imports_of(folder: Path) -> dict[str, set[str]]:
    return {str(p.relative_to(ROOT)): imported_modules(p, package_of(p)) for p in sorted(folder.rglob("*.py"))}


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_the_import_reader_resolves_relative_imports():
    path = ENGINE / "app" / "bench.py"
    modules = imported_modules(path, package_of(path))
    assert "adaexplore_core.search.bench" in modules and "adaexplore_core.app.wiring" in modules, modules


def test_nothing_below_the_application_layer_imports_it():
    for folder in ("search", "memory", "judge", "proposers", "schema"):
        for file, modules in imports_of(ENGINE / folder).items():
            assert not [m for m in modules if _within(m, "adaexplore_core.app")], file


def test_search_and_memory_do_not_import_each_other():
    for folder, other in (("search", "memory"), ("memory", "search")):
        for file, modules in imports_of(ENGINE / folder).items():
            bad = [m for m in modules if _within(m, f"adaexplore_core.{other}")]
            assert not bad, (file, bad)


def test_the_server_imports_only_the_schema_and_jsonstore_from_the_engine():
    allowed = ("adaexplore_core.schema", "adaexplore_core.jsonstore")
    for file, modules in imports_of(ROOT / "server").items():
        engine = [m for m in modules if _within(m, "adaexplore_core")]
        bad = [m for m in engine if m not in ("adaexplore_core", "adaexplore_core.__version__")
               and not any(_within(m, a) for a in allowed)]
        assert not bad, (file, bad)


def test_the_schema_package_needs_no_torch():
    for file, modules in imports_of(ENGINE / "schema").items():
        heavy = [m for m in modules if m.split(".")[0] in ("torch", "triton", "numpy")]
        outside = [m for m in modules if _within(m, "adaexplore_core") and not _within(m, "adaexplore_core.schema")]
        assert not heavy and not outside, (file, heavy, outside)
