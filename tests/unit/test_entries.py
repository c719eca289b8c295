"""Sorted-key algebra (gblas.backend.keys) against plain NumPy set operations."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gblas.backend import keys as E

keysets = st.lists(st.integers(0, 2000), max_size=300, unique=True)


@given(keys=keysets, data=st.data())
def test_merge_disjoint(keys: list[int], data: st.DataObject) -> None:
    side = data.draw(st.lists(st.booleans(), min_size=len(keys), max_size=len(keys)))
    a = np.sort(np.array([k for k, s in zip(keys, side, strict=True) if s], dtype=np.int64))
    b = np.sort(np.array([k for k, s in zip(keys, side, strict=True) if not s], dtype=np.int64))
    k, v = E.merge_disjoint(a, a * 3, b, (b * 3).astype(np.int32))
    np.testing.assert_array_equal(k, np.sort(np.array(keys, dtype=np.int64)))
    np.testing.assert_array_equal(v, k * 3)
    assert v.dtype == np.int64  # the first operand's value type


@given(keys=keysets, query=keysets)
def test_match_sorted_equals_match(keys: list[int], query: list[int]) -> None:
    k = np.sort(np.array(keys, dtype=np.int64))
    q = np.sort(np.array(query, dtype=np.int64))
    found, pos = E.match_sorted(k, q)
    np.testing.assert_array_equal(found, np.isin(q, k))
    np.testing.assert_array_equal(k[pos[found]], q[found])
