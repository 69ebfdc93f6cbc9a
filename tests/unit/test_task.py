"""Tasks: parsing a task spec, loading a reference with clear errors, inputs, and output flattening."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch

from adaexplore_core.task import TaskError, TaskSpec, flatten_outputs, load_task, to_device

GOOD = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x, idx, mask, scale):
        return x * self.w * scale


class Other(nn.Module):
    def forward(self, x, idx, mask, scale):
        return x


def get_inputs():
    return [torch.randn(3, 4), torch.randint(0, 10, (5,)), torch.rand(4) > 0.5, 2.5]


def get_init_inputs():
    return [4]
'''


def write(tmp_path: Path, text: str, name: str = "ref.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def good(tmp_path: Path) -> Path:
    return write(tmp_path, GOOD)


# TaskSpec ----------------------------------------------------------------------------------------------

def test_parse_plain_file(good):
    spec = TaskSpec.parse(str(good))
    assert spec.path == str(good.resolve()) and spec.class_name == "Model" and spec.source is None


def test_parse_with_class(good):
    assert TaskSpec.parse(f"{good}::Other").class_name == "Other"


def test_parse_relative_path_is_resolved(good, monkeypatch):
    monkeypatch.chdir(good.parent)
    assert TaskSpec.parse("ref.py").path == str(good.resolve())


def test_parse_missing_file(tmp_path):
    missing = tmp_path / "nope.py"
    with pytest.raises(TaskError, match="reference file not found: .*nope.py"):
        TaskSpec.parse(str(missing))
    with pytest.raises(TaskError, match="reference file not found"):
        TaskSpec.parse(f"{missing}::Model")


def test_parse_empty_file_part():
    with pytest.raises(TaskError, match="no file in task"):
        TaskSpec.parse("::Model")


@pytest.mark.parametrize("bad", ["", "1Model", "Model.Inner", "My Model", "Model::X"])
def test_parse_bad_class_name(good, bad):
    with pytest.raises(TaskError, match="is not a class name"):
        TaskSpec.parse(f"{good}::{bad}")


def test_key_is_stable_and_follows_the_source(good):
    a, b = TaskSpec.parse(str(good)), TaskSpec.parse(str(good))
    assert a.key() == b.key() == a.key()
    assert a.key().startswith("Model@")
    assert TaskSpec.parse(f"{good}::Other").key() != a.key()
    edited = TaskSpec(a.path, a.class_name, source=a.read_source() + "\n# edited\n")
    assert edited.key() != a.key()
    assert TaskSpec(a.path, a.class_name, source=a.read_source()).key() == a.key()
    before = a.key()
    good.write_text(good.read_text() + "\nEXTRA = 1\n")
    assert TaskSpec.parse(str(good)).key() != before


def test_to_dict_round_trips(good):
    spec = TaskSpec(str(good), "Other", source="x = 1\n")
    assert TaskSpec(**spec.to_dict()) == spec


# load_task ---------------------------------------------------------------------------------------------

def test_load_good_task(good):
    task = load_task(TaskSpec.parse(str(good)))
    assert task.model_class.__name__ == "Model"
    assert task.init_args() == [4]


def test_load_from_editor_source(good):
    source = GOOD.replace("class Other", "class Edited")
    task = load_task(TaskSpec(str(good), "Edited", source=source))
    assert task.model_class.__name__ == "Edited"


def test_missing_class_hints_at_the_modules_in_the_file(good):
    with pytest.raises(TaskError) as info:
        load_task(TaskSpec.parse(f"{good}::Missing"))
    message = str(info.value)
    assert "has no class 'Missing'" in message
    assert "(modules in the file: Model, Other; pick one with FILE.py::ClassName)" in message


def test_missing_class_without_modules_has_no_hint(tmp_path):
    path = write(tmp_path, "import torch\ndef get_inputs(): return []\ndef get_init_inputs(): return []\n")
    with pytest.raises(TaskError) as info:
        load_task(TaskSpec.parse(str(path)))
    assert str(info.value).endswith("has no class 'Model'")


def test_class_that_is_not_a_module(tmp_path):
    path = write(tmp_path, "class Model:\n    pass\ndef get_inputs(): return []\ndef get_init_inputs(): return []\n")
    with pytest.raises(TaskError, match="'Model' in .* is not a torch.nn.Module subclass"):
        load_task(TaskSpec.parse(str(path)))


@pytest.mark.parametrize("defined, missing", [
    ("def get_init_inputs(): return []\n", "get_inputs()"),
    ("def get_inputs(): return []\n", "get_init_inputs()"),
    ("get_inputs = [1]\nget_init_inputs = []\n", "get_inputs() and get_init_inputs()"),
])
def test_missing_input_factories(tmp_path, defined, missing):
    path = write(tmp_path, "import torch.nn as nn\nclass Model(nn.Module):\n    pass\n" + defined)
    with pytest.raises(TaskError) as info:
        load_task(TaskSpec.parse(str(path)))
    assert f"does not define {missing};" in str(info.value)
    assert "KernelBench" in str(info.value)


def test_import_raising(tmp_path):
    path = write(tmp_path, "import torch\nraise RuntimeError('boom at import')\n")
    with pytest.raises(TaskError, match=r"importing the reference .*ref\.py raised RuntimeError: boom at import"):
        load_task(TaskSpec.parse(str(path)))


def test_import_of_missing_module(tmp_path):
    path = write(tmp_path, "import no_such_module_adaexplore\n")
    with pytest.raises(TaskError, match="raised ModuleNotFoundError"):
        load_task(TaskSpec.parse(str(path)))


def test_syntax_error_names_the_line(tmp_path):
    path = write(tmp_path, "import torch\n\nclass Model(nn.Module)\n    pass\n")
    with pytest.raises(TaskError, match=r"has a syntax error at line 3"):
        load_task(TaskSpec.parse(str(path)))


def test_syntax_error_in_editor_source_names_the_line(good):
    with pytest.raises(TaskError, match=r"syntax error at line 2"):
        load_task(TaskSpec(str(good), source="x = 1\ny = (\n"))


def test_reference_can_import_a_sibling_module(tmp_path):
    write(tmp_path, "SIZE = 6\n", name="ref_helper_sibling.py")
    path = write(tmp_path, "import torch, torch.nn as nn\nfrom ref_helper_sibling import SIZE\n"
                           "class Model(nn.Module):\n    pass\n"
                           "def get_inputs(): return [torch.zeros(SIZE)]\ndef get_init_inputs(): return []\n")
    task = load_task(TaskSpec.parse(str(path)))
    assert task.make_inputs(0, "cpu")[0].shape == (6,)


def test_init_args_must_be_a_sequence(tmp_path):
    path = write(tmp_path, "import torch.nn as nn\nclass Model(nn.Module):\n    pass\n"
                           "def get_inputs(): return []\ndef get_init_inputs(): return 3\n")
    task = load_task(TaskSpec.parse(str(path)))
    with pytest.raises(TaskError, match="get_init_inputs\\(\\) must return a list or tuple, got int"):
        task.init_args()


def test_init_args_raising(tmp_path):
    path = write(tmp_path, "import torch.nn as nn\nclass Model(nn.Module):\n    pass\n"
                           "def get_inputs(): return []\ndef get_init_inputs(): raise ValueError('no init')\n")
    task = load_task(TaskSpec.parse(str(path)))
    with pytest.raises(TaskError, match=r"get_init_inputs\(\) raised ValueError: no init"):
        task.init_args()


# inputs and building -----------------------------------------------------------------------------------

def test_make_inputs_keeps_dtypes_and_values(good):
    task = load_task(TaskSpec.parse(str(good)))
    x, idx, mask, scale = task.make_inputs(1, "cpu")
    assert x.dtype == torch.float32 and idx.dtype == torch.int64 and mask.dtype == torch.bool
    assert scale == 2.5 and isinstance(scale, float)


def test_make_inputs_reproducible_per_seed_and_different_across_seeds(good):
    task = load_task(TaskSpec.parse(str(good)))
    a, b, c = task.make_inputs(3, "cpu"), task.make_inputs(3, "cpu"), task.make_inputs(4, "cpu")
    for u, v in zip(a[:3], b[:3]):
        assert torch.equal(u, v)
    assert not torch.equal(a[0], c[0])
    assert not torch.equal(a[1], c[1])


def test_make_inputs_rejects_non_sequences(tmp_path):
    path = write(tmp_path, "import torch, torch.nn as nn\nclass Model(nn.Module):\n    pass\n"
                           "def get_inputs(): return torch.zeros(2)\ndef get_init_inputs(): return []\n")
    task = load_task(TaskSpec.parse(str(path)))
    with pytest.raises(TaskError, match="get_inputs\\(\\) must return a list or tuple, got Tensor"):
        task.make_inputs(0, "cpu")


def test_build_is_reproducible_per_seed(good):
    task = load_task(TaskSpec.parse(str(good)))
    m1, m2, m3 = (task.build(task.model_class, s, "cpu") for s in (5, 5, 6))
    assert torch.equal(m1.w, m2.w) and not torch.equal(m1.w, m3.w)


def test_to_device_nested():
    value = [torch.zeros(2, dtype=torch.int32), (torch.ones(1, dtype=torch.bool), 3), "s"]
    moved = to_device(value, "cpu")
    assert isinstance(moved, list) and isinstance(moved[1], tuple)
    assert moved[0].dtype == torch.int32 and moved[1][0].dtype == torch.bool and moved[1][1] == 3


# flatten_outputs ---------------------------------------------------------------------------------------

def test_flatten_accepts_tensor_tuple_list():
    t, u = torch.zeros(1), torch.ones(2)
    assert flatten_outputs(t, "x")[0] is t
    assert flatten_outputs((t, u), "x") == [t, u]
    out = flatten_outputs([t, u], "x")
    assert isinstance(out, list) and out[0] is t and out[1] is u


@pytest.mark.parametrize("value, shown", [
    (None, "NoneType"),
    ({"a": torch.zeros(1)}, "dict"),
    ((torch.zeros(1), 1), "tuple of Tensor, int"),
    ([1.5], "list of float"),
    ((), "tuple (empty)"),
])
def test_flatten_rejects_with_message(value, shown):
    with pytest.raises(TaskError) as info:
        flatten_outputs(value, "the candidate's")
    assert str(info.value) == (f"the candidate's forward returned {shown}; outputs must be a tensor or a "
                               "tuple/list of tensors")
