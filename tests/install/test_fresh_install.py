"""`pip install 'adaexplore[llm]'` into a new, empty virtual environment (no system site-packages), as a user
would, and the commands that extra enables: --version, `rules list`, `optimize --proposer llm` (against a local
OpenAI-compatible server), and `lsp`, which must say to install the server extra.

One environment, installed once (about a minute: the CPU torch wheel is installed first, from the machine's
wheel folder like `make` does, so the resolver never picks another build), then every check runs in it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
from support.fake_openai import FakeOpenAI, reply  # noqa: E402

CPU_TORCH = "2.13.0"                     # the Makefile's CPU_TORCH
REFERENCE = ROOT / "adaexplore_core" / "examples" / "fused_bias_gelu.py"
INSTALL_TIMEOUT_S = 900


def project_copy(dest: Path) -> Path:
    """The project's files as a fresh clone has them (tracked and not ignored), so the build writes nothing
    into the working tree."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and not name.startswith(("vscode-extension/", "docs/", "tests/")):
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("fresh-install")
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    source = project_copy(work / "src")
    pip = [str(python), "-m", "pip", "install", "-q", "--no-input"]
    for step in ([f"torch=={CPU_TORCH}"], [f"{source}[llm]"]):
        done = subprocess.run(pip + step, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, cwd=work)
        assert done.returncode == 0, f"pip install {step} failed:\n{done.stdout}\n{done.stderr}"
    return {"python": python, "bin": env_dir / "bin", "work": work}


def run(fresh: dict[str, Path], *args: str, timeout: float = 300, env: dict[str, str] | None = None):
    """A command of the fresh environment, run outside the source tree (so nothing imports from it)."""
    base = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "PYTHONPATH", "VIRTUAL_ENV")}
    base["PATH"] = f"{fresh['bin']}{os.pathsep}{base.get('PATH', '')}"
    return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, cwd=fresh["work"],
                          env={**base, **(env or {})})


@pytest.mark.timeout(INSTALL_TIMEOUT_S * 2 + 900)       # the install counts: the fixture runs inside this test
def test_llm_extra_in_a_fresh_environment(fresh, tmp_path):
    python = str(fresh["python"])

    # the environment is really fresh: the project from site-packages, the server extra absent
    where = run(fresh, python, "-c", "import adaexplore_core, importlib.util as u; print(adaexplore_core.__file__); "
                                     "print(u.find_spec('pygls') is None, u.find_spec('diskcache') is not None)")
    assert where.returncode == 0, where.stderr
    location, flags = where.stdout.splitlines()
    assert "site-packages" in location and not location.startswith(str(ROOT))
    assert flags == "True True", "pygls must be absent (no server extra) and diskcache present (llm extra)"

    version = run(fresh, "adaexplore", "--version")
    meta = run(fresh, python, "-c", "import importlib.metadata as m; print(m.version('adaexplore'))")
    assert version.returncode == 0 and version.stdout.strip() == f"adaexplore {meta.stdout.strip()}"

    cache = tmp_path / "cache"
    rules = run(fresh, "adaexplore", "rules", "list", "--device", "cpu", "--cache-dir", str(cache))
    assert rules.returncode == 0, rules.stderr
    assert "rule(s) for" in rules.stdout and "Traceback" not in rules.stderr

    with FakeOpenAI(default=reply("no kernel here")) as server:
        out = tmp_path / "out"
        search = run(fresh, "adaexplore", "optimize", str(REFERENCE), "--steps", "1", "--device", "cpu",
                     "--proposer", "llm", "--model", "fake", "--base-url", server.base_url, "--out", str(out),
                     "--cache-dir", str(cache), "--quiet", env={"OPENAI_API_KEY": "sk-test"}, timeout=600)
    assert search.returncode == 0, search.stdout + search.stderr
    assert (out / "best.py").is_file() and "Traceback" not in search.stderr

    lsp = run(fresh, "adaexplore", "lsp", timeout=120)
    assert lsp.returncode == 2, lsp.stdout + lsp.stderr
    assert "pip install 'adaexplore[server]'" in lsp.stderr and "Traceback" not in lsp.stderr
