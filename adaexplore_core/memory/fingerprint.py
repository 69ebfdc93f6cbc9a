"""The namespace rules are kept under: the GPU architecture and the Triton version (what fails to compile or
run depends on both). Read without importing torch or triton: nvidia-smi and package metadata."""
from __future__ import annotations

import importlib.metadata
import subprocess


def triton_version() -> str:
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return "none"


def gpu_architecture(device: str) -> str:
    """'sm90 NVIDIA H200' for cuda:N (nvidia-smi), 'cpu-interpreter' for the CPU, 'cuda-unknown' otherwise."""
    if not device.startswith("cuda"):
        return "cpu-interpreter"
    index = device.split(":")[1] if ":" in device else "0"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap,name", "--format=csv,noheader", "-i", index],
                             capture_output=True, text=True, timeout=20, check=True).stdout.strip()
        capability, name = [x.strip() for x in out.splitlines()[0].split(",", 1)]
        return f"sm{capability.replace('.', '')} {name}"
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return "cuda-unknown"


def namespace(devices: tuple[str, ...]) -> str:
    return f"{gpu_architecture(devices[0] if devices else 'cpu')}|triton-{triton_version()}"
