"""Each candidate's Triton cache starts as a copy of the zygote's prebuilt one (Triton's C helper module, built
once per zygote instead of by gcc in every child)."""
from __future__ import annotations

import os

from adaexplore_core.judge import zygote


def test_a_child_cache_starts_as_a_copy_of_the_prebuilt_one(tmp_path, monkeypatch):
    prebuilt = tmp_path / zygote.PREBUILT_NAME / "0123abcd"
    prebuilt.mkdir(parents=True)
    (prebuilt / "cuda_utils.so").write_bytes(b"\x7fELF")
    monkeypatch.setattr(zygote, "_prebuilt", tmp_path / zygote.PREBUILT_NAME)
    monkeypatch.chdir(tmp_path)
    for name in ("HOME", "TMPDIR", "TRITON_CACHE_DIR"):
        monkeypatch.setenv(name, "unchanged")
    child = tmp_path / "candidate-1"
    zygote._move_into(child)
    copy = child / "triton-cache" / "0123abcd" / "cuda_utils.so"
    assert copy.read_bytes() == b"\x7fELF" and os.environ["TRITON_CACHE_DIR"] == str(child / "triton-cache")
    copy.write_bytes(b"changed by a candidate")                   # its own copy: the next child's is the original
    zygote._move_into(tmp_path / "candidate-2")
    assert (tmp_path / "candidate-2" / "triton-cache" / "0123abcd" / "cuda_utils.so").read_bytes() == b"\x7fELF"


def test_no_prebuilt_cache_where_the_build_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(zygote.sys, "executable", "/bin/false")
    assert zygote._prebuilt_triton(tmp_path) is None and not (tmp_path / zygote.PREBUILT_NAME).exists()
