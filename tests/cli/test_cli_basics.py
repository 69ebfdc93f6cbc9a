"""The `adaexplore` command itself: --version, the bare command, a class the reference does not define, and
the message for an optional extra that is not installed (its modules made unimportable in the child process:
importing a name set to None in sys.modules fails as a missing module does)."""
from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest

import adaexplore_core
from adaexplore_core.cli import parse_reference
from adaexplore_core.task import TaskError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "adaexplore_core" / "examples"
REFERENCE = EXAMPLES / "fused_bias_gelu.py"


def adaexplore(*args: str, blocked: tuple[str, ...] = (), timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m adaexplore_core.cli ARGS`` with the modules in ``blocked`` unimportable."""
    code = ("import sys\n"
            f"for name in {list(blocked)!r}:\n"
            "    sys.modules[name] = None\n"
            "from adaexplore_core.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=env, stdin=subprocess.DEVNULL)


def test_version():
    done = adaexplore("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"adaexplore {adaexplore_core.__version__}\n"
    assert importlib.metadata.version("adaexplore") == adaexplore_core.__version__   # one version, from __init__


def test_bare_command_prints_the_help_as_a_usage_error():
    done = adaexplore()
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: adaexplore")
    for command in ("judge", "propose", "optimize", "bench", "adapt", "rules", "lsp"):
        assert f"    {command} " in done.stderr, command


def test_optimize_of_a_class_the_file_does_not_define(tmp_path):
    done = adaexplore("optimize", f"{REFERENCE}::Missing", "--device", "cpu", "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "adaexplore optimize: the reference" in done.stderr and "has no class 'Missing'" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


def test_lsp_without_the_server_extra_names_it():
    done = adaexplore("lsp", blocked=("lsprotocol", "pygls"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'adaexplore[server]'" in done.stderr and "'lsprotocol'" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_rules_without_the_llm_extra_names_it(tmp_path):
    done = adaexplore("rules", "list", "--device", "cpu", "--cache-dir", str(tmp_path), blocked=("diskcache",))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'adaexplore[llm]'" in done.stderr and "'diskcache'" in done.stderr
    assert "Traceback" not in done.stderr


# which class names the static check accepts: any name the file binds at its top level ------------------------

@pytest.mark.parametrize("source", [
    "import torch\nif True:\n    class Block(torch.nn.Module):\n        pass\n",
    "import torch\nBlock = torch.nn.Linear\n",
    "from torch.nn import Linear as Block\n",
    "from torch.nn import *\n",                       # cannot be read statically: left to the judge
    "class Broken(:\n",                               # a syntax error: the judge reports its line
    "def make():\n    global Block\n    Block = 1\n",  # bound when make() runs
    "import sys\nsetattr(sys.modules[__name__], 'Block', int)\n",
])
def test_names_the_file_binds_are_left_to_the_judge(tmp_path, source):
    path = tmp_path / "ref.py"
    path.write_text(source)
    assert parse_reference(f"{path}::Block").class_name == "Block"


def test_a_name_bound_only_inside_a_function_is_missing(tmp_path):
    path = tmp_path / "ref.py"
    path.write_text("import torch\nclass Model(torch.nn.Module):\n    pass\n\ndef make():\n    Block = Model\n"
                    "    return Block\n")
    with pytest.raises(TaskError, match=r"has no class 'Block' \(classes in the file: Model; pick one"):
        parse_reference(f"{path}::Block")
