"""Kernel lookup for the planner: the registry (gblas.backend.registry) after the format
packages have registered their kernels (imported once, on the first lookup)."""

from __future__ import annotations

from ..backend import registry as _registry
from ..backend.registry import (
    MxmCall,
    MxvCall,
    Registration,
    register_kernel,
    semiring_traits,
)

_loaded = False


def _ensure_formats_loaded() -> None:
    """Import every format's kernel modules, which register their kernels."""
    global _loaded
    if not _loaded:
        _loaded = True
        from ..formats import _register_all  # noqa: PLC0415

        _register_all()


def find_kernel(op: str, **key: str) -> Registration | None:
    """The most specific registration matching ``key`` (None if there is none)."""
    _ensure_formats_loaded()
    return _registry.lookup(op, **key)


def formats_for(op: str, **key: str) -> list[str]:
    """Formats that have a kernel for ``op`` under ``key`` (``format`` ignored)."""
    _ensure_formats_loaded()
    return _registry.formats_with(op, **key)


def registrations(op: str | None = None) -> list[Registration]:
    _ensure_formats_loaded()
    return _registry.registered(op)


__all__ = ["MxmCall", "MxvCall", "Registration", "find_kernel", "formats_for",
           "register_kernel", "registrations", "semiring_traits"]
