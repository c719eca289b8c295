"""A corpus of python-graphblas usage, written the way its User Guide writes it: the
registry, the helpers and the shared operands (the snippets are in snippets_*.py).

Every snippet is a function of the library module (``graphblas`` or ``gblas``) that returns
plain Python / NumPy results; tests/compat/test_pgb_corpus.py runs each one on both
libraries and compares. Snippets registered with ``@unsupported(...)`` are valid
python-graphblas code that gblas deliberately does not run: gblas must raise the named
error there (docs/compat.md lists them with the reason).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

SNIPPETS: dict[str, Callable[[Any], Any]] = {}
UNSUPPORTED: dict[str, tuple[Callable[[Any], Any], str, str]] = {}
RAISES: dict[str, tuple[Callable[[Any], Any], str]] = {}


def snippet(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    SNIPPETS[f.__name__] = f
    return f


def unsupported(error: str, match: str) -> Callable[[Callable[[Any], Any]], Any]:
    """gblas raises gblas.exceptions.<error> (or AttributeError / TypeError, by name) with a
    message that contains ``match``."""
    def deco(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
        UNSUPPORTED[f.__name__] = (f, error, match)
        return f

    return deco


def raises(error: str) -> Callable[[Callable[[Any], Any]], Any]:
    """Bad input that both libraries refuse: python-graphblas raises some exception, gblas
    raises gblas.exceptions.<error> (python-graphblas raises built-in ones in places)."""
    def deco(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
        RAISES[f.__name__] = (f, error)
        return f

    return deco


def out(x: Any) -> Any:
    """A Matrix, Vector or Scalar as plain data, through the API both libraries share
    (entries sorted row-major: python-graphblas lists a column-stored matrix by column)."""
    if hasattr(x, "nrows"):
        r, c, v = x.to_coo()
        order = np.lexsort((c, r))
        return ("Matrix", x.dtype.name, tuple(x.shape), r[order].tolist(), c[order].tolist(),
                v[order].tolist())
    if hasattr(x, "size") and hasattr(x, "to_coo"):
        i, v = x.to_coo()
        return ("Vector", x.dtype.name, x.size, i.tolist(), v.tolist())
    if hasattr(x, "is_empty"):
        return ("Scalar", x.dtype.name, x.value)
    raise TypeError(f"not a collection: {type(x).__name__}")


# ---------------------------------------------------------------- shared operands
def mat_a(gb: Any) -> Any:
    return gb.Matrix.from_coo([0, 0, 1, 2, 3, 3], [1, 2, 2, 0, 1, 3],
                              [1, 2, 3, 4, 5, 6], nrows=4, ncols=4)


def mat_b(gb: Any) -> Any:
    return gb.Matrix.from_coo([0, 1, 1, 2, 3], [1, 1, 3, 0, 0], [10, 20, 30, 40, 50],
                              nrows=4, ncols=4)


def mat_f(gb: Any) -> Any:
    return gb.Matrix.from_coo([0, 0, 1, 2, 3], [0, 2, 1, 3, 2], [1.5, -2.0, 0.25, 4.0, 0.0],
                              nrows=4, ncols=4)


def mat_bool(gb: Any) -> Any:
    return gb.Matrix.from_coo([0, 1, 2, 2, 3], [1, 2, 0, 3, 0], True, nrows=4, ncols=4)


def vec_u(gb: Any) -> Any:
    return gb.Vector.from_coo([0, 2, 3], [1, 2, 3], size=4)


def vec_w(gb: Any) -> Any:
    return gb.Vector.from_coo([1, 2], [10, 20], size=4)


def vec_f(gb: Any) -> Any:
    return gb.Vector.from_coo([0, 1, 3], [0.5, -1.5, 2.0], size=4)


# the output C, mask m and result T of the masks/accum/replace snippets (docs/api.md §4)
def _c(gb: Any) -> Any:
    return gb.Vector.from_coo([0, 1, 2, 3], [1, 1, 1, 1], size=5)


def _m(gb: Any) -> Any:
    return gb.Vector.from_coo([1, 2, 4], [True, False, True], size=5)


def _t(gb: Any) -> Any:
    return gb.Vector.from_coo([0, 1, 2, 4], [5, 5, 5, 5], size=5)
