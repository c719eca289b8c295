"""GPU suite: every test here needs CuPy and a CUDA device, and is skipped otherwise (so CI
on a CPU machine stays green). Each test is marked ``gpu``: ``pytest -m gpu tests/gpu``."""

from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent


def _gpu_reason() -> str | None:
    from gblas._device import _cupy, cuda_available  # noqa: PLC0415

    if _cupy() is None:
        return "CuPy is not installed"
    if not cuda_available():
        return "no CUDA device answers"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ours = [it for it in items if _HERE in Path(it.path).resolve().parents]
    if not ours:
        return
    reason = _gpu_reason()
    for it in ours:
        it.add_marker(pytest.mark.gpu)
        if reason is not None:
            it.add_marker(pytest.mark.skip(reason=f"GPU test: {reason}"))
