"""Array algebra on sorted entry keys (vector indices or row-major matrix keys).

Below both the operations (write-back, element-wise ops) and the formats (generic kernels):
written against the NumPy API so it runs on CuPy arrays too, and imports neither layer.
"""

from __future__ import annotations

import functools
from typing import Any

import numba
import numpy as np

from ..dtypes import DataType
from ..semirings.codegen_numba import segment_reduce as _udf_segment_reduce
from ..semirings.model import BinaryOp, Monoid


def xp_of(arr: Any) -> Any:
    if arr.__class__ is np.ndarray:  # the common case, without a string test
        return np
    if type(arr).__module__.startswith("cupy"):
        import cupy  # noqa: PLC0415

        return cupy
    return np


@functools.cache
def _count_kernel() -> Any:
    import cupy  # noqa: PLC0415

    return cupy.ElementwiseKernel(
        "T id", "raw uint64 counts",
        "atomicAdd((unsigned long long*)&counts[id], 1ULL)", "gblas_count_ids")


def bincount(ids: Any, n: int) -> Any:
    """``xp.bincount(ids, minlength=n)`` (int64) for ids known to lie in [0, n). On a GPU
    one atomic add an id: no reduction for the largest id, no read back and no compile
    for each new size class, as CuPy's ``bincount`` has."""
    xp = xp_of(ids)
    if xp is np:
        return np.bincount(ids, minlength=n)
    counts = xp.zeros(n, dtype=np.uint64)
    if ids.shape[0]:
        _count_kernel()(ids, counts)
    return counts.view(np.int64)


@numba.njit(cache=True, parallel=True, nogil=True)
def _fill_masked_cpu(bits, vals, mask, value):  # noqa: ANN001, ANN202
    n = 0
    for i in numba.prange(bits.shape[0]):
        if mask[i]:
            bits[i] = True
            vals[i] = value
        n += bits[i]
    return n


_PARALLEL_FILL = 1 << 18  # below this many positions: one thread


@numba.njit(cache=True, nogil=True)
def _fill_masked_serial(bits, vals, mask, value):  # noqa: ANN001, ANN202
    n = 0
    for i in range(bits.shape[0]):
        if mask[i]:
            bits[i] = True
            vals[i] = value
        n += bits[i]
    return n


def fill_masked(bits: Any, vals: Any, mask: Any, value: Any) -> int:
    """Where ``mask``: set ``bits`` and store ``value`` in ``vals`` (in place); returns the
    number of bits set afterwards. One fused pass on the CPU."""
    xp = xp_of(bits)
    if xp is np:
        v = np.asarray(value, dtype=vals.dtype)[()]
        m = np.ascontiguousarray(mask, dtype=np.bool_)
        if bits.shape[0] < _PARALLEL_FILL:  # waking the thread pool costs more
            return int(_fill_masked_serial(bits, vals, m, v))
        return int(_fill_masked_cpu(bits, vals, m, v))
    from .elementwise_cuda import fill_masked_kernel  # noqa: PLC0415

    fill_masked_kernel()(mask, vals.dtype.type(value), bits, vals)
    return int(bits.sum())


@numba.njit(cache=True, nogil=True)
def _equal_nan_equal(a, b):  # noqa: ANN001, ANN202
    for i in range(a.shape[0]):
        x, y = a[i], b[i]
        if x != y and not (x != x and y != y):
            return False
    return True


def equal_values(a: np.ndarray, b: np.ndarray) -> bool:
    """``a == b`` everywhere, a NaN equal to a NaN (NumPy's ``array_equal(equal_nan=True)``)
    for host arrays: one pass that stops at the first difference, where NumPy builds NaN
    masks and copies the non-NaN values (11 ms against ~1 for 1 M float64 on the 2-core
    machine)."""
    if a.shape != b.shape:
        return False
    if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    return bool(_equal_nan_equal(np.ascontiguousarray(a), np.ascontiguousarray(b)))


def match(keys: Any, query: Any) -> tuple[Any, Any]:
    """For each query key: (found in ``keys``, its position in ``keys``)."""
    xp = xp_of(query)
    if keys.shape[0] == 0:
        return xp.zeros(query.shape[0], dtype=bool), xp.zeros(query.shape[0], dtype=np.int64)
    pos = xp.searchsorted(keys, query)
    clipped = xp.minimum(pos, keys.shape[0] - 1)
    return keys[clipped] == query, clipped


def match_sorted(keys: Any, query: Any) -> tuple[Any, Any]:
    """:func:`match` for sorted unique ``keys`` and sorted unique ``query``: when the query
    is much longer, the few keys are looked up in it instead (O(k log q), not O(q log k))."""
    nk, nq = keys.shape[0], query.shape[0]
    if nk == 0 or nq == 0 or nq <= 8 * nk:
        return match(keys, query)
    xp = xp_of(query)
    at = xp.minimum(xp.searchsorted(query, keys), nq - 1)
    hit = query[at] == keys
    found = xp.zeros(nq, dtype=bool)
    pos = xp.zeros(nq, dtype=np.int64)
    found[at[hit]] = True
    pos[at[hit]] = xp.flatnonzero(hit)
    return found, pos


def positions(keys: Any, ncols: int | None) -> tuple[Any, Any]:
    """(i, j) of keys: vectors have i = index, j = 0."""
    xp = xp_of(keys)
    if ncols is None:
        return keys, xp.zeros_like(keys)
    nc = max(ncols, 1)
    return keys // nc, keys % nc


def binary_values(op: BinaryOp, a: Any, b: Any, domain: DataType, out: DataType,
                  i: Any = None, j: Any = None) -> Any:
    """op(a, b) element-wise in ``domain`` -> ``out`` (positional ops read i, j)."""
    op = op.for_domain(domain)
    if op.positional:
        idx = i if op.positional in ("firsti", "secondi") else j
        return (idx + op.offset).astype(out.np_type)
    res = op.np_func(a.astype(domain.np_type, copy=False), b.astype(domain.np_type, copy=False))
    return res.astype(out.np_type, copy=False)


def union(ka: Any, va: Any, kb: Any, vb: Any, op: BinaryOp, out: DataType,
          ncols: int | None = None) -> tuple[Any, Any]:
    """Entries of a ∪ b; op(a, b) where both are present."""
    xp = xp_of(ka)
    found, pos = match(kb, ka)
    keys = sorted_union(ka, kb)
    vals = xp.empty(keys.shape[0], dtype=out.np_type)
    pa = xp.searchsorted(keys, ka)
    pb = xp.searchsorted(keys, kb)
    vals[pb] = vb.astype(out.np_type, copy=False)
    vals[pa] = va.astype(out.np_type, copy=False)
    if bool(found.any()):
        domain = op.domain(_dt(va), _dt(vb))
        both = ka[found]
        i, j = positions(both, ncols)
        vals[pa[found]] = binary_values(op, va[found], vb[pos[found]], domain, out, i, j)
    return keys, vals


def sorted_unique(keys: Any) -> Any:
    """Sorted distinct keys (sort + neighbour compare: much faster than np.unique here)."""
    xp = xp_of(keys)
    if keys.shape[0] < 2:
        return keys.copy()
    s = xp.sort(keys)
    keep = xp.empty(s.shape[0], dtype=bool)
    keep[0] = True
    keep[1:] = s[1:] != s[:-1]
    return s[keep]


def sorted_union(ka: Any, kb: Any) -> Any:
    """Union of two sorted unique key arrays."""
    if kb.shape[0] == 0:
        return ka
    if ka.shape[0] == 0:
        return kb
    return sorted_unique(xp_of(ka).concatenate([ka, kb]))


def intersect(ka: Any, va: Any, kb: Any, vb: Any, op: BinaryOp, out: DataType,
              ncols: int | None = None) -> tuple[Any, Any]:
    """Entries of a ∩ b with op(a, b)."""
    found, pos = match_sorted(kb, ka)
    keys = ka[found]
    domain = op.domain(_dt(va), _dt(vb))
    i, j = positions(keys, ncols)
    return keys, binary_values(op, va[found], vb[pos[found]], domain, out, i, j)


def _dt(arr: Any) -> DataType:
    from ..dtypes import lookup_dtype  # noqa: PLC0415

    return lookup_dtype(arr.dtype)


def segment_reduce(monoid: Monoid, values: Any, starts: Any, out: DataType) -> Any:
    """Fold ``values[starts[s]:starts[s+1]]`` (non-empty segments) with ``monoid``."""
    xp = xp_of(values)
    values = values.astype(out.np_type, copy=False)
    if starts.shape[0] == 0:
        return xp.empty(0, dtype=out.np_type)
    op = monoid.binaryop
    if monoid.is_any or op.name in ("first", "any"):
        return values[starts]
    if op.name == "second":
        ends = xp.concatenate([starts[1:], xp.asarray([values.shape[0]])]) - 1
        return values[ends]
    if xp is not np and op.opcode >= 0:  # CuPy: the CUDA segmented reduction (opcodes)
        from .cuda import segment_reduce as _cuda_segment_reduce  # noqa: PLC0415

        return _cuda_segment_reduce(op.opcode, values, starts, out.np_type)
    if op.ufunc is not None:
        return op.ufunc.reduceat(values, starts).astype(out.np_type, copy=False)
    if op.nb_func is None:
        raise NotImplementedError(f"no segmented reduction for {monoid!r}")
    # user-defined monoid on the GPU: explicit host round trip (no CUDA form of a UDF)
    host_vals = values if xp is np else values.get()
    host_starts = starts if xp is np else starts.get()
    ends = np.concatenate([host_starts[1:], [host_vals.shape[0]]]).astype(np.int64)
    res = np.empty(host_starts.shape[0], dtype=out.np_type)
    _udf_segment_reduce(op.nb_func, host_vals, host_starts.astype(np.int64), ends, res)
    return res if xp is np else xp.asarray(res)


def reduce_all(monoid: Monoid, values: Any, out: DataType) -> Any:
    """Fold every value (non-empty) with ``monoid``; returns a Python scalar."""
    xp = xp_of(values)
    if xp is not np:  # every block folds a share (one segment would be one thread's work)
        from .reduce_cuda import reduce_dense  # noqa: PLC0415

        ds = reduce_dense(monoid, None, values, out)
        if ds is not None:
            return ds.read()[0]
    op = monoid.binaryop
    if op.ufunc is not None and not (monoid.is_any or op.name in ("first", "second", "any")) \
            and (not out.is_float or op.name in ("min", "max")):
        # one segment: the ufunc's own reduction (reduceat's index array and copy are per
        # call); not for float sums and products, which it adds pairwise (reduceat adds in
        # order: the results would differ in the last bits from every other path)
        return op.ufunc.reduce(values.astype(out.np_type, copy=False)).astype(
            out.np_type, copy=False).item()
    return segment_reduce(monoid, values, xp.zeros(1, dtype=np.int64), out)[0].item()


def repeat(values: Any, counts: Any) -> Any:
    """``values[p]`` repeated ``counts[p]`` times (NumPy ``repeat``; CuPy's takes no array
    of counts: there it is a scan and a search, with one host read of the total)."""
    xp = xp_of(values)
    if xp is np:
        return np.repeat(values, counts)
    if counts.shape[0] == 0:
        return values[:0]
    ends = xp.cumsum(counts)
    total = int(ends[-1])
    return values[xp.searchsorted(ends, xp.arange(total, dtype=np.int64), side="right")]


def run_starts(sorted_keys: Any) -> Any:
    """Start positions of the runs of equal keys in a sorted array."""
    xp = xp_of(sorted_keys)
    if sorted_keys.shape[0] == 0:
        return xp.empty(0, dtype=np.int64)
    flags = xp.empty(sorted_keys.shape[0], dtype=bool)
    flags[0] = True
    flags[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return xp.flatnonzero(flags).astype(np.int64)


def merge_disjoint(ka: Any, va: Any, kb: Any, vb: Any) -> tuple[Any, Any]:
    """Sorted union of two key sets known to be disjoint."""
    xp = xp_of(ka)
    if kb.shape[0] == 0:
        return ka, va
    if ka.shape[0] == 0:
        return kb, vb.astype(va.dtype, copy=False)
    if ka.shape[0] < kb.shape[0]:
        ka, va, kb, vb = kb, vb.astype(va.dtype, copy=False), ka, va  # values: a's dtype
    # each key of the shorter list lands after the longer list's keys below it: O(a + b log a)
    at = xp.searchsorted(ka, kb) + xp.arange(kb.shape[0], dtype=np.int64)
    total = ka.shape[0] + kb.shape[0]
    keys = xp.empty(total, dtype=ka.dtype)
    vals = xp.empty(total, dtype=va.dtype)
    rest = xp.ones(total, dtype=bool)
    rest[at] = False
    keys[at] = kb
    vals[at] = vb.astype(va.dtype, copy=False)
    keys[rest] = ka
    vals[rest] = va
    return keys, vals
