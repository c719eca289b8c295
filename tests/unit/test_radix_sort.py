"""gblas.backend.sort.radix_sort against NumPy's sort, and the CPU push that uses it for
touched lists of every size (sorted output whichever of radix sort / flag scan runs)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gblas import Descriptor, Matrix, Vector, semiring
from gblas.backend.sort import radix_passes, radix_sort


@given(st.integers(1, 2**40), st.lists(st.integers(0, 2**40), max_size=3000))
def test_radix_sort_equals_numpy(bound: int, values: list[int]) -> None:
    a = np.array([v % bound for v in values], dtype=np.int64)
    before = a.copy()
    np.testing.assert_array_equal(radix_sort(a, bound), np.sort(a))
    np.testing.assert_array_equal(a, before)  # the input is not changed


@pytest.mark.parametrize("bound,passes", [(1, 1), (2, 1), (2048, 1), (2049, 2),
                                          (1 << 22, 2), ((1 << 22) + 1, 3), (1 << 33, 3)])
def test_radix_passes(bound: int, passes: int) -> None:
    assert radix_passes(bound) == passes


@pytest.mark.parametrize("frontier", [1, 7, 300, 3000, 20000])
def test_push_outputs_sorted_for_every_touched_size(frontier: int) -> None:
    """Pushes whose touched lists take the radix sort (small) or the flag scan (large)
    give the pull's result, indices sorted."""
    rng = np.random.default_rng(frontier)
    n = 1 << 15
    rows, cols = rng.integers(0, n, 6 * n), rng.integers(0, n, 6 * n)
    A = Matrix.from_coo(rows, cols, rng.integers(1, 9, rows.shape[0]).astype(np.float64),  # noqa: N806
                        nrows=n, ncols=n, dup_op=semiring.plus_times.monoid.binaryop)
    idx = np.sort(rng.choice(n, frontier, replace=False))
    x = Vector.from_coo(idx, rng.integers(1, 5, frontier).astype(np.float64), size=n)
    got = {}
    for direction in ("push", "pull"):
        w = Vector(float, n)
        w(desc=Descriptor(direction=direction)) << x.vxm(A, semiring.min_plus)
        got[direction] = w.to_coo()
    assert np.all(np.diff(got["push"][0]) > 0)
    np.testing.assert_array_equal(got["push"][0], got["pull"][0])
    np.testing.assert_array_equal(got["push"][1], got["pull"][1])
