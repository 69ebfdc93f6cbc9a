"""Pure tests of the static guard: each rule names the right line, rule and construct.

The adversarial corpus (tests/judge) checks whole hack files end to end; these pin the rules one
construct at a time, with the line number each finding must carry, check that no legitimate candidate
(every built-in proposer candidate, the examples, the benchmarks, an LLM-style file) is refused, and compare
the static tables in ``allowlist.py`` with the installed torch and triton.
"""
from __future__ import annotations

import builtins
import random
import subprocess
import sys
import types
from pathlib import Path

import pytest

from adaexplore_core.judge import allowlist as A
from adaexplore_core.judge.guard import Finding, check_source, refusal_reason, summarize

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

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


def findings_of(extra: str = "", prefix: str = "", **kwargs) -> list[Finding]:
    return check_source(prefix + BASE + extra, **kwargs)


def only(findings: list[Finding]) -> Finding:
    assert len(findings) == 1, findings
    return findings[0]


def test_base_candidate_is_accepted():
    assert check_source(BASE) == []


def test_guard_imports_neither_torch_nor_triton():
    code = ("import sys, adaexplore_core.judge.guard as g; g.check_source('import torch'); "
            "print(sorted(m for m in ('torch', 'triton', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


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


# modules are resolved statically: aliases and module values ------------------------------------------

def test_import_alias_manual_seed():
    f = only(findings_of("import torch as T\nT.manual_seed(1)\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "module-attribute")
    assert "calling 'torch.manual_seed' is not allowed: it seeds the global RNG" in f.message


def test_from_import_cuda_synchronize_patch():
    f = only(findings_of("from torch import cuda\ndef f():\n    pass\ncuda.synchronize = f\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 3, "patch")
    assert "imported module" in f.message and "'torch.cuda.synchronize'" in f.message


@pytest.mark.parametrize("stmt, shown", [
    ("c = torch.cuda", "torch.cuda"),                   # the alias-patch route: c.synchronize = ...
    ("a, b = torch, 1", "torch"),
    ("print(tl)", "triton.language"),
    ("m = [torch][0]", "torch"),
    ("g = getattr(torch, 'cuda')", "torch.cuda"),
    ("def f(x=torch.nn):\n    return x", "torch.nn"),
])
def test_module_used_as_a_value_is_refused(stmt, shown):
    f = only(findings_of(stmt + "\n"))
    assert (f.line, f.rule) == (NEXT_LINE, "module-value")
    assert f"use of the module '{shown}' as a value is not allowed" in f.message


def test_getattr_on_a_module_is_the_module_attribute():
    f = only(findings_of("getattr(torch, 'os').system('x')\n"))
    assert (f.line, f.rule) == (NEXT_LINE, "module-attribute")
    assert f.message.startswith("calling 'torch.os.system' is not allowed")
    assert findings_of("d = getattr(torch, 'float32'), getattr(torch.cuda, 'synchronize', None)\n") == []
    f = only(findings_of("s = getattr(torch, 'set_' + 'default_dtype')\n"))
    assert f.rule == "builtin" and f.message.startswith("calling 'getattr' this way is not allowed")


def test_findings_within_a_line_follow_evaluation_order():
    findings = findings_of("def g(h):\n    return getattr(getattr(h, 'gi_frame'), 'f_back')\n")
    assert ["'gi_frame'" in f.message for f in findings] == [True, False]
    f = findings_of("def g(h):\n    return h[0].gi_frame.f_back\n")[0]
    assert f.message.startswith("the attribute 'gi_frame' (in 'h[0].gi_frame.f_back')")


def test_module_value_inside_a_function_import():
    f = only(findings_of("def g():\n    import torch.cuda as c\n    return c\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 2, "module-value") and "'torch.cuda'" in f.message


def test_rebinding_an_imported_name_is_refused():
    f = only(findings_of("tl = 3\n"))
    assert (f.line, f.rule) == (NEXT_LINE, "name") and "'tl'" in f.message


def test_local_name_shadowing_an_import_is_an_ordinary_object():
    # a parameter named like the import is a local value: its attributes follow the object rules only
    assert findings_of("def g(tl):\n    return tl.anything\n") == []


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
    assert "'o.attr'" in f.message


@pytest.mark.parametrize("stmt", ["o.attr += 1", "o.attr: int = 1", "del o.attr", "o.a, y = 1, 2",
                                  "for o.attr in range(2):\n        pass"])
def test_other_assignment_forms_to_foreign_attribute_rejected(stmt):
    f = only(findings_of(f"def g(o):\n    y = 0\n    {stmt}\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 2, "patch")


def test_a_method_read_through_its_class_is_refused():
    """Called through the class, any object is its self: ``self.x = v`` then patches torch (red team b2)."""
    src = "class A:\n    def put(self, v):\n        self.x = v\n\n\nA.put(torch.autograd.Function, 1)\n"
    f = only(findings_of(src))
    assert (f.line, f.rule) == (NEXT_LINE + 5, "attribute") and "'A.put'" in f.message
    assert only(findings_of("class A:\n    def put(self, v):\n        self.x = v\n\n\nput = A.put\n")).rule \
        == "attribute"                                        # as a value too
    static = "class F:\n    @staticmethod\n    def forward(x):\n        return x\n\n\ny = F.forward(1)\n"
    assert findings_of(static) == []                          # a static method has no self to replace
    assert findings_of("class A:\n    def put(self, v):\n        self.x = v\n\n\nA().put(1)\n") == []


@pytest.mark.parametrize("call", ["getattr(text, 'format')", "getattr(text, 'format_map')",
                                  "getattr('{0.x}', 'format')"])
def test_getattr_of_format_is_refused_like_the_attribute(call):
    """``getattr(text, "format")(obj)`` reads any attribute of obj (red team b1)."""
    f = only(findings_of(f"def g(text):\n    return {call}\n"))
    assert f.rule == "attribute" and "str.format" in f.message


def test_self_outside_a_method_is_not_self():
    f = only(findings_of("def g(self):\n    self.x = 1\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "patch")


def test_rebinding_self_is_refused():
    f = only(findings_of("class A:\n    def g(self, o):\n        self = o\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 2, "name") and "'self'" in f.message


def test_subscript_assignment_allowed():
    assert findings_of("def g(out, i, v):\n    out[i] = v\n    out[i:] += v\n") == []


def test_subscript_assignment_into_module_object_rejected():
    f = only(findings_of("def g(v):\n    tl.float32[0] = v\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "patch")
    assert "'triton.language.float32'" in f.message


def test_patch_of_module_attribute_rejected():
    f = only(findings_of("def f():\n    pass\ntorch.cuda.synchronize = f\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 2, "patch")
    assert "assigning to an attribute of an imported module is not allowed" in f.message


def test_patch_of_refused_flag_reports_the_whole_name_first():
    findings = findings_of("torch.backends.cuda.matmul.allow_tf32 = True\n")
    assert [f.rule for f in findings] == ["module-attribute"]
    assert "use of 'torch.backends.cuda.matmul.allow_tf32' is not allowed" in findings[0].message


# statements --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("stmt, rule, quoted", [
    ("def g():\n    global k", "global", "'global'"),
    ("def g():\n    x = 1\n    def h():\n        nonlocal x", "global", "'nonlocal'"),
    ("def g():\n    try:\n        pass\n    except Exception:\n        pass", "try", "try/except"),
    ("def g():\n    yield 1", "generator", "'yield'"),
    ("def g(x):\n    yield from x", "generator", "'yield from'"),
    ("async def g():\n    pass", "async", "async"),
])
def test_refused_statements(stmt, rule, quoted):
    findings = findings_of(stmt + "\n")
    assert any(f.rule == rule and quoted in f.message for f in findings), findings


@pytest.mark.parametrize("manager, quoted", [
    ("torch.cuda.stream(s)", "torch.cuda.stream(s)"),
    ("Quiet()", "Quiet()"),                            # a class of the file (its __exit__ is refused too)
    ("torch.autocast('cuda')", "torch.autocast('cuda')"),
    ("s", "s"),
])
def test_with_only_allowlisted_managers(manager, quoted):
    src = "class Quiet:\n    pass\ndef g(s):\n    with " + manager + ":\n        pass\n"
    findings = [f for f in findings_of(src) if f.rule == "with"]
    assert len(findings) == 1 and f"the context manager '{quoted}' is not allowed" in findings[0].message


def test_allowed_context_managers_and_generator_expressions():
    src = ("def g(x):\n    with torch.no_grad(), torch.inference_mode():\n        pass\n"
           "    with torch.enable_grad():\n        pass\n    with torch.cuda.device(x.device):\n"
           "        return sum(v for v in range(3)) + max([i for i in range(2)])\n")
    assert findings_of(src) == []


# names and builtins ------------------------------------------------------------------------------------

REFUSED_BUILTIN_USES = ["exec('1')", "eval('1')", "compile('1', 'f', 'exec')", "open('f')", "__import__('os')",
                        "globals()", "locals()", "vars(x)", "dir(x)", "setattr(x, 'a', 1)", "delattr(x, 'a')",
                        "type(x)", "type('T', (), {})", "id(x)", "hash(x)", "memoryview(b'')", "breakpoint()",
                        "input()", "help(x)", "exit()", "quit()", "SystemExit(0)", "KeyboardInterrupt()"]


@pytest.mark.parametrize("call", REFUSED_BUILTIN_USES)
def test_refused_builtin_calls(call):
    name = call.split("(")[0]
    findings = [f for f in findings_of(f"def g(x):\n    return {call}\n") if f.rule == "builtin"]
    f = only(findings)
    assert f.line == NEXT_LINE + 1
    assert f.message.startswith(f"calling '{name}' is not allowed: the builtin '{name}' ")


@pytest.mark.parametrize("stmt, name", [
    ("run = exec", "exec"),
    ("m = map(setattr, [], [], [])", "setattr"),
    ("def g(f=eval):\n    return f", "eval"),
    ("fs = [open, print]", "open"),
    ("b = __builtins__", "__builtins__"),
])
def test_refused_builtins_as_values(stmt, name):
    findings = findings_of(stmt + "\n")
    assert any(f"'{name}'" in f.message and f.line == NEXT_LINE for f in findings), findings
    if name != "__builtins__":
        assert any(f.message.startswith(f"the builtin '{name}' is not allowed, not even as a value")
                   for f in findings), findings


def test_partial_setattr_is_refused_twice_over():
    findings = findings_of("import functools\np = functools.partial(setattr, 1)\n")
    assert [(f.rule, f.line) for f in findings] == [("import", NEXT_LINE), ("builtin", NEXT_LINE + 1)]
    assert "'functools'" in findings[0].message and "'setattr'" in findings[1].message


@pytest.mark.parametrize("call", ["getattr(x, name)", "getattr(x, '_private')", "getattr(x, '__class__')",
                                  "getattr(x, 'data_ptr')", "hasattr(x, 'a', 1)", "getattr(*args)"])
def test_getattr_only_with_a_constant_public_name(call):
    findings = findings_of(f"def g(x, name, args):\n    return {call}\n")
    f = only(findings)
    assert f.line == NEXT_LINE + 1 and ("getattr" in f.message or "hasattr" in f.message or "'" in f.message)


def test_getattr_with_constant_public_name_allowed():
    assert findings_of("def g(x):\n    return getattr(x, 'bias', None), hasattr(x, 'weight')\n") == []


def test_refused_builtin_names_may_be_parameters_and_locals():
    src = "def g(input, id):\n    type = input\n    return type + id\n"
    assert findings_of(src) == []


@pytest.mark.parametrize("stmt", ["input = 1", "def exec():\n    pass", "from math import pi as type",
                                  "for open in range(2):\n    pass"])
def test_module_level_may_not_bind_refused_builtin_names(stmt):
    findings = findings_of(stmt + "\n")
    assert any(f.rule == "name" and "at module level" in f.message for f in findings), findings


def test_undefined_and_dunder_names():
    findings = findings_of("a = undefined_thing\nb = __loader__\nc = __name__\n")
    assert [(f.line, f.rule) for f in findings] == [(NEXT_LINE, "name"), (NEXT_LINE + 1, "builtin")]
    assert "'undefined_thing' is not defined in this file" in findings[0].message
    assert "'__loader__'" in findings[1].message


def test_class_body_names_do_not_leak_into_methods():
    f = only(findings_of("class A:\n    B = 1\n    def g(self):\n        return B\n"))
    assert f.rule == "name" and "'B'" in f.message


def test_module_level_dunder_hook_is_refused():
    f = only(findings_of("def __getattr__(name):\n    return 1\n"))
    assert (f.line, f.rule) == (NEXT_LINE, "name") and "'__getattr__'" in f.message


# attributes of other objects ---------------------------------------------------------------------------

def test_private_attribute_rejected():
    f = only(findings_of("def g(x):\n    return x._foo\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "private")
    assert "'_foo'" in f.message


def test_private_attribute_of_module_shows_dotted_name():
    f = only(findings_of("y = torch._foo\n"))
    assert (f.line, f.rule) == (NEXT_LINE, "module-attribute")
    assert "'torch._foo'" in f.message


def test_self_private_attribute_allowed():
    assert findings_of("class A:\n    def g(self):\n        self._foo = 1\n        return self._foo\n") == []


def test_self_private_attribute_the_file_does_not_define_is_refused():
    f = only(findings_of("class A:\n    def g(self):\n        return self._modules\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 2, "private") and "'_modules'" in f.message


@pytest.mark.parametrize("attr", ["gi_frame", "f_back", "f_globals", "tb_frame", "cr_frame", "f_locals", "mro",
                                  "data_ptr", "untyped_storage", "storage", "_typed_storage", "set_",
                                  "share_memory_", "dump", "tofile", "numpy", "os", "sys", "builtins", "ctypes",
                                  "register_forward_hook", "register_hook", "register_forward_pre_hook",
                                  "add_pre_run_hook", "_forward_hooks"])
def test_refused_object_attributes(attr):
    f = only(findings_of(f"def g(o):\n    return o.{attr}\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "attribute")
    assert f"the attribute '{attr}' (in 'o.{attr}') is not allowed" in f.message


@pytest.mark.parametrize("attr", ["warmup", "run", "launch_metadata", "packed_metadata"])
def test_triton_compiled_launcher_is_refused(attr):
    """Red team (2026-12-02): kernel.warmup(...) and a launch's value are Triton's CompiledKernel, whose launcher
    takes a raw stream and is not counted by the judge."""
    f = only(findings_of(f"def g(o):\n    return o.{attr}\n"))
    assert f.rule == "attribute" and "Triton's compiled launcher" in f.message


@pytest.mark.parametrize("code", ["def g(x):\n    c = k[(1,)](x)\n    return c\n",
                                  "def g(x):\n    return k[(1,)](x)\n",
                                  "def g(x):\n    x.add_(k[(1,)](x))\n"])
def test_the_value_of_a_launch_is_refused(code):
    f = only(findings_of(code))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "launch") and "launch kernels as statements" in f.message


@pytest.mark.parametrize("code", ["def g(x):\n    kk = k\n    c = kk[(1,)](x)\n    return c\n",
                                  "def g(c, x):\n    c[(1,)](x, **{'stream': 2})\n",
                                  "def g(x):\n    return torch.zeros(1, **{'pin_memory': True})\n",
                                  "def g(c, x, m):\n    c[(1,)](x, **m)\n"])
def test_the_launcher_rules_hold_through_aliases_and_keyword_unpacking(code):
    """Review (2026-12-02): an alias of a kernel and '**' hid a launch's value and a stream from the rules."""
    assert any(f.rule in ("launch", "keyword") for f in findings_of(code)), findings_of(code)


def test_a_launch_as_a_statement_and_module_list_calls_are_fine():
    assert findings_of("def g(x, layers):\n    k[(1,)](x)\n    return layers[0](x)\n") == []


def test_the_stream_keyword_is_refused():
    f = only(findings_of("def g(c, x):\n    c[(1,)](x, stream=2)\n"))
    assert f.rule == "keyword" and "'stream='" in f.message and "streams or events" in f.message


@pytest.mark.parametrize("code", ["def g(x):\n    return torch.zeros(1, pin_memory=True)\n",
                                  "def g(x):\n    return x.pin_memory()\n", "def g(x):\n    return x.is_pinned()\n"])
def test_pinned_host_memory_is_refused(code):
    f = only(findings_of(code))
    assert "pinned host memory" in f.message


@pytest.mark.parametrize("attr", ["__class__", "__dict__", "__globals__", "__subclasses__", "__builtins__",
                                  "__code__", "__self__", "__closure__"])
def test_dunder_attributes_rejected(attr):
    f = only(findings_of(f"def g(o):\n    return o.{attr}\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "dunder") and f"'{attr}'" in f.message


def test_ordinary_dunders_allowed():
    src = ("class A(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
           "        nn.Module.__init__(self)\ndef g(o):\n    return o.__name__\n")
    assert findings_of(src) == []


@pytest.mark.parametrize("test", ["if m._forward_hooks or m._forward_pre_hooks:\n        return 1\n",
                                  "return 1 if not m._forward_hooks else 2\n",
                                  "return bool(m._forward_pre_hooks) and len(m._forward_hooks) > 0\n",
                                  "while m._forward_hooks:\n        break\n",
                                  "return any(n._forward_hooks or n._forward_pre_hooks for n in m.modules())\n",
                                  "if m._backward_hooks or m._backward_pre_hooks:\n        return 1\n"])
def test_reading_whether_a_module_has_hooks_is_allowed(test):
    assert findings_of(f"def g(m):\n    {test}") == []


@pytest.mark.parametrize("use", ["return m._forward_hooks", "m._forward_hooks.clear()",
                                 "h = m._forward_hooks or {}", "return list(m._forward_pre_hooks)",
                                 "if m._forward_hooks.popitem():\n        pass",
                                 "m._forward_hooks[0] = print",
                                 "return max(n._forward_hooks for n in m.modules())",
                                 "return [n._forward_hooks for n in m.modules()]",
                                 "return m._backward_hooks", "m._backward_pre_hooks.clear()"])
def test_any_other_use_of_the_hook_dicts_is_refused(use):
    f = findings_of(f"def g(m):\n    {use}\n")
    assert f and any("_forward_" in x.message or "_backward_" in x.message for x in f)


@pytest.mark.parametrize("read", ["return m._parameters.get('weight')", "return m._buffers.get('running_mean')",
                                  "return self._modules.get('0')._parameters.get('bias')"])
def test_reading_a_module_state_slot_by_constant_key_is_allowed(read):
    assert findings_of(f"def g(self, m):\n    {read}\n") == []


@pytest.mark.parametrize("use", ["return m._parameters", "return m._parameters['weight']",
                                 "return m._parameters.get(name)", "return m._buffers.get('w', x)",
                                 "return m._modules.pop('fc')", "m._parameters['w'] = x", "del m._buffers['b']",
                                 "return m._modules.get(key='fc')", "return m._modules.items()",
                                 "return getattr(m, '_parameters').get('w')"])
def test_any_other_use_of_the_state_slots_is_refused(use):
    f = findings_of(f"def g(m, name, x, key):\n    {use}\n")
    assert f and any("_parameters" in x.message or "_buffers" in x.message or "_modules" in x.message for x in f)


def test_hook_on_a_module_class_is_refused():
    f = only(findings_of("h = nn.Module.register_forward_hook\n"))
    assert f.rule == "attribute" and "'register_forward_hook'" in f.message


def test_match_class_keyword_patterns_follow_the_attribute_rules():
    src = "def g(x):\n    match x:\n        case object(__class__=c, data_ptr=p):\n            return c\n"
    findings = findings_of(src)
    assert sorted((f.line, f.rule) for f in findings) == [(NEXT_LINE + 2, "attribute"), (NEXT_LINE + 2, "dunder")]
    assert "'__class__'" in " ".join(f.message for f in findings)


def test_format_string_reading_dunders_is_refused():
    f = only(findings_of("def g(x):\n    return '{0.__class__}'.format(x)\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "attribute") and "str.format" in f.message


@pytest.mark.parametrize("source", [
    "def g(x, fmt):\n    return fmt.format(x)\n",                              # made at run time
    "def g(x):\n    return ('{0.gi' + '_frame}').format(x)\n",
    "def g(x):\n    return str.format('{0}', x)\n",
    "def g(x):\n    return '{0.gi_frame.f_back}'.format(x)\n",                  # no dunder, still a walk
    "def g(x):\n    return '{0[key]}'.format_map({'0': x})\n",
])
def test_format_strings_are_literals_with_plain_fields(source):
    f = only(findings_of(source))
    assert f.rule == "attribute" and "str.format" in f.message, f.message


@pytest.mark.parametrize("source", ["def g(x):\n    return '{} and {0:.2f} {name!r:>8}'.format(x, x, name=x)\n",
                                    "def g(x):\n    return '{:.3e}'.format(x)\n"])
def test_plain_format_fields_are_fine(source):
    assert findings_of(source) == []


def test_dunder_keys_are_refused():
    f = only(findings_of("def g(scope):\n    return scope['__builtins__']\n"))
    assert f.rule == "dunder" and "'__builtins__'" in f.message
    assert findings_of("def g(d):\n    return d['weight']\n") == []


def test_kernel_objects_keep_their_globals():
    f = only(findings_of("def g():\n    return k.get_capture_scope()\n"))
    assert "get_capture_scope" in f.message and "globals" in f.message


def test_integer_to_pointer_casts_are_refused():
    f = only(findings_of("def g(a):\n    return a.to(tl.pointer_type(tl.int64))\n"))
    assert "triton.language.pointer_type" in f.message and "any memory" in f.message


@pytest.mark.parametrize("reference_import, expr", [
    ("import torch.utils.checkpoint", "torch.utils.checkpoint.torch.library.Library('aten', 'IMPL')"),
    ("import numpy as np", "np.lib.stride_tricks.as_strided"),
    ("import numpy as np", "np.frombuffer"),
    ("import numpy as np", "np.fromregex('creds.txt', '(.*)', [('line', 'U99')])"),   # red team b18
    ("import numpy as np", "np.savez_compressed"),
    ("import numpy as np", "getattr(np, 'fromregex')"),
    ("import torch.utils.checkpoint", "torch.utils.checkpoint.os.listdir('.')"),
    ("import torch.utils.checkpoint", "getattr(torch.utils.checkpoint, 'sys')"),
])
def test_paths_below_a_reference_import_do_not_reach_other_modules_or_raw_memory(reference_import, expr):
    reference = reference_import + "\n" + BASE
    f = findings_of(f"def g():\n    return {expr}\n", prefix=reference_import + "\n", reference_source=reference)
    assert any("is not allowed" in x.message and ("library imports for itself" in x.message or
                                                  "raw memory" in x.message) for x in f), f
    ok = findings_of("def g(x):\n    return torch.utils.checkpoint.checkpoint(torch.relu, x, use_reentrant=False)\n",
                     prefix="import torch.utils.checkpoint\n", reference_source="import torch.utils.checkpoint\n" + BASE)
    assert ok == [], ok


# module attributes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, shown", [
    ("torch.os.getcwd()", "torch.os.getcwd"),
    ("torch.glob", "torch.glob"),
    ("torch.serialization.load('f')", "torch.serialization.load"),
    ("torch.serialization.tarfile", "torch.serialization.tarfile"),
    ("torch.UntypedStorage.from_file('f')", "torch.UntypedStorage.from_file"),
    ("torch.get_device_module('cuda')", "torch.get_device_module"),
    ("torch.cuda.Stream()", "torch.cuda.Stream"),
    ("torch.cuda.current_stream()", "torch.cuda.current_stream"),
    ("torch.cuda.Event(enable_timing=True)", "torch.cuda.Event"),
    ("torch.cuda.graph", "torch.cuda.graph"),
    ("torch.cuda.is_current_stream_capturing()", "torch.cuda.is_current_stream_capturing"),
    ("torch.cuda.empty_cache()", "torch.cuda.empty_cache"),
    ("torch.cuda.manual_seed(0)", "torch.cuda.manual_seed"),
    ("torch.set_default_dtype(torch.float64)", "torch.set_default_dtype"),
    ("torch.set_grad_enabled(False)", "torch.set_grad_enabled"),
    ("torch.overrides.TorchFunctionMode", "torch.overrides.TorchFunctionMode"),
    ("torch.utils.data.DataLoader", "torch.utils.data.DataLoader"),
    ("torch.utils.cpp_extension.load_inline('m', '')", "torch.utils.cpp_extension.load_inline"),
    ("torch._C._get_tracing_state()", "torch._C._get_tracing_state"),
    ("torch.backends.cudnn.benchmark", "torch.backends.cudnn.benchmark"),
    ("torch.random.manual_seed(0)", "torch.random.manual_seed"),
    ("torch.manual_seed(0)", "torch.manual_seed"),
    ("torch.get_rng_state()", "torch.get_rng_state"),
    ("torch.compile(f)", "torch.compile"),
    ("torch.library.custom_op", "torch.library.custom_op"),
    ("torch.ops.aten.add.Tensor", "torch.ops.aten.add.Tensor"),
    ("torch.save(f, 'p')", "torch.save"),
    ("torch.load('p')", "torch.load"),
    ("torch.from_file('p')", "torch.from_file"),
    ("torch.hub.load('a', 'b')", "torch.hub.load"),
    ("torch.autocast('cuda')", "torch.autocast"),
    ("torch.jit.script(f)", "torch.jit.script"),
    ("torch.nn.modules.module.register_module_forward_hook(f)",
     "torch.nn.modules.module.register_module_forward_hook"),
    ("nn.utils.parametrize", "torch.nn.utils.parametrize"),
    ("torch.nn.functional.importlib", "torch.nn.functional.importlib"),
    ("torch.nn.functional.np", "torch.nn.functional.np"),
    ("triton.runtime.driver", "triton.runtime.driver"),
    ("triton.knobs.runtime", "triton.knobs.runtime"),
    ("triton.testing.do_bench(f)", "triton.testing.do_bench"),
    ("triton.compile(f)", "triton.compile"),
    ("tl.core.builtin", "triton.language.core.builtin"),
    ("tl.extra.cuda.globaltimer()", "triton.language.extra.cuda.globaltimer"),
    ("tl.fast_relu(f)", "triton.language.fast_relu"),
])
def test_refused_module_attributes(expr, shown):
    f = only(findings_of(f"def g(f):\n    return {expr}\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "module-attribute")
    verb = "calling" if expr.endswith(")") else "use of"
    assert f.message.startswith(f"{verb} '{shown}' is not allowed: "), f.message


def test_refusals_give_their_reason():
    assert "global RNG" in only(findings_of("torch.manual_seed(0)\n")).message
    assert "streams" in only(findings_of("s = torch.cuda.Stream()\n")).message
    assert "compiler" in only(findings_of("c = torch.compile\n")).message
    assert "library operators" in only(findings_of("a = torch.ops.aten\n")).message
    assert "imports for itself" in only(findings_of("o = torch.os\n")).message
    assert "allowlist for 'torch'" in only(findings_of("o = torch.not_a_real_name\n")).message


@pytest.mark.parametrize("expr", [
    "torch.empty(3, device='cuda', dtype=torch.float32)", "torch.nn.functional.gelu(x)", "nn.init.zeros_(x)",
    "torch.cuda.synchronize()", "torch.cuda.get_device_properties(0).multi_processor_count",
    "torch.cuda.is_available()", "torch.finfo(torch.float16).max", "torch.Size([2, 3])", "tl.extra.cuda.libdevice.tanh",
    "tl.math.erf", "math.sqrt(2.0)", "torch.linalg.vector_norm(x)", "torch.fft.rfft(x)", "operator.getitem(x, 0)",
    "itertools.product([1], [2])", "typing.Optional[int]", "torch.Tensor.add", "x.stride(0) * x.numel()",
    "torch.functional.norm(x)", "torch.autograd.Function", "tl.PropagateNan.ALL",
])
def test_allowed_module_attributes(expr):
    prefix = "import math, operator, itertools, typing\n"
    assert findings_of(f"def g(x):\n    return {expr}\n", prefix=prefix) == []


# imports -----------------------------------------------------------------------------------------------

def test_allowed_imports_accepted():
    prefix = ("import math, operator, itertools\nfrom typing import Optional\nimport triton.language as tl\n"
              "from triton.language.extra import libdevice\nfrom triton.language.extra.cuda import libdevice as ld\n"
              "import torch.nn.functional as F\nfrom torch.nn import functional, init\nfrom torch import nn\n")
    assert findings_of(prefix=prefix) == []


@pytest.mark.parametrize("stmt, shown", [
    ("import numpy as np", "numpy"),
    ("import functools", "functools"),
    ("from functools import partial", "functools"),
    ("from operator import attrgetter", "operator.attrgetter"),
    ("from operator import methodcaller", "operator.methodcaller"),
    ("import collections", "collections"),
    ("import dataclasses", "dataclasses"),
    ("import contextlib", "contextlib"),
    ("from typing import get_type_hints", "typing.get_type_hints"),
    ("import torch.utils.cpp_extension", "torch.utils.cpp_extension"),
    ("from torch.utils.cpp_extension import load_inline", "torch.utils.cpp_extension"),
    ("from torch.utils import cpp_extension", "torch.utils"),
    ("import torch.multiprocessing as mp", "torch.multiprocessing"),
    ("from torch import multiprocessing", "torch.multiprocessing"),
    ("from torch import os", "torch.os"),
    ("from typing import sys", "typing.sys"),
    ("from numpy import os as o", "numpy"),
    ("from builtins import exec as run_code", "builtins"),
    ("import torch.backends.cuda", "torch.backends.cuda"),
    ("import triton.runtime", "triton.runtime"),
])
def test_refused_imports(stmt, shown):
    f = only(findings_of(prefix=f"x = 1\n{stmt}\n"))
    assert (f.line, f.rule) == (2, "import")
    assert f.message.startswith(f"import of '{shown}' is not allowed: "), f.message


def test_disallowed_root_import_lists_allowlist():
    f = only(findings_of(prefix="import os\n"))
    assert (f.line, f.rule) == (1, "import")
    assert "'os'" in f.message and "allowed: " in f.message and "torch" in f.message


def test_relative_and_star_imports_rejected():
    assert only(findings_of(prefix="from . import helper\n")).rule == "import"
    f = only(findings_of(prefix="from math import *\n"))
    assert f.rule == "import" and "'from math import *'" in f.message


def test_uses_of_a_refused_import_are_not_reported_again():
    findings = findings_of("def g(x):\n    return np.savetxt('f', x)\n", prefix="import numpy as np\n")
    assert [f.rule for f in findings] == ["import"]


# the reference's own imports ---------------------------------------------------------------------------

REFERENCE = """\
import os
import torch
import torch.nn as nn
import einops
import transformers.models.llama
from transformers.models.llama.modeling_llama import LlamaMLP

class Model(LlamaMLP):
    pass
"""


def test_candidate_may_repeat_the_reference_imports_and_subclass_its_base():
    prefix = ("import einops\nimport transformers.models.llama\n"
              "from transformers.models.llama.modeling_llama import LlamaMLP as Base\n")
    src = prefix + BASE.replace("class ModelNew(nn.Module):", "class ModelNew(Base):") + \
        "def g(x):\n    y = einops.rearrange(x, 'a b -> b a')\n    return transformers.models.llama.LlamaConfig(y)\n"
    assert check_source(src, "Model", REFERENCE) == []
    without = check_source(src, "Model")
    assert [f.rule for f in without].count("import") == 3


def test_reference_imports_follow_the_object_rules():
    src = BASE + "def g():\n    return einops.__dict__, transformers.models._private\n"
    findings = check_source("import einops\nimport transformers.models.llama\n" + src, "Model", REFERENCE)
    assert sorted(f.rule for f in findings) == ["dunder", "module-attribute"]
    assert "'transformers.models._private'" in next(f.message for f in findings if f.rule == "module-attribute")
    f = only(check_source("import transformers.models.llama\n" + BASE + "t = transformers\n", "Model", REFERENCE))
    assert f.rule == "module-value" and "'transformers'" in f.message


def test_reference_imports_do_not_unlock_os_or_other_names():
    f = only(check_source("import os\n" + BASE, "Model", REFERENCE))
    assert f.rule == "import" and "'os'" in f.message
    f = only(check_source("from transformers.models.llama.modeling_llama import LlamaAttention\n" + BASE, "Model",
                          REFERENCE))
    assert f.rule == "import"


def test_modelnew_may_not_subclass_another_base_than_the_references():
    src = "from transformers.models.llama.modeling_llama import LlamaMLP\n" + BASE.replace(
        "class ModelNew(nn.Module):", "class ModelNew(LlamaMLP):")
    plain_reference = "import torch.nn as nn\nfrom transformers.models.llama.modeling_llama import LlamaMLP\n" \
                      "class Model(nn.Module):\n    pass\n"
    f = only(check_source(src, "Model", plain_reference))
    assert f.rule == "subclass" and "torch.nn.Module directly" in f.message
    assert check_source(BASE, "Model", REFERENCE) == []          # nn.Module stays fine


# classes -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["__exit__", "__enter__", "__torch_function__", "__torch_dispatch__",
                                    "__getattr__", "__del__", "__call__", "__init_subclass__"])
def test_classes_may_define_no_dunder_but_init(method):
    f = only(findings_of(f"class A:\n    def {method}(self, *a):\n        pass\n"))
    assert (f.line, f.rule) == (NEXT_LINE + 1, "class") and f"may not define '{method}'" in f.message


def test_class_dunder_attributes_and_keywords_are_refused():
    findings = findings_of("class A:\n    __slots__ = ()\nclass B(metaclass=A):\n    pass\n")
    assert [(f.line, f.rule) for f in findings] == [(NEXT_LINE + 1, "class"), (NEXT_LINE + 2, "class")]
    assert "'__slots__'" in findings[0].message and "'metaclass='" in findings[1].message


@pytest.mark.parametrize("base, via", [("torch.Tensor", ""), ("nn.Parameter", " (through 'torch.nn.Parameter')")])
def test_tensor_subclasses_refused(base, via):
    f = only(findings_of(f"class T({base}):\n    pass\n"))
    assert f.rule == "tensor-subclass" and f"class 'T' subclasses torch.Tensor{via}, which is not allowed" in f.message


@pytest.mark.parametrize("base", ["dict", "typing.Generic", "torch.nn.modules.Module", "nn.DataParallel"])
def test_other_class_bases_refused(base):
    findings = findings_of(f"class T({base}):\n    pass\n", prefix="import typing\n")
    assert any(f.rule == "class" and "may not subclass" in f.message for f in findings) or \
        any(f.rule == "module-attribute" for f in findings), findings


def test_allowed_class_bases():
    src = ("class Fn(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
           "        ctx.save_for_backward(x)\n        return x\n    @staticmethod\n    def backward(ctx, g):\n"
           "        x, = ctx.saved_tensors\n        return g\n"
           "class Err(ValueError):\n    pass\nclass Lin(nn.Linear):\n    pass\nclass Sub(Lin):\n    pass\n"
           "class Plain(object):\n    pass\n")
    assert findings_of(src) == []


def test_modelnew_must_derive_from_nn_module_directly():
    f = only(check_source(BASE.replace("class ModelNew(nn.Module):", "class ModelNew(nn.Linear):")))
    assert f.rule == "subclass" and "'torch.nn.Linear'" in f.message
    src = BASE.replace("class ModelNew(nn.Module):", "class Model(nn.Module):\n    pass\nclass ModelNew(Model):")
    f = only(check_source(src))
    assert f.message == "ModelNew subclasses the reference class 'Model', which is not allowed"


@pytest.mark.parametrize("decorator", ["@functools.lru_cache", "@torch.compile", "@helper", "@torch.jit.script"])
def test_refused_decorators(decorator):
    src = f"def helper(f):\n    return f\n{decorator}\ndef g():\n    pass\n"
    findings = findings_of(src, prefix="import functools\n")
    assert any(f.rule == "decorator" and f"'{decorator}'" in f.message for f in findings), findings


def test_allowed_decorators():
    src = ("class A:\n    @property\n    def v(self):\n        return 1\n    @v.setter\n    def v(self, x):\n"
           "        pass\n    @classmethod\n    def c(cls):\n        return cls\n    @torch.no_grad()\n"
           "    def f(self):\n        pass\n")
    assert findings_of(src) == []


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


# no false positives ------------------------------------------------------------------------------------

LEGIT = [ROOT / "adaexplore_core" / "examples" / "fused_bias_gelu_triton.py",
         *sorted((ROOT / "benchmarks" / "candidates").glob("*.py"))]
CORPUS = TESTS / "data" / "judge"
# Every corpus case the judge must accept. (Invalid cases expected at later stages are not all honest
# mistakes: several are cheats that the allowlist now stops at the guard.)
VALID_CASES = [p for p in sorted((CORPUS / "candidates").glob("*/*.py"))
               if p.read_text(encoding="utf-8").startswith("# expect: verdict=valid")]


def test_legit_candidate_list_is_not_empty():
    assert len(LEGIT) >= 2 and all(p.is_file() for p in LEGIT)
    assert len(VALID_CASES) >= 10


@pytest.mark.parametrize("path", LEGIT, ids=lambda p: p.name)
def test_legit_candidates_have_no_findings(path):
    assert check_source(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", VALID_CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_valid_corpus_cases_have_no_findings(path):
    reference = (CORPUS / "refs" / f"{path.parent.name}.py").read_text(encoding="utf-8")
    assert check_source(path.read_text(encoding="utf-8"), "Model", reference) == []


# What the LLM prompts ask for, written the way models write it: autotune, heuristics, libdevice, a backward
# kernel, typing, math, module state, a property, getattr with a default, a test block under __main__.
LLM_STYLE = '''\
from __future__ import annotations

import math
from typing import Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.autotune(
    configs=[triton.Config({"BLOCK_SIZE": b}, num_warps=w) for b in (256, 1024) for w in (4, 8)],
    key=["n_elements"],
)
@triton.heuristics({"EVEN": lambda args: args["n_elements"] % args["BLOCK_SIZE"] == 0})
@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = 0.5 * x * (1.0 + libdevice.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def gelu(x: torch.Tensor) -> torch.Tensor:
    assert x.is_contiguous(), "expects a contiguous input"
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    with torch.cuda.device(x.device):
        gelu_kernel[grid](x, out, n)
    return out


class _Gelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return gelu(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * torch.sigmoid(1.702 * x)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True) -> None:
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        self._scale = 1.0 / math.sqrt(in_features)
        self.blocks = nn.ModuleList([nn.Identity() for _ in range(2)])

    @property
    def scale(self) -> float:
        return self._scale

    @torch.no_grad()
    def reset(self) -> None:
        nn.init.kaiming_uniform_(self.linear.weight, a=math.sqrt(5))

    def forward(self, x: torch.Tensor, input: Optional[torch.Tensor] = None) -> torch.Tensor:
        if x.dim() != 2:
            raise ValueError(f"expected a 2-D input, got {tuple(x.shape)}")
        bias = getattr(self.linear, "bias", None)
        y = F.linear(x, self.linear.weight, bias).contiguous()
        if not isinstance(y, torch.Tensor) or y.dtype not in (torch.float32, torch.float16):
            raise NotImplementedError("only float tensors")
        shapes: Tuple[int, ...] = tuple(int(s) for s in y.shape)
        del shapes
        for block in self.blocks:
            y = block(y)
        return _Gelu.apply(y) * self.scale if input is None else _Gelu.apply(y + input)


batch_size = 16


def get_inputs():
    return [torch.randn(batch_size, 32)]


def get_init_inputs():
    return [32, 64]


if __name__ == "__main__":
    model = ModelNew(*get_init_inputs())
    print(model(*get_inputs()).shape, sum(p.numel() for p in model.parameters()))
'''


def test_llm_style_candidate_passes():
    assert check_source(LLM_STYLE) == []


def _proposer_sources(path: Path, knob_variants: int = 2) -> list[str]:
    """Every plan the built-in proposer has for ``path`` (default and random knobs), generated without the
    proposer's own guard call, so that a refusal shows up here as findings rather than a ProposalError."""
    from adaexplore_core.proposers.base import ProposalRequest
    from adaexplore_core.proposers.builtin.codegen import generate
    from adaexplore_core.proposers.builtin.proposer import BuiltinProposer, _random_knobs
    from adaexplore_core.task import TaskSpec

    proposer = BuiltinProposer()
    rng = random.Random(0)
    sources = []
    for graph, plan in proposer.plans(ProposalRequest(task=TaskSpec.parse(str(path)))):
        sources.append(generate(graph, plan, {}))
        sources += [generate(graph, plan, _random_knobs(plan, rng)) for _ in range(knob_variants)]
    return sources


PROPOSER_REFERENCES = sorted((TESTS / "data" / "proposers").glob("*.py"))   # not unsupported/


@pytest.mark.parametrize("path", PROPOSER_REFERENCES, ids=lambda p: p.stem)
def test_every_builtin_proposer_candidate_passes(path):
    sources = _proposer_sources(path)
    assert sources, "the proposer has no plan for this reference"
    reference = path.read_text(encoding="utf-8")
    failures = [(s, check_source(s, "Model", reference)) for s in sources]
    failures = [f"{findings}\n{s}" for s, findings in failures if findings]
    assert not failures, f"{len(failures)} of {len(sources)} candidates refused:\n" + "\n\n".join(failures[:2])


def _kernelbench_problems() -> list:
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    from support.kernelbench import kernelbench_dir
    folder = kernelbench_dir()
    if folder is None:
        return [pytest.param(None, id="absent", marks=pytest.mark.skip(reason="../shared/kernelbench is absent"))]
    return [pytest.param(p, id=f"{p.parent.name}/{p.stem}") for level in ("level1", "level2")
            for p in sorted((folder / level).glob("*.py"))]


@pytest.mark.kernelbench
@pytest.mark.parametrize("problem", _kernelbench_problems())
def test_builtin_proposer_candidates_for_kernelbench_pass(problem, tmp_path):
    from support.kernelbench import shrunk_source

    from adaexplore_core.proposers.base import ProposalError
    file = tmp_path / problem.name
    file.write_text(shrunk_source(problem), encoding="utf-8")
    try:
        sources = _proposer_sources(file, knob_variants=0)
    except ProposalError as e:           # unsupported module or a reference broken by shrinking
        pytest.skip(str(e)[:120])
    if not sources:
        pytest.skip("the built-in proposer has no plan for this problem")
    for source in sources:
        assert check_source(source, "Model", problem.read_text(encoding="utf-8")) == [], source


# the static tables against the installed torch and triton ---------------------------------------------

def _installed(module: str):
    import importlib
    for key in A.MODULES:            # submodules (triton.language.extra.libdevice) are attributes once imported
        importlib.import_module(key)
    return importlib.import_module(module)


def _public(module: types.ModuleType) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")}


@pytest.mark.parametrize("module", sorted(A.MODULES))
def test_every_allowed_name_exists(module):
    installed = _installed(module)
    missing = sorted(n for n in A.MODULES[module] if not hasattr(installed, n))
    assert not missing, f"{module} has no {missing}: drop them from allowlist.py"


@pytest.mark.parametrize("module", sorted(A.MODULES))
def test_allowed_modules_are_exactly_the_listed_submodules(module):
    """A module-valued name must be a MODULES key (so the guard follows it); nothing else may be a module."""
    installed = _installed(module)
    for name in A.MODULES[module]:
        is_module = isinstance(getattr(installed, name), types.ModuleType)
        assert is_module == (f"{module}.{name}" in A.MODULES), f"{module}.{name}"
    parent, _, last = module.rpartition(".")
    if parent:
        assert parent in A.MODULES and last in A.MODULES[parent], module


@pytest.mark.parametrize("module", ["torch", "torch.nn", "torch.nn.functional", "torch.cuda", "triton",
                                    "triton.language"])
def test_every_public_name_is_decided(module):
    """An upgrade that adds names fails here until each is allowed in MODULES or refused in REFUSED."""
    import pkgutil
    installed = _installed(module)
    names = _public(installed) | {m.name for m in pkgutil.iter_modules(getattr(installed, "__path__", []))
                                  if not m.name.startswith("_")}    # lazily imported submodules too (torch.onnx)
    undecided = sorted(n for n in names if n not in A.MODULES[module] and refusal_reason(f"{module}.{n}") is None)
    assert not undecided, f"decide about {module}: {undecided}"


def test_triton_language_allows_its_whole_api_but_inline_assembly_and_pointer_casts():
    tl = _installed("triton.language")
    assert A.TRITON_LANGUAGE == set(tl.__all__) - {"inline_asm_elementwise", "pointer_type"}
    assert "triton.language.inline_asm_elementwise" in A.REFUSED and "triton.language.pointer_type" in A.REFUSED
    assert A.LIBDEVICE == _public(_installed("triton.language.extra.libdevice"))
    assert A.CUDA_LIBDEVICE == _public(_installed("triton.language.extra.cuda.libdevice")) - {"core"}


def test_refusals_and_allowlist_do_not_overlap():
    for key in A.REFUSED:
        if "*" in key:
            continue
        module, _, name = key.rpartition(".")
        assert name not in A.MODULES.get(module, ()), key


def test_builtin_tables_are_builtins():
    assert A.BUILTINS <= set(dir(builtins))
    assert set(A.BUILTIN_REASONS) <= set(dir(builtins)) | {"BaseExceptionGroup"}
    assert A.BUILTINS & set(A.BUILTIN_REASONS) == {"getattr", "hasattr"}     # reasons for their misuse


def test_autograd_function_ctx_attributes_are_its_own():
    source = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.empty_like(x)
        double_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        ctx.n = x.numel()
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class ModelNew(nn.Module):
    def forward(self, x):
        return Double.apply(x)
'''
    assert check_source(source) == []


def test_inline_assembly_is_refused():
    findings = check_source('''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def clock_kernel(out_ptr):
    now = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64, is_pure=False, pack=1)
    tl.store(out_ptr, now)


class ModelNew(nn.Module):
    def forward(self, x):
        return x
''')
    assert any("inline_asm_elementwise" in str(f) for f in findings)


def test_getattr_is_refused_as_a_value():
    findings = check_source("lookup = getattr\nx = lookup(object(), '__class__')\n")
    assert any("'getattr' is not allowed as a value" in str(f) for f in findings)
