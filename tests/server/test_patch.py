"""patch.py: merging a search's best.py into the user's document. The original class stays as
``<Class>Reference``; kernels, launchers and the new class (best.py's ModelNew, renamed) follow it; imports
are added once; what the document already defines is not duplicated; no line of the user's code is lost.

tests/data/server/best_scale.py is a real best.py of the built-in proposer: ``generate(capture(spec),
make_plan(...), device_type="cpu")`` for ``tests/data/server/scale_document.py::Scale`` (``adaexplore propose``
refuses it since the guard checks names: the document's Wrapper, copied along, uses Scale)."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adaexplore_server import analysis, patch
from adaexplore_server.analysis import Position
from adaexplore_server.patch import PatchError, TextEdit

DATA = Path(__file__).resolve().parents[1] / "data" / "server"
DOCUMENT = (DATA / "scale_document.py").read_text(encoding="utf-8")
BEST = (DATA / "best_scale.py").read_text(encoding="utf-8")
ENCODINGS = ("utf-16", "utf-8", "utf-32")

# A smaller hand-written best.py: an autotuned kernel (multi-line decorators), a launcher, a helper, a
# constant and a class copied from the document, other top-level statements, and ModelNew.
SMALL_BEST = textwrap.dedent('''\
    """best.py's docstring: not carried."""
    import torch
    import torch.nn as nn
    import triton
    import triton.language as tl

    BLOCK_A, BLOCK_B = 128, 256


    @triton.autotune(
        configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})],
        key=["n"],
    )
    @triton.jit
    def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


    def double(x):
        out = torch.empty_like(x)
        double_kernel[(triton.cdiv(x.numel(), 128),)](x, out, x.numel())
        return out


    def fresh_helper(x):
        return x


    FACTOR = 2.0


    class Block(nn.Module):
        def forward(self, x):
            return x


    class ModelNew(nn.Module):
        """ModelNew: the Triton version."""

        def __init__(self, features: int):
            super(ModelNew, self).__init__()
            self.features = features

        def forward(self, x):
            assert isinstance(self, ModelNew)
            return double(fresh_helper(x))


    if __name__ == "__main__":
        print(ModelNew(4))
''')


def module_named(text: str, name: str, encoding: str = "utf-16") -> analysis.ModuleClass:
    return next(m for m in analysis.find_modules(text, encoding) if m.name == name)


def patched(text: str, name: str, best: str, encoding: str = "utf-16") -> str:
    module = module_named(text, name, encoding)
    return patch.apply_edits(text, patch.build_edits(text, module, best, encoding), encoding)


def top_level(text: str) -> list[tuple[str, str]]:
    """(kind, name) of every top-level definition, in order."""
    out = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.append((type(node).__name__, node.name))
        elif isinstance(node, ast.Assign):
            out.extend(("Assign", t.id) for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(("Import", ast.unparse(node)))
    return out


def is_subsequence(needles: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(any(line == h for h in it) for line in needles)


def class_source(text: str, name: str) -> str:
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == name)
    return ast.get_source_segment(text, node)


# --- the realistic case ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def scale_patched() -> str:
    return patched(DOCUMENT, "Scale", BEST)


def test_the_patch_states_its_envelope_above_the_class(scale_patched):
    lines = scale_patched.splitlines()
    at = lines.index("class Scale(nn.Module):")
    assert lines[at - 1] == ("# Triton path: cpu float32 inputs (B, 16), train and eval, no autograd; every other "
                             "call runs the original forward."), lines[at - 2: at + 1]


def test_patched_text_parses(scale_patched):
    ast.parse(scale_patched)
    assert analysis.syntax_error(scale_patched) == ""


def test_original_renamed_with_its_self_references(scale_patched):
    reference = class_source(scale_patched, "ScaleReference")
    original = class_source(DOCUMENT, "Scale")
    assert reference == original.replace("class Scale(", "class ScaleReference(").replace(
        "super(Scale, self)", "super(ScaleReference, self)")
    assert re.search(r"\bScale\b", reference.replace('"""Multiply, shift, GELU."""', "")) is None


def test_new_class_takes_the_original_name(scale_patched):
    new = class_source(scale_patched, "Scale")
    assert "super(Scale, self).__init__()" in new
    assert "mul_add_gelu_0(x, shift)" in new
    assert "ModelNew" not in scale_patched
    assert "# AdaExplore: the Triton version of Scale; the original is ScaleReference above." in scale_patched


def test_layout_of_the_patched_document(scale_patched):
    assert top_level(scale_patched) == [
        ("Import", "import torch"),
        ("Import", "import torch.nn as nn"),
        ("Import", "import triton"),
        ("Import", "import triton.language as tl"),
        ("Assign", "SCALE"),
        ("FunctionDef", "helper"),
        ("ClassDef", "ScaleReference"),
        ("FunctionDef", "memory_order"),
        ("FunctionDef", "inner_sizes"),
        ("FunctionDef", "mul_add_gelu_0_kernel"),
        ("FunctionDef", "mul_add_gelu_0"),
        ("ClassDef", "Scale"),                # SCALE, helper and Wrapper are the document's: not duplicated
        ("ClassDef", "Wrapper"),
        ("FunctionDef", "get_inputs"),
        ("FunctionDef", "get_init_inputs"),
    ]
    assert "@triton.jit\ndef mul_add_gelu_0_kernel(" in scale_patched


def test_every_line_of_the_document_is_kept(scale_patched):
    module = module_named(DOCUMENT, "Scale")
    lines = DOCUMENT.split("\n")
    expected = [re.sub(r"\bScale\b(?=[(,])", "ScaleReference", line)
                if module.range.start.line <= row <= module.range.end.line else line
                for row, line in enumerate(lines)]
    assert is_subsequence(expected, scale_patched.split("\n"))
    assert "        self.inner = Scale(16)" in scale_patched.split("\n")   # uses now get the Triton version


def test_edits_are_an_import_insertion_and_the_class_replacement():
    module = module_named(DOCUMENT, "Scale")
    imports, cls = patch.build_edits(DOCUMENT, module, BEST)
    assert imports == TextEdit(Position(3, 0), Position(3, 0), "import triton\nimport triton.language as tl\n")
    assert (cls.start, cls.end) == (module.range.start, module.range.end)
    assert cls.text.startswith("class ScaleReference(nn.Module):")


def test_patched_module_runs(tmp_path, scale_patched):
    """Import the patched document (Triton interpreter on the CPU): the new Scale runs the kernel and matches
    ScaleReference with the same weights; Wrapper now builds the new Scale."""
    (tmp_path / "patched_scale.py").write_text(scale_patched, encoding="utf-8")
    check = textwrap.dedent('''\
        import torch, patched_scale as m
        new, ref = m.Scale(16), m.ScaleReference(16)
        with torch.no_grad():
            new.shift.normal_()
        ref.load_state_dict(new.state_dict())
        x = torch.randn(4, 16)
        torch.testing.assert_close(new(x), ref(x))                 # grad mode: the original forward
        calls = []
        triton_forward = new._triton_forward
        new._triton_forward = lambda *a: calls.append(1) or triton_forward(*a)
        with torch.no_grad():
            torch.testing.assert_close(new(x), ref(x))             # inference: the Triton path
        assert calls == [1]
        assert type(m.Wrapper().inner) is m.Scale and m.Scale is not m.ScaleReference
        print("ok")
    ''')
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


# --- renaming -------------------------------------------------------------------------------------------

RENAME_DOC = textwrap.dedent('''\
    import torch.nn as nn


    class Model(nn.Module):
        """Model's docstring mentions Model."""
        registry = {}

        def __init__(self, features: int):
            super(Model, self).__init__()
            Model.registry["Model"] = Model   # a comment about Model
            self.features = features

        def forward(self, x):
            if isinstance(x, Model):
                return x
            return x * 2

        @classmethod
        def make(cls) -> "Model":
            return Model(4)


    class ModelUser(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = Model(4)
            self.ModelName = "Model"
''')


def test_rename_touches_code_not_strings_or_comments():
    text = patched(RENAME_DOC, "Model", SMALL_BEST)
    reference = class_source(text, "ModelReference")
    assert "super(ModelReference, self).__init__()" in reference
    assert 'ModelReference.registry["Model"] = ModelReference   # a comment about Model' in reference
    assert "isinstance(x, ModelReference)" in reference
    assert "return ModelReference(4)" in reference
    assert '"""Model\'s docstring mentions Model."""' in reference
    assert '-> "Model":' in reference
    user = class_source(text, "ModelUser")                       # other classes are not touched
    assert user == class_source(RENAME_DOC, "ModelUser")
    new = class_source(text, "Model")
    assert "super(Model, self).__init__()" in new and "isinstance(self, Model)" in new
    assert '"""ModelNew: the Triton version."""' in new          # inside strings: kept as it was


def test_rename_leaves_attributes_of_other_objects_alone():
    doc = textwrap.dedent('''\
        import torch.nn as nn


        class Linear(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                return self.fc(x)
    ''')
    reference = class_source(patched(doc, "Linear", SMALL_BEST), "LinearReference")
    assert "self.fc = nn.Linear(4, 4)" in reference


@pytest.mark.parametrize("taken, expected", [
    (set(), "ModelReference"),
    ({"ModelReference"}, "ModelReference_"),
    ({"ModelReference", "ModelReference_"}, "ModelReference__"),
    ({"Model", "Other"}, "ModelReference"),
])
def test_reference_name(taken, expected):
    assert patch.reference_name("Model", taken) == expected


def test_name_collision_picks_another_name():
    doc = RENAME_DOC + "\n\nclass ModelReference:\n    pass\n"
    text = patched(doc, "Model", SMALL_BEST)
    ast.parse(text)
    assert "super(ModelReference_, self).__init__()" in class_source(text, "ModelReference_")
    assert class_source(text, "ModelReference") == "class ModelReference:\n    pass"
    assert "the original is ModelReference_ above" in text
    assert [n for _, n in top_level(text)].count("ModelReference") == 1


def test_name_collision_with_a_definition_of_best_py():
    best = SMALL_BEST.replace("def fresh_helper(x):", "def ModelReference(x):").replace(
        "double(fresh_helper(x))", "double(ModelReference(x))")
    text = patched(RENAME_DOC, "Model", best)
    names = [n for _, n in top_level(text)]
    assert names.count("ModelReference") == 1 and "ModelReference_" in names
    assert "class ModelReference_(nn.Module):" in text


# --- what is carried and what is not --------------------------------------------------------------------

def test_definitions_carried_once_and_other_statements_dropped():
    doc = RENAME_DOC + "\n\nFACTOR = 3.0\n\n\nclass Block(nn.Module):\n    pass\n"
    text = patched(doc, "Model", SMALL_BEST)
    names = [n for _, n in top_level(text)]
    for name in ("double_kernel", "double", "fresh_helper", "FACTOR", "Block", "Model", "ModelReference"):
        assert names.count(name) == 1, name
    assert "FACTOR = 3.0" in text and "FACTOR = 2.0" not in text        # the document's value stays
    assert "BLOCK_A, BLOCK_B = 128, 256" in text                         # tuple assignments are carried
    assert "__main__" not in text
    assert "best.py's docstring" not in text
    assert "@triton.autotune(\n    configs=[" in text and '    key=["n"],\n)\n@triton.jit\ndef double_kernel(' in text


def test_definitions_missing_from_the_document_are_added():
    text = patched(RENAME_DOC, "Model", SMALL_BEST)
    names = [n for _, n in top_level(text)]
    assert names.index("ModelReference") < names.index("double_kernel") < names.index("double") \
        < names.index("fresh_helper") < names.index("FACTOR") < names.index("Block") < names.index("Model") \
        < names.index("ModelUser")


def test_a_copy_of_the_original_class_in_best_py_is_not_added():
    best = SMALL_BEST.replace("class Block(nn.Module):", "class Model(nn.Module):")
    text = patched(RENAME_DOC, "Model", best)
    assert [n for _, n in top_level(text)].count("Model") == 1
    assert "isinstance(self, Model)" in class_source(text, "Model")


# --- imports --------------------------------------------------------------------------------------------

def import_lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if re.match(r"(import|from) \S", line)]


def test_imports_added_once_after_the_last_import():
    doc = textwrap.dedent('''\
        """Docstring."""
        from __future__ import annotations

        import os
        import torch.nn as nn
        from torch import Tensor

        X = 1


        class Model(nn.Module):
            def forward(self, x):
                return x
    ''')
    text = patched(doc, "Model", SMALL_BEST)
    assert import_lines(text) == ["from __future__ import annotations", "import os", "import torch.nn as nn",
                                  "from torch import Tensor", "import torch", "import triton",
                                  "import triton.language as tl"]
    assert text.split("\n")[5:9] == ["from torch import Tensor", "import torch", "import triton",
                                     "import triton.language as tl"]


def test_imports_already_there_are_not_repeated():
    doc = "import torch\nimport triton\nimport torch.nn as nn\n\n\n" + RENAME_DOC.split("\n", 1)[1]
    module = module_named(doc, "Model")
    edits = patch.build_edits(doc, module, SMALL_BEST)
    assert edits[0] == TextEdit(Position(3, 0), Position(3, 0), "import triton.language as tl\n")
    text = patch.apply_edits(doc, edits)
    assert sorted(import_lines(text)) == sorted(["import torch", "import triton", "import torch.nn as nn",
                                                 "import triton.language as tl"])


def test_no_import_edit_when_every_import_is_there():
    doc = "import torch\nimport torch.nn as nn\nimport triton\nimport  triton.language  as tl\n" + \
        RENAME_DOC.split("\n", 1)[1]
    edits = patch.build_edits(doc, module_named(doc, "Model"), SMALL_BEST)
    assert len(edits) == 1
    assert len(re.findall(r"^import +triton", patch.apply_edits(doc, edits), re.M)) == 2


def test_document_without_imports_gets_them_at_the_top():
    doc = "class Model(nn.Module):\n    def forward(self, x):\n        return x\n"
    edits = patch.build_edits(doc, module_named(doc, "Model"), SMALL_BEST)
    assert edits[0].start == edits[0].end == Position(0, 0)
    text = patch.apply_edits(doc, edits)
    assert text.startswith("import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n"
                           "class ModelReference(nn.Module):")
    ast.parse(text)


def test_patching_twice_adds_nothing_twice():
    once = patched(DOCUMENT, "Scale", BEST)
    twice = patched(once, "Scale", BEST)
    ast.parse(twice)
    names = [n for _, n in top_level(twice)]
    for name in ("memory_order", "inner_sizes", "mul_add_gelu_0_kernel", "mul_add_gelu_0", "SCALE", "helper",
                 "Wrapper", "ScaleReference", "Scale"):
        assert names.count(name) == 1, name
    assert "ScaleReference_" in names
    assert import_lines(twice) == import_lines(once)


def test_imports_precede_the_inserted_kernels_when_an_import_follows_the_class():
    doc = textwrap.dedent('''\
        import torch.nn as nn


        class Model(nn.Module):
            def forward(self, x):
                return x


        import os
    ''')
    text = patched(doc, "Model", SMALL_BEST)
    assert text.index("import triton\n") < text.index("@triton.autotune")


def test_an_import_inside_a_function_does_not_count():
    doc = textwrap.dedent('''\
        import torch
        import torch.nn as nn


        def lazy():
            import triton
            return triton


        class Model(nn.Module):
            def forward(self, x):
                return x
    ''')
    text = patched(doc, "Model", SMALL_BEST)
    assert "import triton" in [line for line in import_lines(text)]


# --- errors ---------------------------------------------------------------------------------------------

def test_best_without_model_new():
    best = SMALL_BEST.replace("ModelNew", "SomethingElse")
    with pytest.raises(PatchError, match="^the result file has no ModelNew class$"):
        patch.build_edits(RENAME_DOC, module_named(RENAME_DOC, "Model"), best)


def test_best_with_model_new_only_in_a_string_or_nested():
    best = 'import torch\nNAME = "ModelNew"\n\n\ndef f():\n    class ModelNew:\n        pass\n'
    with pytest.raises(PatchError, match="no ModelNew class"):
        patch.build_edits(RENAME_DOC, module_named(RENAME_DOC, "Model"), best)


def test_best_with_a_syntax_error():
    best = SMALL_BEST.replace("def fresh_helper(x):", "def fresh_helper(x:")
    line = best.split("\n").index("def fresh_helper(x:") + 1
    with pytest.raises(PatchError, match=rf"^the result file does not parse \(.+ at line {line}\)$"):
        patch.build_edits(RENAME_DOC, module_named(RENAME_DOC, "Model"), best)


def test_empty_best():
    with pytest.raises(PatchError, match="no ModelNew class"):
        patch.build_edits(RENAME_DOC, module_named(RENAME_DOC, "Model"), "")


def test_document_with_a_syntax_error():
    broken = RENAME_DOC + "\n\ndef unfinished(:\n"
    line = broken.split("\n").index("def unfinished(:") + 1
    module = module_named(broken, "Model")
    with pytest.raises(PatchError, match=rf"^the document has a syntax error \(.+ at line {line}\); fix it first$"):
        patch.build_edits(broken, module, SMALL_BEST)


# --- positions in every encoding ------------------------------------------------------------------------

UNICODE_DOC = textwrap.dedent('''\
    """Café ☕, emoji 😀, 中文 before the class."""
    import torch.nn as nn

    GREETING = "😀😀 héllo 中文"  # 😀


    @register("😀")
    class Model(nn.Module):  # é😀
        """Docstring with 😀 and 中文."""

        def __init__(self, features: int):
            super(Model, self).__init__()
            self.label = "Model 😀"

        def forward(self, x):
            return x * len("😀中é")  # the last line ends after emoji 😀😀


    after = Model(3)  # 😀 after the class
''')


def test_unicode_document_patches_the_same_in_every_encoding():
    results = {encoding: patched(UNICODE_DOC, "Model", SMALL_BEST, encoding) for encoding in ENCODINGS}
    assert results["utf-16"] == results["utf-8"] == results["utf-32"]
    text = results["utf-16"]
    ast.parse(text)
    reference = class_source(text, "ModelReference")
    assert reference == class_source(UNICODE_DOC, "Model").replace("class Model(", "class ModelReference(") \
        .replace("super(Model, self)", "super(ModelReference, self)")
    assert '@register("😀")\nclass ModelReference(nn.Module):  # é😀' in text
    assert 'return x * len("😀中é")  # the last line ends after emoji 😀😀\n\n\nBLOCK_A, BLOCK_B = 128, 256\n\n\n' \
        '@triton.autotune(' in text
    assert text.endswith('\n\nafter = Model(3)  # 😀 after the class\n')
    assert text.startswith('"""Café ☕, emoji 😀, 中文 before the class."""\nimport torch.nn as nn\nimport torch\n')
    assert 'GREETING = "😀😀 héllo 中文"  # 😀' in text


def test_unicode_positions_differ_by_encoding():
    """The same class, three different end positions: the encodings really are exercised."""
    ends = {encoding: module_named(UNICODE_DOC, "Model", encoding).range.end for encoding in ENCODINGS}
    assert {e.line for e in ends.values()} == {15}
    assert ends["utf-32"].character < ends["utf-16"].character < ends["utf-8"].character
    # positions of one encoding read in another land elsewhere: the result differs
    module = module_named(UNICODE_DOC, "Model", "utf-32")
    wrong = patch.apply_edits(UNICODE_DOC, patch.build_edits(UNICODE_DOC, module, SMALL_BEST, "utf-32"), "utf-8")
    assert wrong != patched(UNICODE_DOC, "Model", SMALL_BEST, "utf-16")


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_apply_edits_in_each_encoding(encoding):
    text = "a😀b\né中c\nlast"
    def at(line: int, column: int) -> Position:
        return Position(line, analysis.units(text.split("\n")[line][:column], encoding))
    edits = [TextEdit(at(0, 1), at(0, 2), "[E]"),        # replace the emoji
             TextEdit(at(1, 2), at(1, 2), "+"),          # insert after 中
             TextEdit(at(0, 3), at(1, 0), " "),          # join the first two lines
             TextEdit(at(2, 4), at(2, 4), "!")]
    assert patch.apply_edits(text, edits, encoding) == "a[E]b é中+c\nlast!"
    assert patch.apply_edits(text, [], encoding) == text


def test_statements_with_effects_at_import_are_refused():
    best = SMALL_BEST.replace("BLOCK_A, BLOCK_B = 128, 256", "torch.manual_seed(0)")
    with pytest.raises(PatchError, match=r"runs a statement at import \(line \d+: 'torch.manual_seed\(0\)'\)"):
        patch.build_edits(RENAME_DOC, module_named(RENAME_DOC, "Model"), best)
