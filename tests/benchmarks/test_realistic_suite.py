"""The realistic benchmark suite (benchmarks/realistic): its shape, and every module runs on the CPU.

Conventions the suite follows (see benchmarks/realistic/README.md):
- a first line ``# requires: a, b`` names the libraries a file imports besides torch; without them it is skipped;
- ``SMALL_SIZES`` maps the file's module-level size constants to small values; a CPU run sets them before calling
  ``get_init_inputs()`` and ``get_inputs()``, which read those constants when called;
- ``dtype`` (when defined) is the dtype of the module's parameters and floating inputs, and of its outputs unless
  the module upcasts (``UPCAST_OUTPUTS`` below).
"""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest
import torch

from adaexplore_core.search.bench import problem_files
from adaexplore_core.task import import_file

SUITE = Path(__file__).resolve().parents[2] / "benchmarks" / "realistic"
FILES = sorted(SUITE.glob("*.py"))
UPCAST_OUTPUTS = {"causal_lm_cross_entropy_bf16": torch.float32, "bce_with_logits_multilabel": torch.float32}
MAX_DECLARED_INPUT_BYTES = 2 << 30


def requirements(path: Path) -> list[str]:
    """The libraries a ``# requires: a, b`` first line names (none without that line)."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("# requires:"):
        return []
    return [name.strip() for name in first.removeprefix("# requires:").split(",") if name.strip()]


def missing(path: Path) -> list[str]:
    return [name for name in requirements(path) if importlib.util.find_spec(name) is None]


def load(path: Path, small: bool):
    module = import_file(str(path), prefix="realistic_suite")
    if small:
        for name, value in module.SMALL_SIZES.items():
            setattr(module, name, value)
    return module


def expected_dtype(path: Path, module) -> torch.dtype:
    return UPCAST_OUTPUTS.get(path.stem, getattr(module, "dtype", torch.float32))


def outputs(out) -> list[torch.Tensor]:
    return [out] if isinstance(out, torch.Tensor) else list(out)


def test_suite_has_enough_modules_and_library_ones():
    assert len(FILES) >= 25, [f.name for f in FILES]
    assert sum(1 for f in FILES if requirements(f)) >= 5
    assert problem_files([str(SUITE)]) == FILES     # what `adaexplore bench benchmarks/realistic` runs


def test_library_requirements_are_the_known_ones():
    named = {name for f in FILES for name in requirements(f)}
    assert named <= {"transformers", "torchvision", "timm"}, named
    assert named == {"transformers", "torchvision", "timm"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_file_declares_the_kernelbench_interface(path: Path):
    """Checked on the syntax tree, so files whose library is absent are checked too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstring = ast.get_docstring(tree)
    assert docstring and "\n" not in docstring.strip(), "one-line module docstring naming what it mirrors"
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    assert {"get_inputs", "get_init_inputs"} <= functions
    assert "Model" in classes
    constants = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in ast.walk(n)
                 if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    small = next(n.value for n in tree.body if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "SMALL_SIZES" for t in n.targets))
    names = ast.literal_eval(small)
    assert names and set(names) <= constants, f"SMALL_SIZES names no module constant: {set(names) - constants}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_declared_sizes_are_consistent_and_not_huge(path: Path):
    """At the declared sizes on the meta device: shapes agree, dtypes are as declared, inputs fit in 2 GiB."""
    if missing(path):
        pytest.skip(f"needs {', '.join(missing(path))}")
    module = load(path, small=False)
    with torch.device("meta"):
        inputs = module.get_inputs()
        model = module.Model(*module.get_init_inputs())
        with torch.no_grad():
            result = outputs(model(*inputs))
    size = sum(x.numel() * x.element_size() for x in inputs if isinstance(x, torch.Tensor))
    assert size <= MAX_DECLARED_INPUT_BYTES, f"inputs are {size / 2**30:.1f} GiB"
    declared = getattr(module, "dtype", torch.float32)
    assert all(x.dtype == declared for x in inputs if isinstance(x, torch.Tensor) and x.is_floating_point())
    assert all(p.dtype == declared for p in model.parameters())
    assert all(o.dtype == expected_dtype(path, module) for o in result)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_module_runs_at_small_sizes_on_the_cpu(path: Path):
    if missing(path):
        pytest.skip(f"needs {', '.join(missing(path))}")
    module = load(path, small=True)
    torch.manual_seed(0)
    model = module.Model(*module.get_init_inputs())
    inputs = module.get_inputs()
    assert all(x.device.type == "cpu" for x in inputs if isinstance(x, torch.Tensor))
    with torch.no_grad():
        result = outputs(model(*inputs))
    assert result
    for out in result:
        assert out.dtype == expected_dtype(path, module)
        assert torch.isfinite(out.float()).all()
