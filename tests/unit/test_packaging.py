"""The explicit package list of pyproject.toml covers every package of the source tree (automatic discovery
is off because server/ installs as adaexplore_server)."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_source_package_is_listed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.relative_to(ROOT).parts) for p in (ROOT / "adaexplore_core").rglob("*")
             if p.is_dir() and "__pycache__" not in p.parts and any(p.glob("*.py"))}
    found.add("adaexplore_core")
    assert found <= listed, f"missing from pyproject.toml packages: {sorted(found - listed)}"
    assert "adaexplore_server" in listed and config["package-dir"]["adaexplore_server"] == "server"
    assert all((ROOT / name.replace(".", "/")).is_dir() or name == "adaexplore_server" for name in listed)
