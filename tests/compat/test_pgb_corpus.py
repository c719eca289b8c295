"""The python-graphblas snippet corpus (pgb_corpus.py, snippets_*.py) runs on
python-graphblas and on gblas, unchanged but for the module passed in, and both give the
same results: ints and bools exactly, floats closely, the same GraphBLAS dtype names. The
snippets gblas does not support (docs/compat.md) must run on python-graphblas and raise a
clear error in gblas."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
import snippets_collections  # noqa: F401 - each module registers its snippets
import snippets_operations  # noqa: F401
import snippets_programs_errors  # noqa: F401
import snippets_reduce_masks  # noqa: F401
from pgb_corpus import RAISES, SNIPPETS, UNSUPPORTED

import gblas

graphblas = pytest.importorskip("graphblas")


def same(a: Any, b: Any, where: str = "result") -> None:
    """Assert that two plain results agree (floats within 1e-9 relative, NaN equal)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        kinds = {a.dtype.kind, b.dtype.kind}
        assert len(kinds) == 1 or kinds <= {"i", "u"}, f"{where}: dtypes {a.dtype} {b.dtype}"
        same(a.tolist(), b.tolist(), where)
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        assert len(a) == len(b), f"{where}: lengths {len(a)} != {len(b)}: {a!r} vs {b!r}"
        for k, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{k}]")
        return
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), f"{where}: keys {sorted(a)} != {sorted(b)}"
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
        return
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        assert isinstance(a, (bool, np.bool_)) and isinstance(b, (bool, np.bool_)), \
            f"{where}: {a!r} vs {b!r} (bool and not bool)"
        assert bool(a) == bool(b), f"{where}: {a!r} != {b!r}"
        return
    if isinstance(a, float) or isinstance(b, float):
        assert isinstance(a, (int, float)) and isinstance(b, (int, float)), \
            f"{where}: {a!r} vs {b!r}"
        if math.isnan(a) or math.isnan(b):
            assert math.isnan(a) and math.isnan(b), f"{where}: {a!r} != {b!r}"
        else:
            assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), f"{where}: {a!r} != {b!r}"
        return
    assert type(a) is type(b) or {type(a), type(b)} <= {int, np.int64, np.uint64}, \
        f"{where}: types {type(a).__name__} vs {type(b).__name__} ({a!r}, {b!r})"
    assert a == b, f"{where}: {a!r} != {b!r}"


def run_pgb(snippet: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return snippet(graphblas)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_same_on_both(name: str) -> None:
    snippet = SNIPPETS[name]
    expected = run_pgb(snippet)
    got = snippet(gblas)
    same(got, expected, name)


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_snippet_raises_in_gblas(name: str) -> None:
    snippet, error, match = UNSUPPORTED[name]
    run_pgb(snippet)  # valid python-graphblas code
    cls = getattr(gblas.exceptions, error, None) or {"AttributeError": AttributeError,
                                                     "TypeError": TypeError}[error]
    with pytest.raises(cls, match=match):
        snippet(gblas)


@pytest.mark.parametrize("name", sorted(RAISES))
def test_bad_input_raises_on_both(name: str) -> None:
    """python-graphblas refuses it (with its own exception, at times a built-in one), and
    gblas raises the GraphBLAS-named error."""
    snippet, error = RAISES[name]
    with pytest.raises(Exception):  # noqa: B017, PT011 - pgb's classes vary
        run_pgb(snippet)
    with pytest.raises(getattr(gblas.exceptions, error)):
        snippet(gblas)
