"""Sorting small sets of vertex ids inside Numba kernels.

A push step collects the outputs it touched in arrival order and must return them sorted.
Numba's ``np.sort`` (a quicksort compiled from Python) takes ~90-150 µs for 4 000 ids and
is slower still on the nearly sorted lists a grid's frontier produces; an LSD radix sort
over the ids' bits, which are bounded by the vector's size, takes a few passes of
histogram + scatter: O(count · passes + 2048 · passes).
"""

from __future__ import annotations

import numba
import numpy as np

_DIGIT_BITS = 11
_BUCKETS = 1 << _DIGIT_BITS


@numba.njit(cache=True, nogil=True, inline="always")
def radix_passes(bound):  # noqa: ANN001, ANN201
    """Passes of :func:`radix_sort` for ids in [0, bound)."""
    bits = 1
    while (1 << bits) < bound:
        bits += 1
    return (bits + _DIGIT_BITS - 1) // _DIGIT_BITS


@numba.njit(cache=True, nogil=True)
def radix_sort(a, bound):  # noqa: ANN001, ANN201
    """A sorted copy of the non-negative int64 ids ``a`` (all below ``bound``)."""
    m = a.shape[0]
    src = a.copy()
    if m < 2:
        return src
    dst = np.empty(m, dtype=np.int64)
    count = np.empty(_BUCKETS, dtype=np.int64)
    mask = _BUCKETS - 1
    for p in range(radix_passes(bound)):
        shift = p * _DIGIT_BITS
        count[:] = 0
        for t in range(m):
            count[(src[t] >> shift) & mask] += 1
        total = 0
        for d in range(_BUCKETS):
            c = count[d]
            count[d] = total
            total += c
        for t in range(m):
            v = src[t]
            d = (v >> shift) & mask
            dst[count[d]] = v
            count[d] += 1
        src, dst = dst, src
    return src


__all__ = ["radix_passes", "radix_sort"]
