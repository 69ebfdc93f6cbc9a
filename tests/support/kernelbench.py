"""KernelBench problems from ../shared/kernelbench, shrunk so the Triton interpreter can run them on a CPU.

The problems are read where they lie (never copied into the project); tests skip when the folder is absent.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = [ROOT.parent / "shared" / "kernelbench", ROOT / "shared" / "kernelbench"]
SMALL = 8


def kernelbench_dir() -> Path | None:
    return next((p for p in CANDIDATES if (p / "level1").is_dir()), None)


class _Shrink(ast.NodeTransformer):
    """Module-level integer constants above SMALL become SMALL (sizes, channels, groups alike)."""

    def visit_Module(self, node: ast.Module) -> ast.Module:
        for stmt in node.body:
            if isinstance(stmt, ast.Assign):
                stmt.value = self._shrink(stmt.value)
        return node

    def _shrink(self, value: ast.expr) -> ast.expr:
        if isinstance(value, ast.Constant) and isinstance(value.value, int) and not isinstance(value.value, bool) \
                and value.value > SMALL:
            return ast.Constant(SMALL)
        if isinstance(value, ast.BinOp):          # 16384 * 2 and friends
            value.left, value.right = self._shrink(value.left), self._shrink(value.right)
        if isinstance(value, ast.Tuple):
            value.elts = [self._shrink(e) for e in value.elts]
        return value


def shrunk_source(path: Path) -> str:
    """The problem's source with its sizes shrunk; the model itself is unchanged."""
    tree = _Shrink().visit(ast.parse(path.read_text()))
    return ast.unparse(ast.fix_missing_locations(tree))
