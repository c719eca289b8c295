"""Operator model (L0): unary, binary and index-unary operators, monoids, semirings.

Operator traits are data: a monoid knows its identity, terminal value and whether it is
idempotent; a binary operator knows which operand values it reads and whether it is
positional. Built-in binary operators carry an *opcode* that the Numba and CUDA kernels
switch on; user-defined operators carry a Numba-compiled scalar function instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..dtypes import BOOL, FP64, INT64, DataType, lookup_dtype, unify
from ..exceptions import DomainMismatch, InvalidValue

# Return-type rules of an operator, applied to its (unified) input domain.
SAME = "same"  # the domain itself
ReturnRule = str | DataType


def _resolve_return(rule: ReturnRule, domain: DataType) -> DataType:
    if isinstance(rule, DataType):  # first: DataType == "same" looks the name up and fails
        return rule
    if rule == SAME:
        return domain
    if rule == "float":
        return domain if domain.is_float else FP64
    raise InvalidValue(f"bad return rule {rule!r}")


def _memo(obj: Any, key: Any, make: Callable[[], Any]) -> Any:
    """``make()``, computed once per (immutable) operator object and kept on it: resolved
    semirings are memoised by the identity of the semiring, so an operator derived anew
    per call (``sr.flipped`` for every vxm, ``binary.plus[FP64]``) would miss that cache
    and resolve again each time (~60 µs a vxm)."""
    cache = obj.__dict__.get("_memo")
    if cache is None:
        cache = {}
        object.__setattr__(obj, "_memo", cache)  # frozen: not a field, not compared
    if key not in cache:
        cache[key] = make()
    return cache[key]


class ByName:
    """``ns[name]`` and ``name in ns`` for a namespace that finds operators by attribute
    (a missing one raises AttributeError): python-graphblas's item and ``in`` forms."""

    def __getitem__(self, name: str) -> Any:
        try:
            return getattr(self, name)
        except AttributeError as e:
            raise KeyError(str(e)) from None

    def __contains__(self, name: str) -> bool:
        try:
            getattr(self, name)
        except AttributeError:
            return False
        return True


class OpNamespace(ByName):
    """A namespace of operators (``gblas.binary``, ``gblas.monoid`` ...) that can grow."""

    def __init__(self, name: str, factory: Callable[[str], Any] | None = None) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_ops", {})
        object.__setattr__(self, "_factory", factory)

    def _register(self, op: Any) -> Any:
        self._ops[op.name] = op
        return op

    def __getattr__(self, name: str) -> Any:
        ops = object.__getattribute__(self, "_ops")
        if name in ops:
            return ops[name]
        factory = object.__getattribute__(self, "_factory")
        if factory is not None and not name.startswith("_"):
            op = factory(name)
            if op is not None:
                ops[name] = op
                return op
        raise AttributeError(
            f"gblas.{self._name} has no operator {name!r}; known: {', '.join(sorted(ops))}"
        )

    def __dir__(self) -> list[str]:
        return sorted(self._ops)

    def __iter__(self):
        return iter(sorted(self._ops))

    def __repr__(self) -> str:
        return f"<gblas.{self._name}: {len(self._ops)} operators>"


# ----------------------------------------------------------------------------- unary
@dataclass(frozen=True, eq=False)
class UnaryOp:
    """f(x). ``np_func`` maps an array of the domain to the result array."""

    name: str
    np_func: Callable[..., Any]
    return_rule: ReturnRule = SAME
    positional: str | None = None  # "i" or "j": the result is the element's index
    offset: int = 0
    input_rule: str | None = None  # "float": integers are computed in FP64
    nb_func: Any = None  # Numba scalar function (user-defined operators)
    fixed_type: DataType | None = None
    is_udf: bool = False

    def domain(self, dtype: DataType) -> DataType:
        if self.fixed_type is not None:
            return self.fixed_type
        if self.input_rule == "float" and not dtype.is_float:
            return FP64
        return dtype

    def return_type(self, dtype: DataType) -> DataType:
        if self.positional:
            return INT64
        if self.is_udf:
            return _udf_return_type(self.nb_func, (self.domain(dtype),))
        return _resolve_return(self.return_rule, self.domain(dtype))

    def __getitem__(self, dtype: Any) -> UnaryOp:
        dt = lookup_dtype(dtype)
        return _memo(self, ("typed", dt), lambda: replace(self, fixed_type=dt))

    def __call__(self, obj: Any) -> Any:
        return obj.apply(self)

    def __repr__(self) -> str:
        return f"unary.{self.name}" + (f"[{self.fixed_type}]" if self.fixed_type else "")

    @classmethod
    def register_new(cls, name: str, func: Callable[[Any], Any]) -> UnaryOp:
        """Register ``gblas.unary.<name>`` from a Python function of one scalar."""
        from .codegen_numba import compile_udf  # noqa: PLC0415

        nb, vec = compile_udf(func, 1)
        return _UNARY._register(cls(name, vec, nb_func=nb, is_udf=True))

    @classmethod
    def register_anonymous(cls, func: Callable[[Any], Any], name: str | None = None) -> UnaryOp:
        from .codegen_numba import compile_udf  # noqa: PLC0415

        nb, vec = compile_udf(func, 1)
        return cls(name or func.__name__, vec, nb_func=nb, is_udf=True)


# ---------------------------------------------------------------------------- binary
@dataclass(frozen=True, eq=False)
class BinaryOp:
    """f(x, y) with traits.

    ``opcode`` is the kernel switch value (-1: user-defined, run through ``nb_func``);
    ``uses_left``/``uses_right`` say which operand values it reads (a semiring whose
    multiply reads neither is structure-only); ``positional`` is one of ``firsti``,
    ``firstj``, ``secondi``, ``secondj`` (result = an index, plus ``offset``).
    """

    name: str
    opcode: int
    np_func: Callable[..., Any]
    return_rule: ReturnRule = SAME
    uses_left: bool = True
    uses_right: bool = True
    commutative: bool = False
    associative: bool = False
    flip_name: str | None = None
    positional: str | None = None
    offset: int = 0
    bool_alias: str | None = None  # the operator it becomes on BOOL (plus -> lor ...)
    input_rule: str | None = None
    nb_func: Any = None
    fixed_type: DataType | None = None
    is_udf: bool = False
    ufunc: Any = None  # the NumPy ufunc computing it (used for reduceat), when one exists

    # -- typing
    def domain(self, left: DataType, right: DataType | None = None) -> DataType:
        if self.fixed_type is not None:
            return self.fixed_type
        d = unify(left, right) if right is not None else left
        if self.input_rule == "float" and not d.is_float:
            return FP64
        if self.input_rule == "integer" and d.is_float:
            raise DomainMismatch(f"binary.{self.name} works on integer and boolean types, "
                                 f"got {d}")
        return d

    def for_domain(self, domain: DataType) -> BinaryOp:
        """The concrete operator on ``domain`` (arithmetic on BOOL becomes logical)."""
        if domain == BOOL and self.bool_alias is not None and not self.is_udf:
            op = getattr(_BINARY, self.bool_alias)
            return replace(op, fixed_type=self.fixed_type) if self.fixed_type else op
        return self

    def return_type(self, left: DataType, right: DataType | None = None) -> DataType:
        if self.positional:
            return INT64
        d = self.domain(left, right)
        if self.is_udf:
            return _udf_return_type(self.nb_func, (d, d))
        return _resolve_return(self.for_domain(d).return_rule, d)

    @property
    def flipped(self) -> BinaryOp:
        """g(y, x) = f(x, y)."""
        if self.commutative:
            return self
        return _memo(self, "flipped", self._flip)

    def _flip(self) -> BinaryOp:
        if self.flip_name is None:
            if self.is_udf:
                return _flip_udf(self)
            f = self.np_func
            alias = getattr(_BINARY, self.bool_alias).flipped.name if self.bool_alias else None
            from .codegen_numba import FLIP  # noqa: PLC0415

            return replace(self, name=f"{self.name}_flipped",
                           opcode=FLIP + self.opcode if self.opcode >= 0 else -1,
                           np_func=lambda a, b: f(b, a), flip_name=self.name,
                           bool_alias=alias)
        op = getattr(_BINARY, self.flip_name)
        return replace(op, fixed_type=self.fixed_type) if self.fixed_type else op

    def __call__(self, left: Any, right: Any = None, *, left_default: Any = None,
                 right_default: Any = None) -> Any:
        """python-graphblas's call forms: ``op(x | y)``, ``op(x & y)`` (element-wise),
        ``op(x | y, left_default=a, right_default=b)`` (ewise_union), ``op(x, 1)`` and
        ``op(1, x)`` (apply with a bound scalar)."""
        return call_operator(self, left, right, left_default, right_default)

    @property
    def monoid(self) -> Monoid | None:
        """The monoid built on this operator, when there is one."""
        return _MONOID._ops.get(self.name)

    def __getitem__(self, dtype: Any) -> BinaryOp:
        dt = lookup_dtype(dtype)
        self.domain(dt)  # DomainMismatch where the operator refuses the type
        return _memo(self, ("typed", dt), lambda: replace(self, fixed_type=dt))

    def __repr__(self) -> str:
        return f"binary.{self.name}" + (f"[{self.fixed_type}]" if self.fixed_type else "")

    @classmethod
    def register_new(cls, name: str, func: Callable[[Any, Any], Any]) -> BinaryOp:
        """Register ``gblas.binary.<name>`` from a Python function ``func(x, y)``."""
        op = cls.register_anonymous(func, name)
        return _BINARY._register(op)

    @classmethod
    def register_anonymous(
        cls, func: Callable[[Any, Any], Any], name: str | None = None
    ) -> BinaryOp:
        from .codegen_numba import compile_udf  # noqa: PLC0415

        nb, vec = compile_udf(func, 2)
        return cls(name or func.__name__, -1, vec, nb_func=nb, is_udf=True)


def _flip_udf(op: BinaryOp) -> BinaryOp:
    from .codegen_numba import flip_udf  # noqa: PLC0415

    nb, vec = flip_udf(op.nb_func)
    return BinaryOp(f"{op.name}_flipped", -1, vec, nb_func=nb, is_udf=True,
                    fixed_type=op.fixed_type)


def _udf_return_type(nb_func: Any, args: tuple[DataType, ...]) -> DataType:
    from .codegen_numba import udf_return_type  # noqa: PLC0415

    return udf_return_type(nb_func, args)


# ----------------------------------------------------------------------- index-unary
@dataclass(frozen=True, eq=False)
class IndexUnaryOp:
    """f(x, i, j, thunk): used by ``select`` (bool result) and ``apply``."""

    name: str
    np_func: Callable[..., Any]  # (values, rows, cols, thunk) -> array
    return_rule: ReturnRule = BOOL
    uses_values: bool = True
    is_udf: bool = False
    # False: np_func reads the values only (rows and cols may be given as None), so a
    # matrix's row ids need not be formed (the value comparisons valueeq ... valuele)
    uses_positions: bool = True

    def return_type(self, dtype: DataType) -> DataType:
        return _resolve_return(self.return_rule, dtype)

    def __call__(self, obj: Any, thunk: Any = None) -> Any:
        """``select.tril(A)``, ``select.valuegt(v, 0)``: select with this operator; an
        operator that returns values (``rowindex``) applies instead."""
        if self.return_type(obj.dtype) == BOOL:
            return obj.select(self, thunk)
        return obj.apply(self, right=thunk)

    def __repr__(self) -> str:
        return f"select.{self.name}"

    @classmethod
    def register_new(cls, name: str, func: Callable[[Any, int, int, Any], bool]) -> IndexUnaryOp:
        """Register ``gblas.select.<name>`` from ``func(x, i, j, thunk) -> bool``."""
        from .codegen_numba import vectorize_indexunary  # noqa: PLC0415

        return _SELECT._register(cls(name, vectorize_indexunary(func), is_udf=True))


# ---------------------------------------------------------------------------- monoid
@dataclass(frozen=True, eq=False)
class Monoid:
    """An associative, commutative binary operator with an identity.

    ``identity(dtype)`` and ``terminal(dtype)`` give the values on a type (``terminal`` is
    None when there is none: then no early exit). ``any`` is the monoid whose every value
    is terminal: a kernel may stop at the first value it finds.
    """

    name: str
    binaryop: BinaryOp
    identity_fn: Callable[[DataType], Any]
    terminal_fn: Callable[[DataType], Any] | None = None
    idempotent: bool = False
    is_any: bool = False
    fixed_type: DataType | None = None
    is_udf: bool = False

    def identity(self, dtype: DataType) -> Any:
        return dtype.cast(self.identity_fn(dtype))

    def terminal(self, dtype: DataType) -> Any | None:
        if self.terminal_fn is None:
            return None
        t = self.terminal_fn(dtype)
        return None if t is None else dtype.cast(t)

    def for_domain(self, domain: DataType) -> Monoid:
        """The concrete monoid on ``domain`` (plus on BOOL is lor ...)."""
        self.binaryop.domain(domain)  # DomainMismatch where the operator refuses the type
        if domain == BOOL and self.binaryop.bool_alias and not self.is_udf:
            return getattr(_MONOID, self.binaryop.bool_alias)
        return self

    def __getitem__(self, dtype: Any) -> Monoid:
        dt = lookup_dtype(dtype)
        return _memo(self, ("typed", dt), lambda: replace(self, fixed_type=dt,
                                                          binaryop=self.binaryop[dt]))

    def __call__(self, left: Any, right: Any = None, *, left_default: Any = None,
                 right_default: Any = None) -> Any:
        """``monoid.max(x | y)``, ``monoid.plus(x, 1)``: as for a BinaryOp."""
        return call_operator(self, left, right, left_default, right_default)

    def __repr__(self) -> str:
        return f"monoid.{self.name}" + (f"[{self.fixed_type}]" if self.fixed_type else "")

    @classmethod
    def register_new(
        cls, name: str, binaryop: BinaryOp, identity: Any, *, terminal: Any = None,
        idempotent: bool = False,
    ) -> Monoid:
        """Register ``gblas.monoid.<name>`` from a binary operator and its identity."""
        m = cls.register_anonymous(binaryop, identity, name=name, terminal=terminal,
                                   idempotent=idempotent)
        return _MONOID._register(m)

    @classmethod
    def register_anonymous(
        cls, binaryop: BinaryOp, identity: Any, *, name: str | None = None,
        terminal: Any = None, idempotent: bool = False,
    ) -> Monoid:
        if not isinstance(binaryop, BinaryOp):
            raise InvalidObject_(f"Monoid needs a BinaryOp, got {type(binaryop).__name__}")
        if binaryop.positional:
            raise DomainMismatch(f"positional operator {binaryop!r} cannot form a monoid")
        return cls(
            name or binaryop.name, binaryop, lambda dt: identity,
            (lambda dt: terminal) if terminal is not None else None,
            idempotent=idempotent, is_udf=binaryop.is_udf,
        )


# --------------------------------------------------------------------------- semiring
@dataclass(frozen=True, eq=False)
class Semiring:
    """(⊕ monoid, ⊗ binary operator)."""

    name: str
    monoid: Monoid
    binaryop: BinaryOp
    fixed_type: DataType | None = None

    @property
    def structural(self) -> bool:
        """The multiply reads no values (pair, positional): operands' structure suffices."""
        return not (self.binaryop.uses_left or self.binaryop.uses_right)

    @property
    def uses_left(self) -> bool:
        return self.binaryop.uses_left

    @property
    def uses_right(self) -> bool:
        return self.binaryop.uses_right

    @property
    def is_udf(self) -> bool:
        return self.monoid.is_udf or self.binaryop.is_udf

    @property
    def flipped(self) -> Semiring:
        """The semiring with multiply g(y, x) = f(x, y): vxm(u, A) runs as mxv(Aᵀ, u) with it."""
        b = self.binaryop.flipped
        if b is self.binaryop:
            return self
        return _memo(self, "flipped", lambda: Semiring(f"{self.monoid.name}_{b.name}",
                                                       self.monoid, b, self.fixed_type))

    def types(self, left: DataType, right: DataType) -> tuple[DataType, DataType]:
        """(domain the multiply computes in, type of the result)."""
        if self.fixed_type is not None:
            d = self.fixed_type
        else:
            d = self.binaryop.domain(left, right)
        mult = self.binaryop.for_domain(d)
        out = mult.return_type(d, d)
        return d, out

    def __getitem__(self, dtype: Any) -> Semiring:
        dt = lookup_dtype(dtype)
        return _memo(self, ("typed", dt), lambda: replace(self, fixed_type=dt))

    def __call__(self, product: Any) -> Any:
        """``semiring.min_plus(A @ B)``: the product ``@`` wrote, over this semiring."""
        infix = getattr(product, "_matmul", None)
        if infix is None:
            raise InvalidObject_(
                f"{self!r}(...) takes a product written with @, such as {self!r}(A @ B); "
                f"got {type(product).__name__}"
            )
        method, a, b = infix
        return getattr(a, method)(b, self)

    def __repr__(self) -> str:
        return f"semiring.{self.name}" + (f"[{self.fixed_type}]" if self.fixed_type else "")

    @classmethod
    def register_new(cls, name: str, monoid: Monoid, binaryop: BinaryOp) -> Semiring:
        """Register ``gblas.semiring.<name>``."""
        return _SEMIRING._register(cls.register_anonymous(monoid, binaryop, name=name))

    @classmethod
    def register_anonymous(
        cls, monoid: Monoid, binaryop: BinaryOp, *, name: str | None = None
    ) -> Semiring:
        if not isinstance(monoid, Monoid):
            raise InvalidObject_(f"Semiring needs a Monoid as ⊕, got {type(monoid).__name__}")
        if not isinstance(binaryop, BinaryOp):
            raise InvalidObject_(
                f"Semiring needs a BinaryOp as ⊗, got {type(binaryop).__name__}"
            )
        return cls(name or f"{monoid.name}_{binaryop.name}", monoid, binaryop)


def call_operator(op: BinaryOp | Monoid, left: Any, right: Any, left_default: Any,
                  right_default: Any) -> Any:
    """What ``op(...)`` means for a BinaryOp or Monoid (python-graphblas's call forms)."""
    infix = getattr(left, "_ewise_infix", None)
    if left_default is not None or right_default is not None:
        if (infix is None or infix[0] != "ewise_add" or right is not None
                or left_default is None or right_default is None):
            raise InvalidObject_(
                f"left_default= and right_default= make {op!r}(x | y, left_default=a, "
                "right_default=b) an ewise_union; give both, with x | y"
            )
        _, a, b = infix
        return a.ewise_union(b, op, left_default, right_default)
    if infix is not None and right is None:
        method, a, b = infix
        return getattr(a, method)(b, op)
    if getattr(left, "ndim", 0) in (1, 2) and right is not None:
        return left.apply(op, right=right)
    if getattr(right, "ndim", 0) in (1, 2) and left is not None:
        return right.apply(op, left=left)
    raise InvalidObject_(
        f"{op!r}(...) takes an infix expression ({op!r}(x | y), {op!r}(x & y)) or a Vector or "
        f"Matrix and a scalar ({op!r}(x, 1), {op!r}(1, x)); got {type(left).__name__} and "
        f"{type(right).__name__}"
    )


def InvalidObject_(msg: str) -> Exception:  # noqa: N802 - keeps the import cycle-free
    from ..exceptions import InvalidObject  # noqa: PLC0415

    return InvalidObject(msg)


_UNARY = OpNamespace("unary")
_BINARY = OpNamespace("binary")
_MONOID = OpNamespace("monoid")
_SELECT = OpNamespace("select")


def _semiring_factory(name: str) -> Semiring | None:
    """``semiring.<monoid>_<binop>`` for any built-in pair, made on first use."""
    if "_" not in name:
        return None
    mname, bname = name.split("_", 1)
    if mname not in _MONOID._ops or bname not in _BINARY._ops:
        return None
    return Semiring(name, _MONOID._ops[mname], _BINARY._ops[bname])


_SEMIRING = OpNamespace("semiring", _semiring_factory)

unary = _UNARY
binary = _BINARY
monoid = _MONOID
semiring = _SEMIRING
select = _SELECT


# ------------------------------------------------------------------ resolved for kernels
@dataclass(frozen=True)
class KernelSemiring:
    """A semiring resolved for concrete operand types: everything a kernel needs.

    Kernels compute ``t = mult(a, x, i, k, j)`` on values cast to ``domain`` and fold with
    ``add`` into ``out_type``. Built-in operators are given by opcode; user-defined ones by
    their Numba functions (``mult_fn``/``add_fn``; opcode -1).
    """

    semiring: Semiring
    domain: DataType
    out_type: DataType
    mult_op: int
    add_op: int
    identity: Any
    terminal: Any
    has_terminal: bool
    is_any: bool
    uses_left: bool
    uses_right: bool
    is_float: bool
    mult_fn: Any = None
    add_fn: Any = None
    mult: BinaryOp | None = None
    add: Monoid | None = None

    @property
    def is_udf(self) -> bool:
        return self.mult_op < 0 or self.add_op < 0

    def derived(self, key: str, make: Callable[[KernelSemiring], Any]) -> Any:
        """``make(self)``, computed once per resolved semiring and kept on it (kernel
        arguments, dispatch traits): resolved semirings are memoised, so a loop of small
        operations pays for these once rather than per call."""
        return _memo(self, ("derived", key), lambda: make(self))

    @property
    def structural(self) -> bool:
        return not (self.uses_left or self.uses_right)

    @property
    def order_free(self) -> bool:
        """Built-in, and the monoid's fold has one value whatever the order of its
        operands: min and max, and plus on integers (it wraps). The GPU push folds these
        with atomics; ``any`` (which product wins is an order) is not one of them."""
        if self.is_udf or self.add is None or self.is_any:
            return False
        name = self.add.binaryop.name
        kind = np.dtype(self.out_type.np_type).kind
        return (name in ("min", "max") and kind in "biuf") or (name == "plus" and kind in "iu")


def resolve_semiring(sr: Semiring, left: DataType, right: DataType) -> KernelSemiring:
    """Resolve ``sr`` for operands of types ``left`` (matrix) and ``right`` (vector);
    memoised (a BFS resolves the same semiring every level)."""
    try:
        return _resolve_cached(sr, left, right)
    except TypeError:  # an operator holding something unhashable: resolve each time
        return _resolve(sr, left, right)


def _resolve(sr: Semiring, left: DataType, right: DataType) -> KernelSemiring:
    domain, out = sr.types(left, right)
    mult = sr.binaryop.for_domain(domain)
    add = sr.monoid.for_domain(out)
    if add.binaryop.positional:
        raise DomainMismatch(f"monoid {add!r} is positional")
    term = add.terminal(out)
    return KernelSemiring(
        semiring=sr, domain=domain, out_type=out,
        mult_op=mult.opcode, add_op=add.binaryop.opcode if not add.is_udf else -1,
        identity=add.identity(out), terminal=term if term is not None else add.identity(out),
        has_terminal=term is not None, is_any=add.is_any,
        uses_left=mult.uses_left, uses_right=mult.uses_right, is_float=domain.is_float,
        mult_fn=mult.nb_func, add_fn=add.binaryop.nb_func, mult=mult, add=add,
    )


_resolve_cached = functools.lru_cache(maxsize=512)(_resolve)
