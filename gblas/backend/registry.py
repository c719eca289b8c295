"""Kernel registry: formats register kernels; the planner (gblas.ops.dispatch) looks them up.

It sits below both layers, so that a format registers its kernels without importing the
operations layer.

Key = (operation, device kind, matrix format, vector storage, direction, semiring traits,
mask kind). A registration may use ``"*"`` for any field; ``"a|b"`` lists alternatives.
``semiring_traits`` gives the key's ``traits``, the narrowest of:

- ``"pattern"``: a structure-only, non-positional multiply (pair, oneb) under an
  idempotent monoid (any, lor, min, max, ...): a present output is the constant product,
  so the result is fixed by the structure alone (bitmap formats such as BVSS);
- ``"pattern_bool"``: BOOL domain and output, an OR-like monoid (lor, any, max) and a
  multiply that is a AND x, x or a on BOOL (land, min, times, second, first): with
  all-true matrix entries the output value is the OR of the operand values over the
  present in-neighbours (lor_land, the boolean BFS semiring);
- ``"structural"``: any other multiply that reads no values (the positional operators;
  pair or oneb under a monoid that is not idempotent, such as plus);
- ``"builtin"``: every operator has an opcode;
- ``"udf"``: user-defined operators compiled with Numba; ``"numpy"``: operators with a
  NumPy form only.

A registration allowing ``"builtin"`` also matches ``"structural"``, ``"pattern"`` and
``"pattern_bool"``; one allowing ``"structural"`` also matches ``"pattern"`` (the narrow
traits are special cases of the broad ones, so every kernel keeps what it served). The
most specific match wins; ties go to the higher ``priority``. Fallback chain (in the
planner): exact kernel -> a cached conversion to a format that has one -> CSR -> the
generic CSR kernel.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..dtypes import BOOL
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
    # the kernel folds T into C with an accumulator as it writes (MxvCall.accum_into)
    fuses_accum: bool = False
    priority: int = 0

    def matches(self, key: dict[str, str]) -> bool:
        for f in FIELDS:
            want = getattr(self, f)
            have = key.get(f, "*")
            if want == "*" or have == "*":
                continue
            allowed = want.split("|")
            if have not in allowed and not (f == "traits" and _widens(allowed, have)):
                return False
        return True

    @property
    def specificity(self) -> tuple[int, int]:
        return (sum(getattr(self, f) != "*" for f in FIELDS), self.priority)


# trait -> the broader traits whose kernels also serve it
_WIDER = {"structural": ("builtin",), "pattern": ("structural", "builtin"),
          "pattern_bool": ("builtin",)}


def _widens(allowed: list[str], have: str) -> bool:
    return any(w in allowed for w in _WIDER.get(have, ()))


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


def lookup(op: str, **key: str) -> Registration | None:
    """The most specific registration matching ``key`` (None if there is none) among the
    kernels registered so far (gblas.ops.dispatch.find_kernel loads the formats first)."""
    ckey = (op, *sorted(key.items()))
    if ckey not in _LOOKUP_CACHE:
        found = [r for r in _REGISTRY[op] if r.matches(key)]
        _LOOKUP_CACHE[ckey] = max(found, key=lambda r: r.specificity) if found else None
    return _LOOKUP_CACHE[ckey]


def formats_with(op: str, **key: str) -> list[str]:
    """Formats registered so far that have a kernel for ``op`` under ``key``."""
    key = {k: v for k, v in key.items() if k != "format"}
    return sorted({r.format for r in _REGISTRY[op] if r.matches(key) and r.format != "*"})


def registered(op: str | None = None) -> list[Registration]:
    """Registrations so far (of ``op``, or all)."""
    if op is not None:
        return list(_REGISTRY[op])
    return [r for regs in _REGISTRY.values() for r in regs]


# multiplies that on BOOL compute a AND x, x or a (names after for_domain(BOOL): times is
# land there); OR-like monoids on BOOL
_BOOL_MULTS = ("land", "min", "times", "second", "first")
_OR_MONOIDS = ("lor", "any", "max")


def semiring_traits(ks: KernelSemiring) -> str:
    """The dispatch key's ``traits`` for ``ks`` (see the module docstring)."""
    if ks.is_udf:
        if (ks.mult_op < 0 and ks.mult_fn is None) or (ks.add_op < 0 and ks.add_fn is None):
            return "numpy"
        return "udf"
    mult, add = ks.mult, ks.add
    if ks.structural:
        if (mult is not None and add is not None and not mult.positional
                and (add.idempotent or add.is_any)):
            return "pattern"
        return "structural"
    if (mult is not None and add is not None and ks.domain == BOOL and ks.out_type == BOOL
            and mult.positional is None and mult.name in _BOOL_MULTS
            and add.name in _OR_MONOIDS):
        return "pattern_bool"
    return "builtin"


@dataclass
class MxvCall:
    """Everything an mxv kernel gets. ``rep`` is CSR of M (pull) or of Mᵀ (push)."""

    rep: Any
    x: Any  # VecData
    ks: KernelSemiring
    nrows: int
    # the mask's raw bits (before complement) as bool[nrows], None (no mask), or a function
    # that makes them: a kernel that reads ``mask_keys`` instead never pays for the array
    mask_bits_of: Any
    mask_comp: bool
    early_exit: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    # the sorted keys of a sparse structural mask on the host (None otherwise)
    mask_keys: Any = None
    # (C, accumulator opcode): the kernel writes C = C accum T into C's dense arrays
    # instead of T (a kernel registered with fuses_accum; None: it writes T)
    accum_into: Any = None

    @property
    def mask_bits(self) -> Any:
        """bool[nrows] (raw, before complement) or None; made on first use."""
        bits = self.mask_bits_of
        if callable(bits):
            bits = self.mask_bits_of = bits()
        return bits


@dataclass
class MxmCall:
    """Everything an mxm kernel gets: CSR of A, CSR of B and of Bᵀ on demand (each cached
    on the matrix: dot-product kernels read rows of Bᵀ only, saxpy kernels rows of B, and
    B = X.T costs a transpose of X the dot kernels never need), and the mask as the CSR
    pattern of its true entries (complement not applied) or None."""

    a: Any
    b_of: Callable[[], Any]
    b_t: Callable[[], Any]
    ks: KernelSemiring
    mask: Any  # CSR pattern or None
    mask_comp: bool = False

    @property
    def b(self) -> Any:
        return self.b_of()
