"""Devices: where an object's arrays live ("cpu" or "cuda:N").

CuPy is imported lazily: without it everything on the CPU works and asking for a GPU
raises a clear error.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np

from . import _config
from .exceptions import DeviceMismatch, InvalidValue


@functools.lru_cache(maxsize=1)
def _cupy() -> ModuleType | None:
    try:
        import cupy  # noqa: PLC0415 - optional dependency, imported on first GPU use
    except Exception:  # ImportError or a broken CUDA install
        return None
    return cupy


@functools.lru_cache(maxsize=1)
def cuda_available() -> bool:
    """True when CuPy imports and at least one CUDA device answers."""
    cp = _cupy()
    if cp is None:
        return False
    try:
        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def normalize_device(device: Any = None) -> str:
    """Canonical device name: ``"cpu"`` or ``"cuda:N"``.

    ``None`` means the configured default; ``"auto"`` the first GPU when one works, else the
    CPU; ``"cuda"`` means ``"cuda:0"``.
    """
    if device == "cpu":  # the common case, already canonical
        return "cpu"
    if device is None:
        device = _config.get("default_device")
    if not isinstance(device, str):
        device = str(device)
    name = device.strip().lower()
    if name == "auto":
        return "cuda:0" if cuda_available() else "cpu"
    if name == "cpu":
        return "cpu"
    if name == "cuda" or name == "gpu":
        name = "cuda:0"
    if name.startswith("cuda:") and name[5:].isdigit():
        if not cuda_available():
            raise InvalidValue(
                f"device {device!r} asked for, but no CUDA GPU is usable here "
                "(CuPy missing or no device); install the 'gpu' extra "
                "(pip install 'gblas[gpu]') on a machine with an NVIDIA GPU, or use device='cpu'"
            )
        return name
    raise InvalidValue(f"unknown device {device!r}; expected 'cpu', 'cuda', 'cuda:N' or 'auto'")


def device_kind(device: str) -> str:
    """``"cpu"`` or ``"cuda"`` (the dispatch key)."""
    return "cpu" if device == "cpu" else "cuda"


def get_array_module(device: str) -> ModuleType:
    """NumPy for the CPU, CuPy for CUDA devices."""
    if device == "cpu":
        return np
    cp = _cupy()
    if cp is None:
        raise InvalidValue(f"device {device!r} needs CuPy; install the 'gpu' extra")
    return cp


def device_index(device: str) -> int:
    """The GPU ordinal of ``device`` (``"cuda"`` is ``"cuda:0"``); -1 for the CPU."""
    if not device.startswith("cuda:"):
        device = normalize_device(device)
    return int(device.split(":")[1]) if device.startswith("cuda:") else -1


def synchronize(device: str) -> None:
    """Wait for the work queued on ``device`` (a no-op on the CPU); for host-side timing.
    Takes any name :func:`normalize_device` does (``"cuda"``, ``"cuda:1"``, ``"gpu"``)."""
    device = normalize_device(device)
    if device != "cpu":
        cp = get_array_module(device)
        with cp.cuda.Device(device_index(device)):
            cp.cuda.get_current_stream().synchronize()


def move_array(arr: Any, device: str) -> Any:
    """Copy an array to ``device`` (a no-op when it is already there)."""
    if arr is None:
        return None
    if device == "cpu":
        if isinstance(arr, np.ndarray):
            return arr
        return arr.get()  # CuPy -> host: explicit copy
    from .backend.upload import to_device  # noqa: PLC0415 - large host arrays staged

    cp = get_array_module(device)
    with cp.cuda.Device(device_index(device)):
        return to_device(arr, cp)


def same_device(*objects: Any, what: str = "operands") -> str:
    """The common device of ``objects`` (None entries ignored); DeviceMismatch if they differ."""
    if len(objects) == 2:  # the common case, without building a set
        da = getattr(objects[0], "device", None)
        if da is not None and da == getattr(objects[1], "device", None):
            return da
    devices = {o.device for o in objects if o is not None and hasattr(o, "device")}
    if len(devices) > 1:
        raise DeviceMismatch(
            f"{what} live on different devices ({', '.join(sorted(devices))}); "
            "move them with .to(device) first"
        )
    return devices.pop() if devices else "cpu"
