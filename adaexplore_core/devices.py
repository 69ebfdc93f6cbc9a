"""Which devices to judge on, decided without importing torch in the calling process."""
from __future__ import annotations

import re
import subprocess
import sys

_PROBE = "import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)"


class DeviceError(ValueError):
    """The requested device does not exist here; the message says what does."""


def cuda_device_count(python: str = sys.executable) -> int:
    """Visible CUDA devices, as the judge workers' torch sees them (0 when none or torch is missing)."""
    try:
        out = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=True)
        return int(out.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError, OSError):
        return 0


def resolve_devices(request: str, python: str = sys.executable) -> tuple[str, ...]:
    """``auto`` -> every visible GPU, else ``cpu``; ``cuda`` -> every GPU; ``cuda:N`` or ``cpu`` as given."""
    request = request.strip().lower()
    if request == "cpu":
        return ("cpu",)
    if request not in ("auto", "cuda") and not re.fullmatch(r"cuda:\d+", request):
        raise DeviceError(f"unknown device {request!r}; use auto, cpu, cuda or cuda:N")
    count = cuda_device_count(python)
    if request == "auto":
        return tuple(f"cuda:{i}" for i in range(count)) or ("cpu",)
    if count == 0:
        raise DeviceError(f"device {request!r} was asked for, but no CUDA GPU is visible to torch here; "
                          "use --device cpu (correctness through the Triton interpreter, no timing)")
    if request == "cuda":
        return tuple(f"cuda:{i}" for i in range(count))
    index = int(request.split(":")[1])
    if index >= count:
        raise DeviceError(f"device {request!r} does not exist: {count} GPU(s) visible (cuda:0..cuda:{count - 1})")
    return (request,)


if __name__ == "__main__":      # `python -m adaexplore_core.devices`: the count, for a process that has no torch
    print(cuda_device_count())
