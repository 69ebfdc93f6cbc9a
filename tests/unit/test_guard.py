"""Pure tests of the static guard: each rule family names the right line and rule.

The adversarial corpus (tests/judge) checks whole hack files end to end; these pin the rules one
construct at a time, with the line number each finding must carry.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from adaexplore_core.judge.guard import Finding, check_source, summarize

ROOT = Path(__file__).resolve().parents[2]

# A minimal candidate the guard accepts: 12 lines, so code appended to it starts at line 13.
BASE = """\
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def k(x_ptr):
    pass

class ModelNew(nn.Module):
    def forward(self, x):
        return x
"""
NEXT_LINE = BASE.count("\n") + 1


def findings_of(extra: str = "", prefix: str = "") -> list[Finding]:
    return check_source(prefix + BASE + extra)


def only(findings: list[Finding]) -> Finding:
    assert len(findings) == 1, findings
    return findings[0]


def test_base_candidate_is_accepted():
    assert check_source(BASE) == []


# structure ---------------------------------------------------------------------------------------------

def test_syntax_error_names_its_line():
    f = only(check_source("x = 1\ny = 2\ndef f(:\n    pass\n"))
    assert (f.line, f.rule) == (3, "syntax")
    assert str(f).startswith("line 3: syntax error")


def test_missing_modelnew():
    f = only(check_source(BASE.replace("class ModelNew", "class Other")))
    assert f.rule == "structure" and "ModelNew" in f.message


def test_modelnew_nested_in_a_function_does_not_count():
    src = BASE.replace("class ModelNew(nn.Module):", "def make():\n  class ModelNew(nn.Module):")
    src = src.replace("    def forward", "      def forward").replace("        return x", "          return x")
    assert any(f.rule == "structure" and "ModelNew" in f.message for f in check_source(src))


def test_missing_triton_jit_kernel():
    src = BASE.replace("@triton.jit\n", "")
    f = only(check_source(src))
    assert f.rule == "structure" and "@triton.jit" in f.message


def test_autotune_without_jit_is_not_a_kernel():
    src = BASE.replace("@triton.jit\n", "@triton.autotune(configs=[], key=[])\n")
    assert [f.rule for f in check_source(src)] == ["structure"]


@pytest.mark.parametrize("decorators", [
    "@triton.autotune(configs=[triton.Config({'B': 32})], key=['n'])\n@triton.jit\n",
    "@triton.heuristics({'B': lambda args: 32})\n@triton.jit\n",
    "@triton.autotune(configs=[], key=[])\n@triton.heuristics({'B': lambda a: 1})\n@triton.jit\n",
    "@triton.jit(do_not_specialize=['x_ptr'])\n",
])
def test_wrapped_or_called_jit_still_counts(decorators):
    assert check_source(BASE.replace("@triton.jit\n", decorators)) == []


def test_jit_through_import_alias_counts():
    src = BASE.replace("import triton\n", "import triton as tr\nfrom triton import jit\n")
    src = src.replace("@triton.jit\n", "@jit\n")
    assert check_source(src) == []


# aliasing ----------------------------------------------------------------------------------------------

def test_import_alias_manual_seed():
    f = only(findings_of("import torch as T\nT.manual_seed(1)\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "global-state")
    assert "torch.manual_seed" in f.message


def test_from_import_cuda_synchronize_patch():
    f = only(findings_of("from torch import cuda\ndef f():\n    pass\ncuda.synchronize = f\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 3, "patch")
    assert "imported module" in f.message


def test_getattr_torch_cuda_synchronize_patch():
    f = only(findings_of('def f():\n    pass\ngetattr(torch, "cuda").synchronize = f\n'))
    assert (f.line, f.rule) == (NEXT_LINE + 2, "patch")


def test_alias_chain_patch():
    f = only(findings_of("def f():\n    pass\na = torch\nb = a.cuda\nb.synchronize = f\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 4, "patch")
    assert "imported module" in f.message


def test_alias_chain_call_resolves_to_torch():
    f = only(findings_of("a = torch\nb = a.cuda\nb.manual_seed(0)\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 2, "global-state")
    assert "torch.cuda.manual_seed" in f.message


def test_tuple_unpacking_alias_call():
    f = only(findings_of("a, b = torch, 1\na.manual_seed(1)\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "global-state")


# assignment targets ------------------------------------------------------------------------------------

def test_assignment_to_self_attribute_allowed():
    assert findings_of("class A:\n    def g(self):\n        self.x = 1\n        self.y += 2\n") == []


def test_assignment_to_nested_self_attribute_rejected():
    f = only(findings_of("class A:\n    def g(self):\n        self.x = 1\n        self.a.b = 2\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 3, "patch")
    assert "anything but self" in f.message


def test_assignment_to_local_object_attribute_rejected():
    f = only(findings_of("def g(o):\n    o.attr = 1\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "patch")


@pytest.mark.parametrize("stmt", ["o.attr += 1", "o.attr: int = 1", "del o.attr", "o.a, y = 1, 2"])
def test_other_assignment_forms_to_foreign_attribute_rejected(stmt):
    f = only(findings_of(f"def g(o):\n    y = 0\n    {stmt}\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 2, "patch")


def test_subscript_assignment_allowed():
    assert findings_of("def g(out, i, v):\n    out[i] = v\n    out[i:] += v\n") == []


def test_subscript_assignment_into_module_object_rejected():
    f = only(findings_of("def g(v):\n    triton.language.core[0] = v\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "patch")


# attributes --------------------------------------------------------------------------------------------

def test_private_attribute_rejected():
    f = only(findings_of("def g(x):\n    return x._foo\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "private")
    assert "'_foo'" in f.message


def test_private_attribute_of_module_shows_dotted_name():
    f = only(findings_of("y = torch._foo\n"))
    assert (f.line, f.rule) == (NEXT_LINE, "private")
    assert "torch._foo" in f.message


def test_self_private_attribute_allowed():
    assert findings_of("class A:\n    def g(self):\n        self._foo = 1\n        return self._foo\n") == []


@pytest.mark.parametrize("attr", ["gi_frame", "f_back", "f_globals", "tb_frame", "cr_frame"])
def test_frame_attributes_rejected(attr):
    f = only(findings_of(f"def g(o):\n    return o.{attr}\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "introspection")
    assert attr in f.message


def test_dunder_attribute_rejected_but_ordinary_dunders_allowed():
    f = only(findings_of("def g(o):\n    n = o.__name__\n    return o.__class__\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 2, "dunder")


def test_torch_os_escape():
    f = only(findings_of("p = torch.os.getcwd()\n"))
    assert (f.line, f.rule) == (NEXT_LINE, "import")
    assert "torch.os" in f.message


@pytest.mark.parametrize("stmt", ["from torch import os", "from typing import sys",
                                  "from numpy import os as o"])
def test_from_allowed_module_import_escape_module(stmt):
    f = only(findings_of(f"{stmt}\n"))
    assert (f.line, f.rule) == (NEXT_LINE, "import")


# imports -----------------------------------------------------------------------------------------------

def test_allowed_imports_accepted():
    prefix = "import math, functools\nfrom typing import Optional\nimport triton.language as tl\n"
    assert findings_of(prefix=prefix) == []


@pytest.mark.parametrize("stmt", [
    "import torch.utils.cpp_extension",
    "from torch.utils.cpp_extension import load_inline",
    "from torch.utils import cpp_extension",
    "import torch.multiprocessing as mp",
    "from torch import multiprocessing",
])
def test_banned_submodules(stmt):
    f = only(findings_of(prefix=f"x = 1\n{stmt}\n"))
    assert (f.line, f.rule) == (2, "import")
    assert "not allowed" in f.message


def test_call_of_banned_submodule_through_parent_import():
    f = only(findings_of("def g():\n    torch.utils.cpp_extension.load_inline('m', '')\n"))
    assert f.line == NEXT_LINE + 1 and f.rule == "import"


def test_disallowed_root_import_lists_allowlist():
    f = only(findings_of(prefix="import os\n"))
    assert (f.line, f.rule) == (1, "import")
    assert "'os'" in f.message and "allowed: " in f.message and "torch" in f.message


def test_relative_import_rejected():
    f = only(findings_of(prefix="from . import helper\n"))
    assert (f.line, f.rule) == (1, "import")


# findings order and summary ----------------------------------------------------------------------------

def test_findings_sorted_by_line():
    findings = findings_of("exec('1')\n", prefix="import os\n")
    assert [f.line for f in findings] == sorted(f.line for f in findings)
    assert [(f.line, f.rule) for f in findings] == [(1, "import"), (NEXT_LINE + 1, "builtin")]


def test_summarize_one_finding():
    text = summarize(findings_of(prefix="import os\n"))
    assert text.startswith("Rejected before running: line 1: import of 'os' is not allowed")
    assert "more)" not in text


def test_summarize_counts_the_rest():
    findings = findings_of("eval('1')\n", prefix="import os\nimport sys\n")
    assert len(findings) == 3
    text = summarize(findings)
    assert text.startswith("Rejected before running: line 1: import of 'os'")
    assert text.endswith(" (and 2 more)")


# realistic legit candidates ----------------------------------------------------------------------------

LEGIT = [ROOT / "adaexplore_core" / "examples" / "fused_bias_gelu_triton.py",
         *sorted((ROOT / "benchmarks" / "candidates").glob("*.py"))]


def test_legit_candidate_list_is_not_empty():
    assert len(LEGIT) >= 2 and all(p.is_file() for p in LEGIT)


@pytest.mark.parametrize("path", LEGIT, ids=lambda p: p.name)
def test_legit_candidates_have_no_findings(path):
    assert check_source(path.read_text(encoding="utf-8")) == []
