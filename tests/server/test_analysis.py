"""analysis.py: which classes are nn.Modules, their ranges in every LSP position encoding, where example
inputs come from (get_inputs or the ``# adaexplore:`` annotation), and the text helpers built on them.
Pure functions on text: no torch, no server."""
from __future__ import annotations

import sys
import textwrap
import types

import pytest

from adaexplore_server import analysis
from adaexplore_server.analysis import Position, Range

ENCODINGS = ("utf-16", "utf-8", "utf-32")


def names(text: str, encoding: str = "utf-16") -> list[str]:
    return [m.name for m in analysis.find_modules(text, encoding)]


def only(text: str, name: str, encoding: str = "utf-16"):
    found = [m for m in analysis.find_modules(text, encoding) if m.name == name]
    assert len(found) == 1, names(text, encoding)
    return found[0]


def dedent(text: str) -> str:
    return textwrap.dedent(text)


# --- which classes are modules ---------------------------------------------------------------------------

@pytest.mark.parametrize("header, base", [
    ("import torch.nn as nn", "nn.Module"),
    ("import torch", "torch.nn.Module"),
    ("import torch.nn", "torch.nn.Module"),
    ("from torch.nn import Module", "Module"),
    ("from torch.nn import Linear, Module, ReLU", "Module"),
    ("from torch.nn.modules.module import Module", "Module"),
    ("from torch.nn import Module as M", "M"),
    ("import torch.nn as tnn", "tnn.Module"),
    ("from torch import nn", "nn.Module"),
    ("from torch import nn as tn", "tn.Module"),
])
def test_module_bases(header, base):
    text = f"{header}\n\n\nclass Net({base}):\n    def forward(self, x):\n        return x\n"
    module = only(text, "Net")
    assert module.bases == [base]
    assert module.forward is not None


def test_module_with_other_arguments_in_the_class_header():
    text = "import torch.nn as nn\n\nclass Net(Mixin, nn.Module, metaclass=Meta):\n    pass\n"
    assert names(text) == ["Net"]


@pytest.mark.parametrize("header, base", [
    ("", "object"),
    ("", "Exception"),
    ("import torch.nn as nn", "nn.Linear"),           # only Module itself, or a module class of this file
    ("import torch.nn as nn", "nn.ModuleList"),
    ("import foo", "foo.Module"),                      # another library's Module
    ("from mylib import Module", "Module"),            # not torch.nn's
    ("from torch.nn import ModuleList", "ModuleList"),
    ("from torch.nn import ModuleList", "Module"),     # Module itself is not imported
    ("import torch.nn as tnn", "tnn.Modules"),
    ("import torch.nn as tnn", "Generic[T]"),
])
def test_other_bases_are_not_modules(header, base):
    text = f"{header}\n\n\nclass Other({base}):\n    def forward(self, x):\n        return x\n"
    assert names(text) == []


def test_plain_class_is_not_a_module():
    text = dedent('''\
        import torch.nn as nn


        class Plain:
            def forward(self, x):
                return x


        class Child(Plain):
            def forward(self, x):
                return x
    ''')
    assert names(text) == []


def test_local_subclasses_of_module_classes():
    text = dedent('''\
        import torch.nn as nn


        class Helper:
            pass


        class Base(nn.Module):
            pass


        class Child(Base):
            def forward(self, x):
                return x


        class GrandChild(Child, Helper):
            pass


        class NotOne(Helper):
            pass
    ''')
    modules = analysis.find_modules(text)
    assert [m.name for m in modules] == ["Base", "Child", "GrandChild"]
    assert modules[2].bases == ["Child", "Helper"]
    assert modules[1].forward is not None and modules[0].forward is None


def test_decorated_classes_range_starts_at_the_decorator():
    text = dedent('''\
        import torch.nn as nn
        from dataclasses import dataclass


        @register("net")
        @dataclass(eq=False)
        class Net(nn.Module):
            @torch.no_grad()
            def forward(self, x):
                return x


        @register("plain")
        class Plain:
            pass
    ''')
    module = only(text, "Net")
    assert module.range.start == Position(4, 0)
    assert module.name_range == Range(Position(6, 6), Position(6, 9))
    assert module.source.startswith('@register("net")\n@dataclass(eq=False)\nclass Net(nn.Module):')
    assert module.forward is not None and module.forward.end == Position(9, 16)   # the decorated forward
    assert module.forward.start.line in (7, 8)
    assert names(text) == ["Net"]


def test_classes_nested_in_functions_or_classes_are_not_reported():
    text = dedent('''\
        import torch.nn as nn


        def factory():
            class Inner(nn.Module):
                pass
            return Inner


        class Outer(nn.Module):
            class Nested(nn.Module):
                pass
    ''')
    assert names(text) == ["Outer"]


def test_classes_inside_top_level_if_and_try_blocks_are_not_offered():
    """By design (see _class_nodes): Apply could not place a new class at their indentation."""
    text = dedent('''\
        import torch.nn as nn

        try:
            class Tried(nn.Module):
                def forward(self, x):
                    return x
        except ImportError:
            pass

        if True:
            class Guarded(nn.Module):
                def forward(self, x):
                    return x

        class Top(nn.Module):
            def forward(self, x):
                return x
    ''')
    assert names(text) == ["Top"]


def test_forward_found_and_absent():
    text = dedent('''\
        import torch.nn as nn


        class WithForward(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                return x


        class WithoutForward(nn.Module):
            def __init__(self):
                super().__init__()

            def helper(self, forward):
                return forward


        class NestedForwardOnly(nn.Module):
            def outer(self):
                def forward(x):
                    return x
                return forward
    ''')
    assert only(text, "WithForward").forward == Range(Position(7, 4), Position(8, 16))
    assert only(text, "WithoutForward").forward is None
    assert only(text, "NestedForwardOnly").forward is None


def test_module_source_and_digest():
    text = "import torch.nn as nn\n\nclass A(nn.Module):\n    pass\n\nclass B(nn.Module):\n    pass\n"
    a, b = analysis.find_modules(text)
    assert a.source == "class A(nn.Module):\n    pass"
    assert a.digest() != b.digest()
    edited = text.replace("class A(nn.Module):\n    pass", "class A(nn.Module):\n    x = 1")
    a2, b2 = analysis.find_modules(edited)
    assert a2.digest() != a.digest() and b2.digest() == b.digest()


# --- half-typed files ------------------------------------------------------------------------------------

COMPLETE = dedent('''\
    import torch
    import torch.nn as nn


    class First(nn.Module):
        def __init__(self, n: int):
            super().__init__()
            self.n = n

        def forward(self, x):
            return torch.relu(x) * self.n


    class Second(First):
        def forward(self, x):
            return x + 1

''')


@pytest.mark.parametrize("tail", [
    "x = foo(1, 2\n",                                        # unclosed paren after the classes
    "class Third(nn.Module):\n    def forward(self, x):\n        return torch.cat([x, x\n",
    "class Third(nn.Module):\n    def forward(self, x",   # unclosed parameter list
    "class Third(nn.Mod",                                     # the header being typed
    "class Third(",
    "class ",
    "class Third(nn.Module):\n",                              # missing body
    "class Third(nn.Module):\n    def forward(self, x):\n",  # missing method body
    "def get_inputs(:\n    return [",
    "@decorator(\n",
    ")))]]]",
    "\"\"\"an unterminated docstring\n\nclass Third(nn.Module):\n    pass\n",
])
def test_half_typed_tail_keeps_the_complete_classes(tail):
    text = COMPLETE + tail
    found = {m.name: m for m in analysis.find_modules(text)}
    assert "First" in found and "Second" in found
    assert found["First"].forward is not None and found["Second"].forward is not None
    assert found["First"].range.start == Position(4, 0)
    assert found["Second"].range.end == Position(15, 20)
    assert set(found) <= {"First", "Second", "Third"}


def test_half_typed_class_in_the_middle():
    text = dedent('''\
        import torch.nn as nn


        class Typing(nn.Module):

        class Done(nn.Module):
            def forward(self, x):
                return x
    ''')
    assert only(text, "Done").forward == Range(Position(6, 4), Position(7, 16))


def test_every_prefix_of_a_document_is_analysed_without_raising():
    """The document as it is being typed, one character at a time: never raises, ranges stay inside the
    text, and First is found with its forward once it is complete."""
    text = COMPLETE + "def get_inputs():\n    return [torch.randn(2, 3)]\n"
    first_end = text.index("self.n\n") + len("self.n")
    for cut in range(len(text) + 1):
        prefix = text[:cut]
        lines = prefix.split("\n")
        for module in analysis.find_modules(prefix):
            assert module.name.isidentifier()
            for r in (module.range, module.name_range):
                assert r.start.line <= r.end.line < len(lines)
                assert r.end.character <= len(lines[r.end.line])
        if cut >= first_end:
            first = only(prefix, "First")
            assert first.forward is not None


def test_binary_junk_and_empty_text():
    assert names("") == []
    assert names("\x00\x01\ufffe)))\n\tclass") == []
    assert names("class A(nn.Module):\r\n    def forward(self, x):\r\n        return x\r\n") == ["A"]


def test_class_without_a_body_is_skipped():
    text = COMPLETE + "class Typing(nn.Module):\n"
    assert analysis.syntax_error(text)
    assert "Typing" not in names(text)


# --- positions in the client's encoding --------------------------------------------------------------------

RANGES = (
    's = "é😀中"\n'                                       # line 0: non-ASCII on a line before
    'class Modèle中(nn.Module): t = "😀é中"\n'          # line 1: a one-line class with an emoji after the name
    '\n'
    '\n'
    'class B(nn.Module):\n'                                # line 4
    '    def forward(self, x): return x + "😀"\n'        # line 5
    '\n'
    'class 𝒜é(nn.Module):  # 😀\n'                       # line 7: an astral letter in the name itself
    '    pass\n'
)


@pytest.mark.parametrize("encoding, name_end, class_end, forward_end, astral_name_end, astral_end", [
    ("utf-16", 13, 36, 41, 9, 15),
    ("utf-8", 16, 44, 43, 12, 18),
    ("utf-32", 13, 35, 40, 8, 13),
])
def test_ranges_in_each_encoding(encoding, name_end, class_end, forward_end, astral_name_end, astral_end):
    one, b, astral = analysis.find_modules(RANGES, encoding)
    assert one.name == "Modèle中"
    assert one.name_range == Range(Position(1, 6), Position(1, name_end))
    assert one.range == Range(Position(1, 0), Position(1, class_end))
    assert b.name_range == Range(Position(4, 6), Position(4, 7))
    assert b.forward == Range(Position(5, 4), Position(5, forward_end))
    assert b.range == Range(Position(4, 0), Position(5, forward_end))
    assert astral.name == "𝒜é"
    assert astral.name_range == Range(Position(7, 6), Position(7, astral_name_end))
    assert astral.range.start == Position(7, 0) and astral.range.end == Position(8, 8)
    # and the code-unit counts agree with the text: the name is what lies between its positions
    line = RANGES.split("\n")[1]
    start = analysis.offset_of(RANGES, one.name_range.start, encoding)
    end = analysis.offset_of(RANGES, one.name_range.end, encoding)
    assert RANGES[start:end] == "Modèle中"
    assert line.endswith(RANGES[analysis.offset_of(RANGES, Position(1, class_end - 1), encoding)])
    start = analysis.offset_of(RANGES, astral.name_range.start, encoding)
    end = analysis.offset_of(RANGES, astral.name_range.end, encoding)
    assert RANGES[start:end] == "𝒜é"


@pytest.mark.parametrize("text, utf16, utf8, utf32", [
    ("", 0, 0, 0),
    ("abc", 3, 3, 3),
    ("é", 1, 2, 1),
    ("中", 1, 3, 1),
    ("😀", 2, 4, 1),
    ("a😀é中", 5, 10, 4),
])
def test_units(text, utf16, utf8, utf32):
    assert analysis.units(text) == utf16
    assert analysis.units(text, "utf-16") == utf16
    assert analysis.units(text, "utf-8") == utf8
    assert analysis.units(text, "utf-32") == utf32


OFFSETS = 'a = "😀"\nb = "é中😀x"  # 😀😀\n\n😀\nlast é'


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_offset_of_round_trips_with_units(encoding):
    lines = OFFSETS.split("\n")
    index = 0
    for row, line in enumerate(lines):
        for column in range(len(line) + 1):
            position = Position(row, analysis.units(line[:column], encoding))
            assert analysis.offset_of(OFFSETS, position, encoding) == index + column, (row, column)
        index += len(line) + 1


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_offset_of_clamps(encoding):
    first_line = OFFSETS.split("\n")[0]
    assert analysis.offset_of(OFFSETS, Position(0, 10_000), encoding) == len(first_line)
    assert analysis.offset_of(OFFSETS, Position(99, 0), encoding) == len(OFFSETS)
    assert analysis.offset_of(OFFSETS, Position(-3, 0), encoding) == 0
    assert analysis.offset_of("", Position(0, 5), encoding) == 0


def test_the_same_position_means_different_offsets_in_each_encoding():
    text = 'x = "😀é"; y = 1'
    # character 8: UTF-16 -> after the emoji and é ('x = "' is 5, emoji 2, é 1); UTF-8 -> after the emoji
    # (4 bytes); UTF-32 -> after the emoji, é and the quote
    assert text[analysis.offset_of(text, Position(0, 8), "utf-16"):] == '"; y = 1'
    assert text[analysis.offset_of(text, Position(0, 9), "utf-8"):] == 'é"; y = 1'
    assert text[analysis.offset_of(text, Position(0, 8), "utf-32"):] == '; y = 1'


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_module_at(encoding):
    text = dedent('''\
        import torch.nn as nn
        x = "😀😀"


        class A(nn.Module):  # 😀
            def forward(self, x):
                return x + "é😀"


        y = 1


        class B(nn.Module):
            pass
    ''')
    a_line = text.split("\n")[4]
    assert analysis.module_at(text, Position(4, 0), encoding).name == "A"
    assert analysis.module_at(text, Position(4, analysis.units(a_line, encoding)), encoding).name == "A"
    assert analysis.module_at(text, Position(6, 15), encoding).name == "A"      # inside forward
    end_of_forward = analysis.units(text.split("\n")[6], encoding)
    assert analysis.module_at(text, Position(6, end_of_forward), encoding).name == "A"
    assert analysis.module_at(text, Position(6, end_of_forward + 1), encoding) is None   # after the class
    assert analysis.module_at(text, Position(7, 0), encoding) is None
    assert analysis.module_at(text, Position(9, 2), encoding) is None
    assert analysis.module_at(text, Position(1, 2), encoding) is None                    # before it
    assert analysis.module_at(text, Position(12, 4), encoding).name == "B"
    assert analysis.module_at(text, Position(14, 0), encoding) is None


def test_module_at_past_an_emoji_depends_on_the_encoding():
    text = 'import torch.nn as nn\nclass A(nn.Module): s = "😀"\nz = 1\n'
    # the class line is 27 characters, 28 UTF-16 units, 30 UTF-8 bytes
    assert analysis.module_at(text, Position(1, 28), "utf-16").name == "A"
    assert analysis.module_at(text, Position(1, 29), "utf-16") is None
    assert analysis.module_at(text, Position(1, 27), "utf-32").name == "A"
    assert analysis.module_at(text, Position(1, 28), "utf-32") is None
    assert analysis.module_at(text, Position(1, 30), "utf-8").name == "A"
    assert analysis.module_at(text, Position(1, 31), "utf-8") is None


# --- example inputs: functions and annotations ----------------------------------------------------------

FUNCTIONS = dedent('''\
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def forward(self, x):
            return x


    def get_inputs():
        return [torch.randn(2, 3)]


    def get_init_inputs():
        return []
''')


def test_get_inputs_in_the_file_gives_functions():
    inputs = only(FUNCTIONS, "Net").inputs
    assert inputs is not None and inputs.kind == "functions" and not inputs.error


def test_get_init_inputs_alone_is_not_enough():
    text = FUNCTIONS.replace("def get_inputs():", "def get_other():")
    assert only(text, "Net").inputs is None


def test_no_inputs_at_all():
    text = "import torch.nn as nn\n\n\nclass Net(nn.Module):\n    pass\n"
    assert only(text, "Net").inputs is None
    assert analysis.inputs_text(text, only(text, "Net")) == ""


def annotated(annotation: str, *, above: bool = False, functions: bool = False) -> str:
    body = "class Net(nn.Module):\n"
    if not above:
        body += f"    {annotation}\n"
    body += "    def forward(self, x):\n        return x\n"
    text = "import torch\nimport torch.nn as nn\n\n\n" + (f"{annotation}\n" if above else "") + body
    if functions:
        text += "\n\ndef get_inputs():\n    return [torch.randn(2, 3)]\n"
    return text


@pytest.mark.parametrize("above", [False, True])
def test_annotation_with_init(above):
    text = annotated("# adaexplore: inputs=[torch.randn(8, 512)] init=[512]", above=above)
    inputs = only(text, "Net").inputs
    assert inputs.kind == "annotation" and not inputs.error
    assert inputs.inputs == "[torch.randn(8, 512)]"
    assert inputs.init == "[512]"
    assert inputs.line == (4 if above else 5)


@pytest.mark.parametrize("above", [False, True])
def test_annotation_without_init(above):
    inputs = only(annotated("#adaexplore:inputs = (1, 2)  ", above=above), "Net").inputs
    assert (inputs.kind, inputs.inputs, inputs.init, inputs.error) == ("annotation", "(1, 2)", "[]", "")


def test_annotation_in_a_comment_block_above_a_decorated_class():
    text = dedent('''\
        import torch.nn as nn


        # A network.
        # adaexplore: inputs=[1, 2] init=[3]
        # More words.
        @decorator
        class Net(nn.Module):
            pass
    ''')
    inputs = only(text, "Net").inputs
    assert (inputs.kind, inputs.inputs, inputs.init, inputs.line) == ("annotation", "[1, 2]", "[3]", 4)


def test_annotation_deep_in_the_class_body():
    text = dedent('''\
        import torch.nn as nn


        class Net(nn.Module):
            def forward(self, x):
                # adaexplore: inputs=[1] init=[2]
                return x
    ''')
    inputs = only(text, "Net").inputs
    assert (inputs.kind, inputs.inputs, inputs.init, inputs.line) == ("annotation", "[1]", "[2]", 5)


def test_annotation_not_directly_above_is_ignored():
    text = dedent('''\
        import torch.nn as nn

        # adaexplore: inputs=[1]

        class Net(nn.Module):
            pass


        x = 1  # adaexplore: inputs=[2]
    ''')
    assert only(text, "Net").inputs is None


def test_annotation_belongs_to_its_own_class():
    text = dedent('''\
        import torch.nn as nn


        # adaexplore: inputs=[1]
        class A(nn.Module):
            pass


        class B(nn.Module):
            # adaexplore: inputs=[2] init=[3]
            pass


        class C(nn.Module):
            pass
    ''')
    a, b, c = analysis.find_modules(text)
    assert (a.inputs.inputs, a.inputs.init) == ("[1]", "[]")
    assert (b.inputs.inputs, b.inputs.init) == ("[2]", "[3]")
    assert c.inputs is None


@pytest.mark.parametrize("annotation, message", [
    ("# adaexplore: inputs=5", "inputs= must be a list"),
    ("# adaexplore: inputs=torch.randn(8)", "inputs= must be a list"),
    ("# adaexplore: inputs={1: 2}", "inputs= must be a list"),
    ("# adaexplore: inputs=[1] init=3", "init= must be a list"),
    ("# adaexplore: inputs=[1] init={'a': 1}", "init= must be a list"),
    ("# adaexplore: inputs=[1,", "inputs= is not a Python expression ('[' was never closed)"),
    ("# adaexplore: inputs=[1] init=[2,", "init= is not a Python expression ('[' was never closed)"),
    ("# adaexplore: inputs=[1 2]", "inputs= is not a Python expression"),
    ("# adaexplore: inputs=[1] init=[def]", "init= is not a Python expression"),
    ("# adaexplore: in=[1]", "the annotation must read like '# adaexplore: inputs=[torch.randn(8, 512)] init=[512]'"),
    ("# adaexplore:", "the annotation must read like"),
    ("# adaexplore: init=[1]", "the annotation must read like"),
    ("# adaexplore: inputs=", "inputs= is empty"),
])
def test_annotation_errors(annotation, message):
    text = annotated(annotation)
    inputs = only(text, "Net").inputs
    assert inputs.kind == "annotation"
    assert inputs.line == 5
    assert message in inputs.error
    assert analysis.engine_source(text, only(text, "Net")) == text     # an unusable annotation adds nothing


def test_broken_annotation_wins_over_file_functions():
    text = annotated("# adaexplore: inputs=5", functions=True)
    inputs = only(text, "Net").inputs
    assert inputs.kind == "annotation" and inputs.error


def test_annotation_wins_over_file_functions():
    text = annotated("# adaexplore: inputs=[1, 2] init=[3]", functions=True)
    inputs = only(text, "Net").inputs
    assert (inputs.kind, inputs.inputs, inputs.init) == ("annotation", "[1, 2]", "[3]")
    # another class of the same file without an annotation gets the functions
    text += "\n\nclass Other(nn.Module):\n    pass\n"
    assert only(text, "Other").inputs.kind == "functions"


def test_annotation_inputs_with_an_init_keyword():
    inputs = only(annotated("# adaexplore: inputs=[make(8, init=2)] init=[3]"), "Net").inputs
    assert (inputs.inputs, inputs.init, inputs.error) == ("[make(8, init=2)]", "[3]", "")


def test_empty_init_is_blamed_on_init():
    inputs = only(annotated("# adaexplore: inputs=[1] init="), "Net").inputs
    assert inputs.error.startswith("init=")


# --- engine_source, inputs_text, inputs_stub --------------------------------------------------------------

@pytest.fixture
def run_inputs(monkeypatch):
    """Exec an engine source (its document imports torch; a stand-in module is enough for annotations whose
    expressions do not use it) and return (get_inputs(), get_init_inputs())."""
    torch = types.ModuleType("torch")
    torch.nn = types.ModuleType("torch.nn")
    torch.nn.Module = object
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.nn", torch.nn)

    def run(source: str) -> tuple[list, list]:
        namespace = {"__name__": "engine"}
        exec(compile(source, "<engine>", "exec"), namespace)
        return namespace["get_inputs"](), namespace["get_init_inputs"]()

    return run


def test_engine_source_adds_the_annotation_functions(run_inputs):
    text = annotated("# adaexplore: inputs=[1, 2] init=(3, 'x')", functions=True)
    source = analysis.engine_source(text, only(text, "Net"))
    assert source.startswith(text.rstrip("\n"))
    assert source.count("def get_inputs():") == 2                   # the annotation's comes last and wins
    assert run_inputs(source) == ([1, 2], [3, "x"])


def test_engine_source_without_init(run_inputs):
    text = annotated("# adaexplore: inputs=[[1], {'a': 2}]")
    assert run_inputs(analysis.engine_source(text, only(text, "Net"))) == ([[1], {"a": 2}], [])


def test_engine_source_keeps_the_document_for_functions_and_no_inputs():
    assert analysis.engine_source(FUNCTIONS, only(FUNCTIONS, "Net")) == FUNCTIONS
    plain = "import torch.nn as nn\n\n\nclass Net(nn.Module):\n    pass\n"
    assert analysis.engine_source(plain, only(plain, "Net")) == plain


def test_inputs_stub_inserts_a_valid_annotation_above_the_class():
    text = dedent('''\
        import torch
        import torch.nn as nn


        @decorator
        class Net(nn.Module):
            pass
    ''')
    position, stub = analysis.inputs_stub(only(text, "Net"))
    assert position == Position(4, 0)
    assert stub.startswith("# TODO: ") and "\n# adaexplore: inputs=" in stub and stub.endswith("\n")
    offset = analysis.offset_of(text, position)
    edited = text[:offset] + stub + text[offset:]
    inputs = only(edited, "Net").inputs
    assert inputs.kind == "annotation" and not inputs.error
    assert inputs.inputs == "[torch.randn(8, 512)]"


def test_engine_source_of_the_inserted_stub_compiles():
    text = "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    pass\n"
    position, stub = analysis.inputs_stub(only(text, "Net"))
    offset = analysis.offset_of(text, position)
    edited = text[:offset] + stub + text[offset:]
    compile(analysis.engine_source(edited, only(edited, "Net")), "<engine>", "exec")


def test_annotation_with_a_trailing_comment(run_inputs):
    text = annotated("# adaexplore: inputs=[1, 2] init=[3]  # small sizes")
    assert run_inputs(analysis.engine_source(text, only(text, "Net"))) == ([1, 2], [3])


def test_inputs_text_for_annotations():
    text = annotated("# adaexplore: inputs=[1, 2] init=[3]")
    base = analysis.inputs_text(text, only(text, "Net"))
    assert "[1, 2]" in base and "[3]" in base

    def key(t: str) -> str:
        return analysis.inputs_text(t, only(t, "Net"))

    assert key(text.replace("inputs=[1, 2]", "inputs=[1, 3]")) != base
    assert key(text.replace("init=[3]", "init=[4]")) != base
    assert key(text.replace("return x", "return x + 1")) == base          # the class changed, not its inputs
    assert key(text.replace("import torch\n", "import torch  # hi\n")) == base
    assert key(text + "\n\ndef get_inputs():\n    return []\n") == base   # the annotation wins


def test_inputs_text_for_functions():
    base = analysis.inputs_text(FUNCTIONS, only(FUNCTIONS, "Net"))
    assert "def get_inputs():" in base and "def get_init_inputs():" in base

    def key(t: str) -> str:
        return analysis.inputs_text(t, only(t, "Net"))

    assert key(FUNCTIONS.replace("randn(2, 3)", "randn(2, 4)")) != base
    assert key(FUNCTIONS.replace("return []", "return [1]")) != base
    assert key(FUNCTIONS.replace("return x", "return x * 2")) == base
    assert key(FUNCTIONS + "\n\nOTHER = 3\n\n\ndef helper():\n    return 1\n") == base
    assert key(FUNCTIONS.replace("import torch\n", "import torch\nimport os\n")) == base
    annotated_text = FUNCTIONS.replace("class Net(nn.Module):\n", "class Net(nn.Module):\n    # adaexplore: inputs=[1]\n")
    assert key(annotated_text) != base


# --- syntax_error, top_level_names -----------------------------------------------------------------------

def test_syntax_error():
    assert analysis.syntax_error(FUNCTIONS) == ""
    assert analysis.syntax_error("") == ""
    assert analysis.syntax_error("x = 1\ny = (\n\n") .endswith(" at line 2")
    assert analysis.syntax_error("x = 1\n\n\nclass A(:\n    pass\n").endswith(" at line 4")
    assert analysis.syntax_error("def f():\nreturn 1\n") == "expected an indented block after function " \
        "definition on line 1 at line 2"
    assert analysis.syntax_error("x = 1\x00\n") != ""


def test_top_level_names():
    text = dedent('''\
        import os
        from torch import nn as tnn
        X = 1
        Y: int = 2
        a, b = 3, 4
        obj.attr = 5
        counter += 1


        def f():
            inner = 1


        @decorator
        def g():
            pass


        class C:
            attr = 1

            def method(self):
                pass


        @decorator
        class D(tnn.Module):
            pass


        if True:
            hidden = 1
    ''')
    assert analysis.top_level_names(text) == {"os", "tnn", "X", "Y", "a", "b", "counter", "f", "g", "C", "D",
                                              "hidden"}
    assert analysis.top_level_names("") == set()
    assert analysis.top_level_names("def broken(:\n") <= {"broken"}


def test_top_level_names_of_every_kind_of_binding():
    """Tuple, list, starred, chained and annotated targets, for/with targets and imports bind names; attributes,
    subscripts and names inside functions and classes do not."""
    text = dedent('''\
        import os.path, numpy as np
        from x import (a as b, c)
        batch_size, in_features, out_features = 1, 2, 3
        [p, q] = 1, 2
        s: int
        first, *rest = [1, 2, 3]
        t = u = 5
        for i, (j, k) in []:
            pass
        with open(x) as f, open(y) as (g, h):
            pass
        obj.attr = 1
        d[0] = 2
        try:
            import zz
        except ImportError:
            zz = None


        def fn():
            inner = 1


        class K:
            kk = 2
    ''')
    assert analysis.top_level_names(text) == {
        "os", "np", "b", "c", "batch_size", "in_features", "out_features", "p", "q", "s", "first", "rest", "t", "u",
        "i", "j", "k", "f", "g", "h", "zz", "fn", "K"}
