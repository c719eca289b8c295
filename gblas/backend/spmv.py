"""CPU pull SpMV for the arithmetic semirings on a dense vector: T = M ⊕.⊗ x with ⊕ in
{plus, min, max} and ⊗ in {first, second, times, plus, pair} on one numeric type.

The general CPU kernel (``formats/csr/cpu.py``) switches on the opcodes for every entry,
casts through the wide type and tests the terminal value; for these semirings (PageRank's
plus_first, plus_times, connected components' min_second, Bellman-Ford's min_plus) the
operator calls are inlined, the x-presence test is a select rather than a branch, and a
full x skips it: about 4x fewer cycles per entry, SciPy's ``csr_matvec`` speed. Results
are those of the general kernel: each product and each fold in the one type (a float32
product computed in float64 and rounded is the float32 product), the fold starting from
the first product (fmin/fmax: a NaN product is skipped, as there).

Takes raw CSR arrays (no format containers: this module sits below the formats).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import prange

from ..semirings.codegen_numba import FIRST, MAX, MIN, PAIR, PLUS, SECOND, TIMES
from ..semirings.model import KernelSemiring
from .threads import chunksize, num_threads, threads_for

_TYPES = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.int64),
          np.dtype(np.int32))
_MULTS = {"first": FIRST, "second": SECOND, "times": TIMES, "plus": PLUS, "pair": PAIR,
          "oneb": PAIR}
_MONOIDS = {"plus": PLUS, "min": MIN, "max": MAX}


def applies(ks: KernelSemiring) -> bool:
    """Whether :func:`pull` computes ``ks`` (one numeric type, no user-defined operator)."""
    mult, add = ks.mult, ks.add
    if ks.is_udf or mult is None or add is None or mult.positional:
        return False
    if ks.domain != ks.out_type or np.dtype(ks.domain.np_type) not in _TYPES:
        return False
    return mult.name in _MULTS and add.binaryop.name in _MONOIDS and not add.is_any


@numba.njit(inline="always")
def _prod(mop, mvals, m_iso, p, xv):  # noqa: ANN001, ANN202
    if mop == SECOND:
        return xv
    a = mvals[0] if m_iso else mvals[p]
    if mop == FIRST:
        return a
    if mop == TIMES:
        return a * xv
    return a + xv


@numba.njit(inline="always")
def _fold(aop, acc, t):  # noqa: ANN001, ANN202
    if aop == PLUS:
        return acc + t
    if aop == MIN:
        return acc if (acc < t or t != t) else t
    return acc if (acc > t or t != t) else t


# Indices are unsigned in the row loops: Numba wraps a negative signed index around (a
# compare and a select at every array read), which cost 40 % of a pull over luxembourg_osm's
# rows of two entries (one thread: 809 -> 479 µs, 2026-11-27). Mixing uint64 with int64
# would give float64 in Numba: every index below stays uint64 (_ONE, not 1).
_ONE = np.uint64(1)


@numba.njit(inline="always")
def _full_row(i, indptr, indices, mvals, m_iso, x, aop, mop, out, pres):  # noqa: ANN001, ANN202
    """Row i (uint64) of T for a full x."""
    lo = np.uint64(indptr[i])
    hi = np.uint64(indptr[i + _ONE])
    if lo == hi:
        pres[i] = False
        return
    acc = _prod(mop, mvals, m_iso, lo, x[np.uint64(indices[lo])])
    for p in range(lo + _ONE, hi):
        acc = _fold(aop, acc, _prod(mop, mvals, m_iso, p, x[np.uint64(indices[p])]))
    out[i] = acc
    pres[i] = True


@numba.njit(inline="always")
def _row(i, indptr, indices, mvals, m_iso, x, xpres, x_full, mask, use_mask, mcomp,  # noqa: ANN001, ANN202
         aop, mop, out, pres):
    """Row i (uint64) of T."""
    if use_mask and mask[i] == mcomp:
        pres[i] = False
        return
    if x_full:
        _full_row(i, indptr, indices, mvals, m_iso, x, aop, mop, out, pres)
        return
    lo = np.uint64(indptr[i])
    hi = np.uint64(indptr[i + _ONE])
    if lo == hi:
        pres[i] = False
        return
    k0 = np.uint64(indices[lo])
    found = xpres[k0]
    acc = _prod(mop, mvals, m_iso, lo, x[k0])
    for p in range(lo + _ONE, hi):
        k = np.uint64(indices[p])
        b = xpres[k]
        t = _prod(mop, mvals, m_iso, p, x[k])
        folded = _fold(aop, acc, t) if found else t
        acc = folded if b else acc
        found = found or b
    out[i] = acc
    pres[i] = found


# a row costs about as much as this many entries (the inner loop's exit, mispredicted when
# row lengths vary, and the stores): email-Enron's rows of 1-2 entries made the second half
# of its rows by entries 1.9x as slow as the first (2-core EPYC, 2026-11-27)
ROW_COST = 8
PIECES = 2  # pieces a thread: some slack when one thread is slowed


@numba.njit(inline="always")
def _row_cut(indptr, part, parts):  # noqa: ANN001, ANN202
    """First row of piece ``part`` of ``parts`` pieces of about equal work (entries +
    ROW_COST per row): a binary search, so each thread finds its own rows."""
    n = indptr.shape[0] - 1
    target = (indptr[n] + ROW_COST * n) * part // parts
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if indptr[mid] + ROW_COST * mid < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(inline="always")
def _rows(t, parts, indptr, indices, mvals, m_iso, x, xpres, x_full, mask, use_mask,  # noqa: ANN001, ANN202
          mcomp, aop, mop, out, pres):
    """The rows of piece t of ``parts``."""
    first = np.uint64(_row_cut(indptr, t, parts))
    for i in range(first, np.uint64(_row_cut(indptr, t + 1, parts))):
        _row(i, indptr, indices, mvals, m_iso, x, xpres, x_full, mask, use_mask, mcomp, aop,
             mop, out, pres)


@numba.njit(inline="always")
def _rows_full(t, parts, indptr, indices, mvals, m_iso, x, aop, mop, out, pres):  # noqa: ANN001, ANN202
    """The rows of piece t of ``parts``, x full and no mask."""
    first = np.uint64(_row_cut(indptr, t, parts))
    for i in range(first, np.uint64(_row_cut(indptr, t + 1, parts))):
        _full_row(i, indptr, indices, mvals, m_iso, x, aop, mop, out, pres)


@numba.njit(parallel=True, nogil=True, cache=True, error_model="numpy")
def _pull(indptr, indices, mvals, m_iso, x, xpres, x_full, mask, use_mask, mcomp,  # noqa: ANN001, ANN202
          aop, mop, out, pres, parts):
    for t in prange(parts):
        _rows(t, parts, indptr, indices, mvals, m_iso, x, xpres, x_full, mask, use_mask,
              mcomp, aop, mop, out, pres)


@numba.njit(parallel=True, nogil=True, cache=True, error_model="numpy")
def _pull_full(indptr, indices, mvals, m_iso, x, aop, mop, out, pres, parts):  # noqa: ANN001, ANN202
    """_pull for a full x and no mask (PageRank's w, FastSV's gf): no presence or mask
    test in the row loop."""
    for t in prange(parts):
        _rows_full(t, parts, indptr, indices, mvals, m_iso, x, aop, mop, out, pres)


# Kernels of their own, the operators constants, for the products that read a matrix value
# per entry: there LLVM kept the shared kernel's operator switch inside the loop (min_plus
# over ego-Facebook's weights: 0.56 -> 0.23 ms). Separate kernels, chosen in pull(), rather
# than branches in one: a parallel kernel with four inlined copies took 30 s to compile.
# They take the shared kernels' arguments (pull() calls either alike) and ignore m_iso,
# aop and mop.
@numba.njit(parallel=True, nogil=True, cache=True, error_model="numpy")
def _pull_min_plus(indptr, indices, mvals, m_iso, x, xpres, x_full, mask, use_mask, mcomp,  # noqa: ANN001, ANN202
                   aop, mop, out, pres, parts):
    """_pull of min_plus over the matrix's values (Bellman-Ford's relaxation)."""
    for t in prange(parts):
        _rows(t, parts, indptr, indices, mvals, False, x, xpres, x_full, mask, use_mask,
              mcomp, MIN, PLUS, out, pres)


@numba.njit(parallel=True, nogil=True, cache=True, error_model="numpy")
def _pull_full_min_plus(indptr, indices, mvals, m_iso, x, aop, mop, out, pres, parts):  # noqa: ANN001, ANN202
    """_pull_full of min_plus over the matrix's values."""
    for t in prange(parts):
        _rows_full(t, parts, indptr, indices, mvals, False, x, MIN, PLUS, out, pres)


@numba.njit(parallel=True, nogil=True, cache=True, error_model="numpy")
def _pull_full_plus_times(indptr, indices, mvals, m_iso, x, aop, mop, out, pres, parts):  # noqa: ANN001, ANN202
    """_pull_full of plus_times over the matrix's values (weighted PageRank, SpMV)."""
    for t in prange(parts):
        _rows_full(t, parts, indptr, indices, mvals, False, x, PLUS, TIMES, out, pres)


_OWN_FULL = {(MIN, PLUS): _pull_full_min_plus, (PLUS, TIMES): _pull_full_plus_times}
_OWN = {(MIN, PLUS): _pull_min_plus}


# entries + rows below which one thread pulls: a parallel region over a tiny input can
# stall for milliseconds on a loaded machine, but on an idle 16-core host a 37 K pull took
# 52 µs in parallel against 228 µs on one thread (ops_overhead.py, 2026-11-25)
SERIAL_WORK = 1 << 12


_BOOL = np.dtype(np.bool_)
_CONSTANTS: dict[tuple[Any, str], Any] = {}


def _constant(dt: np.dtype, value: Any) -> Any:
    """A 1-element array of ``value`` (an iso value, a placeholder the kernels only read):
    kept, so that a small pull does not allocate one per call. Keyed by the value's repr:
    -0.0 == 0.0 (and a NaN is unequal to itself) as dictionary keys."""
    key = (dt, repr(value))
    arr = _CONSTANTS.get(key)
    if arr is None:
        if len(_CONSTANTS) > 256:  # iso values vary by matrix: bounded
            _CONSTANTS.clear()
        # writable: Numba compiles a read-only array argument as another signature
        arr = _CONSTANTS[key] = np.full(1, value, dtype=dt)
    return arr


def pull(indptr: Any, indices: Any, values: Any, iso: Any, x_bits: Any, x_vals: Any,
         mask_bits: Any, mask_comp: bool, ks: KernelSemiring) -> tuple[Any, Any]:
    """(present, values) of T = M ⊕.⊗ x over CSR arrays of M (``values`` None: every
    entry is ``iso``); ``x_bits`` None when x is full; rows the mask forbids are skipped."""
    dt = np.dtype(ks.domain.np_type)
    mop = _MULTS[ks.mult.name]
    if mop == PAIR:  # the product is 1: the matrix's value read as an iso 1
        mop, values, iso = FIRST, None, 1
    if mop in (FIRST, TIMES, PLUS):
        if values is None:
            mvals, m_iso = _constant(dt, iso), True
        else:
            mvals, m_iso = np.ascontiguousarray(values, dtype=dt), False
    else:
        mvals, m_iso = _constant(dt, 0), True
    n = indptr.shape[0] - 1
    x = np.ascontiguousarray(x_vals, dtype=dt)
    full = x_bits is None
    xpres = _constant(_BOOL, True) if full else np.ascontiguousarray(x_bits, np.bool_)
    use_mask = mask_bits is not None
    mask = np.ascontiguousarray(mask_bits, np.bool_) if use_mask else _constant(_BOOL, False)
    out = np.empty(n, dtype=dt)
    pres = np.empty(n, dtype=np.bool_)
    ptr = np.ascontiguousarray(indptr, np.int64)
    ind = np.ascontiguousarray(indices, np.int64)
    aop = _MONOIDS[ks.add.binaryop.name]
    if full and not use_mask:
        kernel = _pull_full if m_iso else _OWN_FULL.get((aop, mop), _pull_full)
        args = (ptr, ind, mvals, m_iso, x, aop, mop, out, pres)
    else:
        kernel = _pull if m_iso else _OWN.get((aop, mop), _pull)
        args = (ptr, ind, mvals, m_iso, x, xpres, full, mask, use_mask, bool(mask_comp), aop,
                mop, out, pres)
    work = indices.shape[0] + n
    # pieces of about equal work, handed to the threads as they come free: dynamic chunks of
    # rows (parallel_chunksize over the rows) balanced email-Enron's short rows badly, and
    # static halves lose when one thread is slowed (a loaded VM)
    threads = num_threads()
    if threads == 1 or work < SERIAL_WORK:
        with threads_for(work, SERIAL_WORK):
            kernel(*args, 1)
    else:
        with chunksize(1):
            kernel(*args, threads * PIECES)
    return pres, out


__all__ = ["applies", "pull"]
