"""Kernel registry: formats register kernels; the planner looks them up.

Key = (operation, device kind, matrix format, vector storage, direction, semiring traits,
mask kind). A registration may use ``"*"`` for any field. ``traits`` is ``"structural"``
(the multiply reads no values), ``"builtin"`` (opcode kernels; structural ones too) or
``"udf"`` (user-defined operators compiled with Numba), ``"numpy"`` (operators with a
NumPy form only) or ``"*"``; ``"a|b"`` lists alternatives. The most specific match wins;
ties go to the higher ``priority``. Fallback chain (in the planner): exact kernel -> a
cached conversion to a format that has one -> CSR -> the generic CSR kernel.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..semirings.model import KernelSemiring

FIELDS = ("device", "format", "storage", "direction", "traits", "mask")


@dataclass(frozen=True)
class Registration:
    op: str
    name: str
    func: Callable[..., Any]
    device: str = "*"
    format: str = "*"
    storage: str = "*"
    direction: str = "*"
    traits: str = "*"
    mask: str = "*"
    fuses_mask: bool = False  # the kernel skips rows the mask forbids (T is already masked)
    priority: int = 0

    def matches(self, key: dict[str, str]) -> bool:
        for f in FIELDS:
            want = getattr(self, f)
            have = key.get(f, "*")
            if want == "*" or have == "*":
                continue
            allowed = want.split("|")
            if f == "traits" and "builtin" in allowed:
                allowed.append("structural")
            if have not in allowed:
                return False
        return True

    @property
    def specificity(self) -> tuple[int, int]:
        return (sum(getattr(self, f) != "*" for f in FIELDS), self.priority)


_REGISTRY: dict[str, list[Registration]] = defaultdict(list)
_LOOKUP_CACHE: dict[tuple[Any, ...], Registration | None] = {}


def register_kernel(op: str, name: str, **key: Any) -> Callable[[Callable[..., Any]], Any]:
    """Decorator: ``@register_kernel("mxv", "csr_pull", device="cpu", format="csr", ...)``."""

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        reg = Registration(op, name, func, **key)
        _REGISTRY[op] = [r for r in _REGISTRY[op] if r.name != name] + [reg]
        _LOOKUP_CACHE.clear()
        return func

    return deco


def find_kernel(op: str, **key: str) -> Registration | None:
    """The most specific registration matching ``key`` (None if there is none)."""
    _ensure_formats_loaded()
    ckey = (op, *sorted(key.items()))
    if ckey not in _LOOKUP_CACHE:
        found = [r for r in _REGISTRY[op] if r.matches(key)]
        _LOOKUP_CACHE[ckey] = max(found, key=lambda r: r.specificity) if found else None
    return _LOOKUP_CACHE[ckey]


def formats_for(op: str, **key: str) -> list[str]:
    """Formats that have a kernel for ``op`` under ``key`` (``format`` ignored)."""
    _ensure_formats_loaded()
    key = {k: v for k, v in key.items() if k != "format"}
    return sorted({r.format for r in _REGISTRY[op] if r.matches(key) and r.format != "*"})


def registrations(op: str | None = None) -> list[Registration]:
    _ensure_formats_loaded()
    if op is not None:
        return list(_REGISTRY[op])
    return [r for regs in _REGISTRY.values() for r in regs]


def semiring_traits(ks: KernelSemiring) -> str:
    if ks.is_udf:
        if (ks.mult_op < 0 and ks.mult_fn is None) or (ks.add_op < 0 and ks.add_fn is None):
            return "numpy"
        return "udf"
    return "structural" if ks.structural else "builtin"


_loaded = False


def _ensure_formats_loaded() -> None:
    """Import the format packages, whose modules register their kernels."""
    global _loaded
    if not _loaded:
        _loaded = True
        from ..formats import _register_all  # noqa: PLC0415

        _register_all()


@dataclass
class MxvCall:
    """Everything an mxv kernel gets. ``rep`` is CSR of M (pull) or of Mᵀ (push)."""

    rep: Any
    x: Any  # VecData
    ks: KernelSemiring
    nrows: int
    mask_bits: Any  # bool[nrows] or None (raw, before complement)
    mask_comp: bool
    early_exit: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
