"""CPU (Numba) kernels over CSR, and the thin Python wrappers the ops layer calls.

Techniques:

- **mxv pull** (row-wise SpMV over a bitmap vector, GraphBLAST/Yang-Buluç-Owens ICPP'18):
  one row per iteration, parallel over rows, mask checked before a row is read, early
  exit on the monoid's terminal value (``any``: the first product found; with a
  structure-only multiply this is the BFS bottom-up step).
- **mxv push** (SpMSpV scatter from a sparse vector over CSR of Mᵀ, GraphBLAST): a dense
  accumulator + touched list kept in a module workspace, mask checked before an output
  row is touched, touched indices sorted (or the flags scanned when many).
- **mxm** by Gustavson's row-wise SpGEMM (Gustavson, ACM TOMS 1978): two passes (symbolic
  count, numeric fill), dense per-thread accumulators stamped with the row id, optional
  (complemented) mask pattern.
- **masked mxm** by dot products only at the mask's entries (SuiteSparse ``dot3``, Azad
  et al. triangle counting): per entry the cheapest of a sorted merge of row i of A and
  row j of Bᵀ, a galloping search when one row is much shorter, or probing row j against a
  bitmap of row i (marked once per row); early exit on terminal.
- transpose by a stable counting sort.

Built-in operators reach the kernels as *opcodes* (runtime arguments), so every kernel
is compiled once per dtype and cached on disk (``cache=True``). User-defined operators
are bound into a clone of the same Python source whose ``_MUL``/``_ADD`` globals call
the user's Numba functions (compiled per operator, in memory only).
"""

from __future__ import annotations

import types as pytypes
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from ...backend.bits import ctz
from ...backend.sort import radix_passes, radix_sort
from ...exceptions import NotImplementedForFormat
from ...semirings import codegen_numba as cg
from ...semirings.codegen_numba import add_op, cast_to, mult_op
from ...semirings.model import KernelSemiring
from ..coo.container import COO
from .container import CSR

assert cg.BOR + 2 == cg.BXOR and cg.BAND == cg.BOR + 1  # noqa: S101 - opcode ranges used below
_JIT_OPTS: dict[str, Any] = {"error_model": "numpy", "nogil": True}
_J0 = np.int64(0)  # j of an mxv product (a typed zero: a literal 0 would compile again)
_ONE, _ZERO = np.uint64(1), np.uint64(0)  # bit-word constants (typed: no int64 promotion)


# User-defined operators replace these two names in a clone of the kernel (SemiringKernel).
_MUL = mult_op
_ADD = add_op


def _udf_mul(fn: Any) -> Any:
    @numba.njit(inline="always")
    def mul(op, a, b, i, k, j, like):  # noqa: ANN001, ANN202
        return cast_to(fn(a, b), like)

    return mul


def _udf_add(fn: Any) -> Any:
    @numba.njit(inline="always")
    def add(op, x, y):  # noqa: ANN001, ANN202
        return cast_to(fn(x, y), x)

    return add


class SemiringKernel:
    """A kernel written once over ``_MUL``/``_ADD``: a cached built-in-opcode variant, and
    per-user-operator variants cloned from the same Python source (not cacheable).

    ``bodies`` names module-level Numba functions that the kernel calls and that call
    ``_MUL``/``_ADD`` themselves (a parallel driver over a sequential body compiles much
    faster than one big parfor); they are cloned along with the kernel.
    """

    def __init__(self, py_func: Callable[..., Any], *, parallel: bool,
                 bodies: tuple[str, ...] = ()) -> None:
        self.py_func = py_func
        self.parallel = parallel
        self.bodies = bodies
        self.builtin = numba.njit(cache=True, parallel=parallel, **_JIT_OPTS)(py_func)
        self._udf: dict[tuple[Any, Any], Any] = {}

    @property
    def stats(self) -> Any:
        return self.builtin.stats

    def for_semiring(self, ks: KernelSemiring) -> Any:
        mop, aop = kernel_opcodes(ks)
        if mop >= 0 and aop >= 0:
            return self.builtin
        mfn = ks.mult_fn if mop < 0 else None
        afn = ks.add_fn if aop < 0 else None
        if (mop < 0 and mfn is None) or (aop < 0 and afn is None):
            raise NotImplementedForFormat(
                f"{ks.semiring!r} has an operator with neither an opcode nor a Numba "
                "function; the CPU kernels cannot run it (use the reference path)")
        key = (mfn, afn)
        disp = self._udf.get(key)
        if disp is None:
            g = dict(self.py_func.__globals__)
            if mfn is not None:
                g["_MUL"] = _udf_mul(mfn)
            if afn is not None:
                g["_ADD"] = _udf_add(afn)
            for name in self.bodies:
                g[name] = numba.njit(**_JIT_OPTS)(_clone(g[name].py_func, g))
            disp = numba.njit(parallel=self.parallel, **_JIT_OPTS)(_clone(self.py_func, g))
            self._udf[key] = disp
        return disp


def _clone(f: Callable[..., Any], g: dict[str, Any]) -> Callable[..., Any]:
    """``f`` with globals ``g`` (same code, defaults and closure)."""
    clone = pytypes.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
    clone.__qualname__ = f.__qualname__
    return clone


# ================================================================ argument preparation
def _scalar(value: Any, np_type: np.dtype) -> Any:
    return np.asarray(value).astype(np_type)[()]


def kernel_opcodes(ks: KernelSemiring) -> tuple[int, int]:
    """(multiply, monoid) opcodes the kernels run; -1 where only a Numba function can."""
    return int(ks.mult_op), int(ks.add_op)


def sr_args(ks: KernelSemiring) -> tuple[Any, ...]:
    """(mult_op, add_op, identity, terminal, has_terminal, is_any): the kernels' last
    arguments before their outputs (kept on the semiring: a small product pays for every
    microsecond here)."""
    return ks.derived("cpu_sr_args", _make_sr_args)


def _make_sr_args(ks: KernelSemiring) -> tuple[Any, ...]:
    out = ks.out_type.np_type
    return (*kernel_opcodes(ks), _scalar(ks.identity, out), _scalar(ks.terminal, out),
            bool(ks.has_terminal), bool(ks.is_any))


def value_dtype(ks: KernelSemiring) -> np.dtype:
    """The type operand values are cast to: the domain, or BOOL for a structure-only
    multiply (which reads no values), so that e.g. any_pair compiles once for all types."""
    return np.dtype(np.bool_) if ks.structural else ks.domain.np_type


def operand_values(values: Any, iso: Any, used: bool, ks: KernelSemiring) -> tuple[Any, bool]:
    """(values cast to the multiply domain, is_iso). Kernels read ``vals[0] if is_iso else
    vals[p]``: an iso operand, or one the multiply does not read (then a 1-element dummy,
    and the operand's own arrays are never touched), passes one element."""
    dom = value_dtype(ks)
    if not used:
        return np.zeros(1, dtype=dom), True
    if values is None:
        if iso is None:
            raise ValueError(f"the multiply of {ks.semiring!r} reads operand values, "
                             "but none were given")
        return np.asarray([iso]).astype(dom), True
    return np.ascontiguousarray(values, dtype=dom), False


def mask_args(mask_bits: Any) -> tuple[Any, bool]:
    if mask_bits is None:
        return np.zeros(1, dtype=np.bool_), False
    return np.ascontiguousarray(mask_bits, dtype=np.bool_), True


def _idx(a: Any) -> Any:
    return np.ascontiguousarray(a, dtype=np.int64)


def _chunk(n: int) -> int:
    """Dynamic-scheduling chunk size for a prange over ``n`` (possibly skewed) rows."""
    t = max(numba.get_num_threads(), 1)
    return int(min(max(n // (t * 32), 16), 4096))


# ====================================================================== mxv: pull
def _pull_impl(indptr, indices, mvals, m_iso, xpres, xvals, x_iso, mask, use_mask, mcomp,  # noqa: ANN001, ANN202
               mop, aop, ident, term, has_term, is_any, out_pres, out_vals):
    for ii in prange(indptr.shape[0] - 1):
        i = np.int64(ii)
        if use_mask and mask[i] == mcomp:
            out_pres[i] = False
            continue
        found = False
        acc = ident
        for p in range(indptr[i], indptr[i + 1]):
            k = indices[p]
            if not xpres[k]:
                continue
            t = _MUL(mop, mvals[0] if m_iso else mvals[p], xvals[0] if x_iso else xvals[k],
                     i, k, _J0, ident)
            acc = _ADD(aop, acc, t) if found else t
            found = True
            if is_any or (has_term and acc == term):
                break
        out_pres[i] = found
        out_vals[i] = acc


_pull = SemiringKernel(_pull_impl, parallel=True)


def _pull_first_impl(indptr, indices, xbits, mask, use_mask, mcomp, kind, offset,  # noqa: ANN001, ANN202
                     out_pres, out_vals):
    """Pull for a structure-only multiply under the ``any`` monoid (the BFS bottom-up
    step): the first k of row i with x(k) present gives T(i) = offset (+ i if kind is 1,
    + k if kind is 2): pair, firsti, secondi... (:func:`_first_value`). ``xbits`` is x's
    presence packed 8 per byte (little bit order): at 1/8 of a bool array it stays in the
    L2 cache, where the random reads x(k) of a large graph land. No opcode switch in the
    loop: it halved the speed of this latency-bound scan."""
    for ii in prange(indptr.shape[0] - 1):
        i = np.int64(ii)
        found = False
        if not (use_mask and mask[i] == mcomp):
            for p in range(indptr[i], indptr[i + 1]):
                k = indices[p]
                if (xbits[k >> 3] >> (k & 7)) & 1:
                    v = offset
                    if kind == 1:
                        v += i
                    elif kind == 2:
                        v += k
                    out_vals[i] = v
                    found = True
                    break
        out_pres[i] = found


_pull_first = numba.njit(cache=True, parallel=True, **_JIT_OPTS)(_pull_first_impl)


def _first_value(ks: KernelSemiring) -> tuple[int, int] | None:
    """(kind, offset) of a structure-only multiply's product in mxv (T(i) from row i's
    entry k): pair/oneb are 1, firsti is i, firstj and secondi are k, secondj is j = 0;
    None when the multiply is none of these."""
    mult = ks.mult
    if mult is None or not ks.structural or kernel_opcodes(ks)[0] < 0:
        return None
    pos = mult.positional
    if pos is None:
        return (0, 1) if mult.name in ("pair", "oneb") else None
    kind = {"firsti": 1, "firstj": 2, "secondi": 2, "secondj": 0}[pos]
    return kind, int(mult.offset)


def pull_first_applies(ks: KernelSemiring) -> bool:
    """Whether :func:`mxv_pull` takes the bit-packed first-found kernel for ``ks``."""
    return bool(ks.is_any and _first_value(ks) is not None)


def mxv_pull(M: CSR, x_present: Any, x_values: Any | None, mask_bits: Any | None,
             mask_comp: bool, ks: KernelSemiring) -> tuple[Any, Any]:
    """T = M ⊕.⊗ x row by row, x as a bitmap (GraphBLAST pull); rows the mask excludes are
    skipped unread. Returns (present: bool[nrows], values: out_type[nrows])."""
    out_pres = np.empty(M.nrows, dtype=np.bool_)
    out_vals = np.empty(M.nrows, dtype=ks.out_type.np_type)
    if M.nrows == 0:
        return out_pres, out_vals
    mb, use_mask = mask_args(mask_bits)
    if pull_first_applies(ks):
        xbits = np.packbits(np.asarray(x_present, dtype=np.bool_), bitorder="little")
        kind, offset = _first_value(ks)  # type: ignore[misc]
        with numba.parallel_chunksize(_chunk(M.nrows)):
            _pull_first(_idx(M.indptr), _idx(M.indices), xbits, mb, use_mask,
                        bool(mask_comp), kind, np.int64(offset), out_pres, out_vals)
        return out_pres, out_vals
    with numba.parallel_chunksize(_chunk(M.nrows)):
        _pull.for_semiring(ks)(
            _idx(M.indptr), _idx(M.indices), *operand_values(M.values, M.iso, ks.uses_left, ks),
            np.ascontiguousarray(x_present, dtype=np.bool_),
            *operand_values(x_values, None, ks.uses_right, ks), mb, use_mask, bool(mask_comp),
            *sr_args(ks), out_pres, out_vals)
    return out_pres, out_vals


# ====================================================================== mxv: push
def _push_impl(indptr, indices, mvals, m_iso, xidx, xvals, x_iso, mask, use_mask, mcomp,  # noqa: ANN001, ANN202
               mop, aop, ident, term, has_term, is_any, flag, acc, touched):
    """``flag``: a bit a row (uint64 words, all zero on entry and on return), so the
    touched set of a small frontier stays in the cache and comes out sorted by a scan of
    its words."""
    cnt = 0
    for q in range(xidx.shape[0]):
        k = xidx[q]
        b = xvals[0] if x_iso else xvals[q]
        for p in range(indptr[k], indptr[k + 1]):
            i = indices[p]
            if use_mask and mask[i] == mcomp:
                continue
            w = i >> 6
            bit = _ONE << np.uint64(i & 63)
            seen = (flag[w] & bit) != _ZERO
            if seen and (is_any or (has_term and acc[i] == term)):
                continue
            t = _MUL(mop, mvals[0] if m_iso else mvals[p], b, i, k, _J0, ident)
            if seen:
                acc[i] = _ADD(aop, acc[i], t)
            else:
                acc[i] = t
                flag[w] |= bit
                touched[cnt] = i
                cnt += 1
    # the output in index order, in this call (a small frontier pays for every Python-level
    # array call): radix-sort the touched list, or scan the words of the flags, whichever
    # costs less; the flags are cleared on the way
    nwords = flag.shape[0]
    idx = np.empty(cnt, dtype=np.int64)
    if radix_passes(nwords * 64) * (8 * cnt + 2048) < nwords:
        idx[:] = radix_sort(touched[:cnt], nwords * 64)
        for t in range(cnt):
            flag[idx[t] >> 6] = _ZERO
    else:
        c = 0
        for w in range(nwords):
            x = flag[w]
            if x != _ZERO:
                flag[w] = _ZERO
                while x != _ZERO:
                    idx[c] = w * 64 + np.int64(ctz(x))
                    c += 1
                    x &= x - _ONE
    vals = np.empty(cnt, dtype=acc.dtype)
    for t in range(cnt):
        vals[t] = acc[idx[t]]
    return idx, vals


_push = SemiringKernel(_push_impl, parallel=False)


def _push_mark_impl(indptr, indices, xidx, mask, use_mask, mcomp, flag):  # noqa: ANN001, ANN202
    """Parallel push for a multiply whose value does not depend on k: mark every allowed
    out-neighbour of the frontier. Threads may store True to the same flag at once; they
    store the same value, and which k reached i first does not change T(i)."""
    for q in prange(xidx.shape[0]):
        k = xidx[q]
        for p in range(indptr[k], indptr[k + 1]):
            i = indices[p]
            if not (use_mask and mask[i] == mcomp):
                flag[i] = True


_push_mark = numba.njit(cache=True, parallel=True, **_JIT_OPTS)(_push_mark_impl)


@numba.njit(cache=True, parallel=True, **_JIT_OPTS)
def _row_products(flag, mop, ident, out):  # noqa: ANN001, ANN202
    for ii in prange(flag.shape[0]):
        if flag[ii]:
            out[ii] = _MUL(mop, ident, ident, np.int64(ii), _J0, _J0, ident)


_PARALLEL_PUSH_EDGES = 1 << 16  # frontier edges below which the sequential push is faster


def push_mark_applies(ks: KernelSemiring) -> bool:
    """Structure-only ``any`` semirings whose product ignores k (pair, firsti): the push
    can run in parallel and still give the same T as the sequential one."""
    return bool(ks.structural and ks.is_any and kernel_opcodes(ks)[0] >= 0
                and ks.mult is not None and ks.mult.positional in (None, "firsti"))


_PUSH_WS: dict[tuple[int, np.dtype], tuple[Any, Any, Any]] = {}


def mxv_push(MT: CSR, x_indices: Any, x_values: Any | None, nrows: int,
             mask_bits: Any | None, mask_comp: bool, ks: KernelSemiring) -> tuple[Any, Any]:
    """T = M ⊕.⊗ x by scattering each x entry k over row k of MT = Mᵀ (GraphBLAST push).

    ``x_values`` is aligned with ``x_indices`` (sorted). A dense accumulator, flags and a
    touched list are kept per (nrows, out dtype) and reset after use. Returns (indices
    sorted unique, values).
    """
    out = ks.out_type.np_type
    xi = _idx(x_indices)
    if xi.shape[0] == 0 or nrows == 0 or MT.nnz == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=out)
    mb, use_mask = mask_args(mask_bits)
    key = (int(nrows), np.dtype(out))
    ws = _PUSH_WS.pop(key, None)  # popped while in use: safe for concurrent callers
    if ws is None:
        ws = (np.zeros((nrows + 63) // 64, dtype=np.uint64), np.empty(nrows, dtype=out),
              np.empty(nrows, dtype=np.int64))
    flag, acc, touched = ws
    try:
        idx, vals = _push.for_semiring(ks)(
            _idx(MT.indptr), _idx(MT.indices),
            *operand_values(MT.values, MT.iso, ks.uses_left, ks), xi,
            *operand_values(x_values, None, ks.uses_right, ks), mb, use_mask, bool(mask_comp),
            *sr_args(ks), flag, acc, touched)
    except BaseException:
        flag[:] = 0
        raise
    finally:
        if len(_PUSH_WS) >= 8:  # keep a few workspaces (graphs in use), not one per size
            _PUSH_WS.pop(next(iter(_PUSH_WS)), None)
        _PUSH_WS[key] = ws
    return idx, vals


def mxv_push_parallel(MT: CSR, x_indices: Any, nrows: int, mask_bits: Any | None,
                      mask_comp: bool, ks: KernelSemiring) -> tuple[Any, Any] | None:
    """The parallel push (:func:`push_mark_applies`) as a bitmap (present, values), or None
    when it does not apply or the frontier's edges are too few to pay for threads."""
    xi = _idx(x_indices)
    if xi.shape[0] * 16 * MT.nnz < _PARALLEL_PUSH_EDGES * max(MT.nrows, 1):
        return None  # far below the threshold at 16x the average degree: skip the sum
    if nrows == 0 or not ks.derived("push_mark", push_mark_applies) or \
            numba.get_num_threads() < 2:
        return None
    indptr = _idx(MT.indptr)
    if int((indptr[xi + 1] - indptr[xi]).sum()) < _PARALLEL_PUSH_EDGES:
        return None
    mb, use_mask = mask_args(mask_bits)
    flag = np.zeros(nrows, dtype=np.bool_)
    with numba.parallel_chunksize(max(1, min(256, xi.shape[0] // 64))):
        _push_mark(indptr, _idx(MT.indices), xi, mb, use_mask, bool(mask_comp), flag)
    vals = np.empty(nrows, dtype=ks.out_type.np_type)
    _row_products(flag, kernel_opcodes(ks)[0], _scalar(ks.identity, ks.out_type.np_type), vals)
    return flag, vals


# ====================================================================== mxm: Gustavson
@numba.njit(cache=True, nogil=True)
def _sort_range(a, lo, hi):  # noqa: ANN001, ANN202
    """Sort a[lo:hi] in place (Shell sort, gaps 3h+1: small code that compiles fast)."""
    h = 1
    while h < (hi - lo) // 3:
        h = 3 * h + 1
    while h >= 1:
        for p in range(lo + h, hi):
            v = a[p]
            q = p
            while q >= lo + h and a[q - h] > v:
                a[q] = a[q - h]
                q -= h
            a[q] = v
        h //= 3


@numba.njit(cache=True, nogil=True)
def _probe_mask(a_ptr, a_idx, b_ptr, m_ptr, i):  # noqa: ANN001, ANN202
    """Whether row i of a Gustavson product should search its mask row for each candidate
    column instead of scattering the whole row: the mask row is longer than 4x the row's
    products (betweenness' complemented mask ¬Σ grows to every reached vertex while the
    frontier stays small: on a road or mesh graph of hundreds of levels, scattering Σ each
    level cost O(n) per level and source)."""
    mlen = m_ptr[i + 1] - m_ptr[i]
    if mlen < 64:
        return False
    flops = 0
    for pa in range(a_ptr[i], a_ptr[i + 1]):
        k = a_idx[pa]
        flops += b_ptr[k + 1] - b_ptr[k]
        if 4 * flops >= mlen:
            return False
    return True


@numba.njit(cache=True, nogil=True, inline="always")
def _bit(bits, j):  # noqa: ANN001, ANN202
    return (bits[j >> 6] >> np.uint64(j & 63)) & np.uint64(1)


@numba.njit(cache=True, nogil=True, inline="always")
def _set_bit(bits, j):  # noqa: ANN001, ANN202
    bits[j >> 6] |= np.uint64(1) << np.uint64(j & 63)


@numba.njit(cache=True, nogil=True, inline="always")
def _in_mask(m_idx, m_ptr, mbits, probe, i, j):  # noqa: ANN001, ANN202
    """Whether column j is in row i of the mask pattern (its bits set, or searched)."""
    if not probe:
        return _bit(mbits, j) != 0
    p = _lower_bound(m_idx, m_ptr[i], m_ptr[i + 1], j)
    return p < m_ptr[i + 1] and m_idx[p] == j


@numba.njit(cache=True, nogil=True)
def _mask_row_bits(m_ptr, m_idx, mbits, i, on):  # noqa: ANN001, ANN202
    """Set (or clear, word by word) the bits of mask row i."""
    for pm in range(m_ptr[i], m_ptr[i + 1]):
        if on:
            _set_bit(mbits, m_idx[pm])
        else:
            mbits[m_idx[pm] >> 6] = 0


# The Gustavson passes mark a row's columns (and its mask row) in bitmaps of ncols/8 bytes
# a worker, cleared after each row through the columns it set: they stay in L1/L2 where
# int64 marker arrays (8 bytes a column) did not (BC at urand:16: 65 536 columns).
@numba.njit(cache=True, nogil=True)
def _gus_count_rows(t, nthr, a_ptr, a_idx, b_ptr, b_idx, ncols, m_ptr, m_idx, use_mask,  # noqa: ANN001, ANN202
                    mcomp, counts):
    nw = (ncols + 63) // 64
    mark = _bitmap(nw)
    mbits = _bitmap(nw if use_mask else 1)
    touched = np.empty(ncols, dtype=np.int64)
    for i in range(t, a_ptr.shape[0] - 1, nthr):
        c = 0
        probe = use_mask and _probe_mask(a_ptr, a_idx, b_ptr, m_ptr, i)
        if use_mask and not probe:
            _mask_row_bits(m_ptr, m_idx, mbits, i, True)
        if not (use_mask and not mcomp and m_ptr[i] == m_ptr[i + 1]):
            for pa in range(a_ptr[i], a_ptr[i + 1]):
                k = a_idx[pa]
                for pb in range(b_ptr[k], b_ptr[k + 1]):
                    j = b_idx[pb]
                    if _bit(mark, j):
                        continue
                    if use_mask and _in_mask(m_idx, m_ptr, mbits, probe, i, j) == mcomp:
                        continue
                    _set_bit(mark, j)
                    touched[c] = j
                    c += 1
        counts[i] = c
        for q in range(c):
            mark[touched[q] >> 6] = 0
        if use_mask and not probe:
            _mask_row_bits(m_ptr, m_idx, mbits, i, False)


@numba.njit(cache=True, parallel=True, nogil=True)
def _gus_count(a_ptr, a_idx, b_ptr, b_idx, ncols, m_ptr, m_idx, use_mask, mcomp, nthr,  # noqa: ANN001, ANN202
               counts):
    """Symbolic pass: entries of each row of C (rows interleaved over ``nthr`` workers)."""
    for t in prange(nthr):
        _gus_count_rows(np.int64(t), nthr, a_ptr, a_idx, b_ptr, b_idx, ncols, m_ptr, m_idx,
                        use_mask, mcomp, counts)


def _gus_fill_rows_impl(t, nthr, a_ptr, a_idx, avals, a_iso, b_ptr, b_idx, bvals, b_iso,  # noqa: ANN001, ANN202
                        ncols, m_ptr, m_idx, use_mask, mcomp, mop, aop, ident, term, has_term,
                        is_any, c_ptr, c_idx, c_vals):
    nw = (ncols + 63) // 64
    mark = _bitmap(nw)
    mbits = _bitmap(nw if use_mask else 1)
    acc = np.empty(ncols, dtype=c_vals.dtype)
    for i in range(t, a_ptr.shape[0] - 1, nthr):
        start = c_ptr[i]
        end = c_ptr[i + 1]
        if end == start:
            continue
        probe = use_mask and _probe_mask(a_ptr, a_idx, b_ptr, m_ptr, i)
        if use_mask and not probe:
            _mask_row_bits(m_ptr, m_idx, mbits, i, True)
        emit_mask_order = use_mask and not mcomp and not probe
        # a row reaching ncols/16 columns or more is emitted by one scan of the marks
        # (O(ncols / 64) words) rather than sorted (O(r log r)): the 8-64 wide frontier
        # rows of betweenness' forward sweep hold thousands to millions of columns
        scan = not emit_mask_order and (end - start) * 16 >= ncols
        emit_now = not emit_mask_order and not scan
        nz = start
        for pa in range(a_ptr[i], a_ptr[i + 1]):
            k = a_idx[pa]
            a = avals[0] if a_iso else avals[pa]
            for pb in range(b_ptr[k], b_ptr[k + 1]):
                j = b_idx[pb]
                if use_mask and _in_mask(m_idx, m_ptr, mbits, probe, i, j) == mcomp:
                    continue
                seen = _bit(mark, j) != 0
                if seen and (is_any or (has_term and acc[j] == term)):
                    continue
                v = _MUL(mop, a, bvals[0] if b_iso else bvals[pb], i, k, j, ident)
                if seen:
                    acc[j] = _ADD(aop, acc[j], v)
                else:
                    acc[j] = v
                    _set_bit(mark, j)
                    if emit_now:
                        c_idx[nz] = j
                        nz += 1
        if emit_mask_order:  # the mask row is sorted: emit its reached columns in order
            for pm in range(m_ptr[i], m_ptr[i + 1]):
                if _bit(mark, m_idx[pm]):
                    c_idx[nz] = m_idx[pm]
                    nz += 1
        elif scan:
            for w in range(nw):
                word = mark[w]
                if word:
                    for b in range(64):
                        if (word >> np.uint64(b)) & np.uint64(1):
                            c_idx[nz] = w * 64 + b
                            nz += 1
        else:
            _sort_range(c_idx, start, end)
        for q in range(start, end):  # every marked column was emitted: clear by them
            mark[c_idx[q] >> 6] = 0
        if use_mask and not probe:
            _mask_row_bits(m_ptr, m_idx, mbits, i, False)
        for q in range(start, end):
            c_vals[q] = acc[c_idx[q]]


_gus_fill_rows = numba.njit(cache=True, **_JIT_OPTS)(_gus_fill_rows_impl)


def _gus_fill_impl(a_ptr, a_idx, avals, a_iso, b_ptr, b_idx, bvals, b_iso, ncols, m_ptr,  # noqa: ANN001, ANN202
                   m_idx, use_mask, mcomp, mop, aop, ident, term, has_term, is_any, nthr,
                   c_ptr, c_idx, c_vals):
    """Numeric pass: rows interleaved over ``nthr`` workers, each with its accumulator."""
    for t in prange(nthr):
        _gus_fill_rows(np.int64(t), nthr, a_ptr, a_idx, avals, a_iso, b_ptr, b_idx, bvals,
                       b_iso, ncols, m_ptr, m_idx, use_mask, mcomp, mop, aop, ident, term,
                       has_term, is_any, c_ptr, c_idx, c_vals)


_gus_fill = SemiringKernel(_gus_fill_impl, parallel=True, bodies=("_gus_fill_rows",))


def _empty_csr(nrows: int, ncols: int, ks: KernelSemiring) -> CSR:
    return CSR(nrows, ncols, np.zeros(nrows + 1, dtype=np.int64), np.empty(0, dtype=np.int64),
               np.empty(0, dtype=ks.out_type.np_type), ks.out_type)


def mxm_gustavson(A: CSR, B: CSR, mask_bits_csr: CSR | None, mask_comp: bool,
                  ks: KernelSemiring) -> CSR:
    """C = A ⊕.⊗ B row by row (Gustavson), optionally restricted by a mask pattern:
    allowed(i, j) = (j in row i of the mask) != mask_comp. Canonical CSR of out_type."""
    m, p = A.nrows, B.ncols
    if m == 0 or p == 0 or A.nnz == 0 or B.nnz == 0:
        return _empty_csr(m, p, ks)
    # one dense accumulator (3 arrays of ncols) per worker: cap the workers' total at 2**26
    # columns (1.5 GiB); very wide products run on fewer threads
    nthr = max(1, min(numba.get_num_threads(), m, (1 << 26) // max(p, 1)))
    use_mask = mask_bits_csr is not None
    if use_mask:
        m_ptr, m_idx = _idx(mask_bits_csr.indptr), _idx(mask_bits_csr.indices)
    else:
        m_ptr, m_idx = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    a_ptr, a_idx, b_ptr, b_idx = _idx(A.indptr), _idx(A.indices), _idx(B.indptr), _idx(B.indices)
    counts = np.empty(m, dtype=np.int64)
    _gus_count(a_ptr, a_idx, b_ptr, b_idx, p, m_ptr, m_idx, use_mask, bool(mask_comp), nthr,
               counts)
    c_ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts, out=c_ptr[1:])
    c_idx = np.empty(int(c_ptr[-1]), dtype=np.int64)
    c_vals = np.empty(int(c_ptr[-1]), dtype=ks.out_type.np_type)
    if c_idx.shape[0]:
        _gus_fill.for_semiring(ks)(
            a_ptr, a_idx, *operand_values(A.values, A.iso, ks.uses_left, ks), b_ptr, b_idx,
            *operand_values(B.values, B.iso, ks.uses_right, ks), p, m_ptr, m_idx, use_mask,
            bool(mask_comp), *sr_args(ks), nthr, c_ptr, c_idx, c_vals)
    return CSR(m, p, c_ptr, c_idx, c_vals, ks.out_type)


# ====================================================================== mxm: masked dot
@numba.njit(cache=True, nogil=True)
def _lower_bound(arr, lo, hi, x):  # noqa: ANN001, ANN202
    """First position in arr[lo:hi] (sorted) whose value is >= x (galloping search)."""
    step = 1
    while lo + step < hi and arr[lo + step] < x:
        lo += step
        step *= 2
    hi = min(hi, lo + step + 1)
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(cache=True, nogil=True)
def _next_match(ai, pa, ea, bi, pb, eb, mode):  # noqa: ANN001, ANN202
    """Positions of the next common index of ai[pa:ea] and bi[pb:eb], or (ea, eb).

    mode 0: linear merge; 1: ai is short, search in bi; 2: bi is short, search in ai.
    """
    while pa < ea and pb < eb:
        ka = ai[pa]
        kb = bi[pb]
        if ka == kb:
            return pa, pb
        if ka < kb:
            pa = _lower_bound(ai, pa + 1, ea, kb) if mode == 2 else pa + 1
        else:
            pb = _lower_bound(bi, pb + 1, eb, ka) if mode == 1 else pb + 1
    return ea, eb


@numba.njit(cache=True, nogil=True)
def _bitmap(nwords):  # noqa: ANN001, ANN202
    """A zeroed bitmap (allocated in a body, not the parfor: one per block of rows)."""
    return np.zeros(nwords, dtype=np.uint64)


def _dot_rows_impl(r0, r1, a_ptr, a_idx, avals, a_iso, bt_ptr, bt_idx, bvals, b_iso,  # noqa: ANN001, ANN202
                   m_ptr, m_idx, nwords, mop, aop, ident, term, has_term, is_any, out_pres,
                   out_vals):
    """Rows [r0, r1) of the masked dot product. Per mask entry (i, j) the cheapest of: a
    sorted merge (la + lb steps), galloping in the longer row (min · log max), or probing
    row j of Bᵀ against a bitmap of row i's columns (lb bit tests; the bitmap is marked once
    per row i, on first use, and cleared after). All three meet the common k in increasing
    order, so the fold order (and the result) is the same."""
    one = np.uint64(1)
    bits = _bitmap(nwords if nwords > 0 else 1)
    for i in range(r0, r1):
        ms = m_ptr[i]
        me = m_ptr[i + 1]
        pa0 = a_ptr[i]
        ea = a_ptr[i + 1]
        la = ea - pa0
        if ms == me or la == 0:
            for pm in range(ms, me):
                out_pres[pm] = False
                out_vals[pm] = ident
            continue
        marked = False
        for pm in range(ms, me):
            j = m_idx[pm]
            pb = bt_ptr[j]
            eb = bt_ptr[j + 1]
            lb = eb - pb
            lo = min(la, lb)
            hi = max(la, lb)
            mode = 1 if la * 32 < lb else (2 if lb * 32 < la else 0)
            cost = la + lb if mode == 0 else lo * (np.log2(hi + 1.0) + 1.0)
            found = False
            acc = ident
            if nwords > 0 and lb < cost:
                if not marked:
                    for p in range(pa0, ea):
                        k = a_idx[p]
                        bits[k >> 6] |= one << np.uint64(k & 63)
                    marked = True
                pa = pa0
                for q in range(pb, eb):
                    k = bt_idx[q]
                    if (bits[k >> 6] >> np.uint64(k & 63)) & one:
                        if not a_iso:  # the position of k in row i, for A's value
                            pa = _lower_bound(a_idx, pa, ea, k)
                        t = _MUL(mop, avals[0] if a_iso else avals[pa],
                                 bvals[0] if b_iso else bvals[q], i, k, j, ident)
                        acc = _ADD(aop, acc, t) if found else t
                        found = True
                        if is_any or (has_term and acc == term):
                            break
            else:
                pa = pa0
                while True:
                    pa, pb = _next_match(a_idx, pa, ea, bt_idx, pb, eb, mode)
                    if pa >= ea:
                        break
                    t = _MUL(mop, avals[0] if a_iso else avals[pa],
                             bvals[0] if b_iso else bvals[pb], i, a_idx[pa], j, ident)
                    acc = _ADD(aop, acc, t) if found else t
                    found = True
                    if is_any or (has_term and acc == term):
                        break
                    pa += 1
                    pb += 1
            out_pres[pm] = found
            out_vals[pm] = acc
        if marked:
            for p in range(pa0, ea):
                bits[a_idx[p] >> 6] = 0


_dot_rows = numba.njit(cache=True, **_JIT_OPTS)(_dot_rows_impl)


def _dot_impl(bounds, a_ptr, a_idx, avals, a_iso, bt_ptr, bt_idx, bvals, b_iso, m_ptr,  # noqa: ANN001, ANN202
              m_idx, nwords, mop, aop, ident, term, has_term, is_any, out_pres, out_vals):
    for b in prange(bounds.shape[0] - 1):
        _dot_rows(bounds[b], bounds[b + 1], a_ptr, a_idx, avals, a_iso, bt_ptr, bt_idx, bvals,
                  b_iso, m_ptr, m_idx, nwords, mop, aop, ident, term, has_term, is_any,
                  out_pres, out_vals)


_dot = SemiringKernel(_dot_impl, parallel=True, bodies=("_dot_rows",))
# the bitmap of a row's columns is used when the inner dimension has at most this many
# words (8 MiB a block of rows); wider products merge or gallop only
_DOT_BITMAP_WORDS = 1 << 20


def mxm_masked_dot(A: CSR, BT: CSR, mask: CSR, ks: KernelSemiring) -> CSR:
    """C<mask> = A ⊕.⊗ B by dot products at the mask's entries only (BT = Bᵀ as CSR):
    merge, galloping or bitmap intersection of row i of A and row j of BT. Memory: a
    presence flag and a value per mask entry, and a bitmap of the inner dimension (n/8
    bytes) per block of rows (16 blocks per thread, each takes rows of equal mask entries)."""
    m, p = A.nrows, BT.nrows
    if m == 0 or mask.nnz == 0 or A.nnz == 0 or BT.nnz == 0:
        return _empty_csr(m, p, ks)
    m_ptr, m_idx = _idx(mask.indptr), _idx(mask.indices)
    pres = np.empty(mask.nnz, dtype=np.bool_)
    vals = np.empty(mask.nnz, dtype=ks.out_type.np_type)
    nwords = (int(A.ncols) + 63) // 64
    nwords = nwords if nwords <= _DOT_BITMAP_WORDS else 0
    nblocks = max(1, min(m, 16 * numba.get_num_threads()))
    cuts = np.searchsorted(m_ptr, np.linspace(0, mask.nnz, nblocks + 1)[1:-1])
    bounds = np.unique(np.concatenate(([0], cuts, [m]))).astype(np.int64)
    with numba.parallel_chunksize(1):
        _dot.for_semiring(ks)(
            bounds, _idx(A.indptr), _idx(A.indices),
            *operand_values(A.values, A.iso, ks.uses_left, ks), _idx(BT.indptr),
            _idx(BT.indices), *operand_values(BT.values, BT.iso, ks.uses_right, ks), m_ptr,
            m_idx, np.int64(nwords), *sr_args(ks), pres, vals)
    cs = np.zeros(mask.nnz + 1, dtype=np.int64)
    np.cumsum(pres, out=cs[1:])
    return CSR(m, p, cs[m_ptr], m_idx[pres], vals[pres], ks.out_type)


# ====================================================================== conversions
@numba.njit(cache=True, parallel=True, nogil=True)
def _transpose_par(indptr, indices, ncols, bounds):  # noqa: ANN001, ANN202
    """Parallel stable counting sort by column over row blocks ``bounds`` (one count row
    per block): (indptr of Aᵀ, row ids of Aᵀ, source position of each entry)."""
    nb = bounds.shape[0] - 1
    counts = np.zeros((nb, ncols), dtype=np.int64)
    for b in prange(nb):
        for p in range(indptr[bounds[b]], indptr[bounds[b + 1]]):
            counts[b, indices[p]] += 1
    t_ptr = np.zeros(ncols + 1, dtype=np.int64)
    for j in prange(ncols):
        s = 0
        for b in range(nb):
            s += counts[b, j]
        t_ptr[j + 1] = s
    for j in range(ncols):
        t_ptr[j + 1] += t_ptr[j]
    for j in prange(ncols):
        run = t_ptr[j]
        for b in range(nb):
            c = counts[b, j]
            counts[b, j] = run
            run += c
    t_idx = np.empty(indices.shape[0], dtype=np.int64)
    perm = np.empty(indices.shape[0], dtype=np.int64)
    for b in prange(nb):
        for i in range(bounds[b], bounds[b + 1]):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                q = counts[b, j]
                counts[b, j] = q + 1
                t_idx[q] = i
                perm[q] = p
    return t_ptr, t_idx, perm


@numba.njit(cache=True, parallel=True, nogil=True)
def _take(vals, perm):  # noqa: ANN001, ANN202
    out = np.empty(perm.shape[0], dtype=vals.dtype)
    for q in prange(perm.shape[0]):
        out[q] = vals[perm[q]]
    return out


def transpose(A: CSR) -> CSR:
    """Aᵀ as CSR: stable counting sort, parallel over row blocks of equal nnz with one
    count array per block (as many blocks as threads, at most 4·nnz/ncols so the counts
    take at most 32 bytes per entry); an iso matrix stays iso."""
    indptr, indices = _idx(A.indptr), _idx(A.indices)
    nnz, ncols = indices.shape[0], int(A.ncols)
    nb = max(1, min(numba.get_num_threads(), 4 * nnz // max(ncols, 1), A.nrows,
                    nnz // 65536))
    cuts = np.searchsorted(indptr, np.linspace(0, nnz, nb + 1)[1:-1])
    bounds = np.concatenate(([0], cuts, [A.nrows])).astype(np.int64)
    t_ptr, t_idx, perm = _transpose_par(indptr, indices, ncols, bounds)
    vals = None if A.values is None else _take(np.ascontiguousarray(A.values), perm)
    return CSR(A.ncols, A.nrows, t_ptr, t_idx, vals, A.dtype, A.iso)


def csr_from_coo(coo: COO) -> CSR:
    """CSR of a canonical COO (sorted row-major, unique); index/value arrays are shared."""
    rows = _idx(coo.rows)
    indptr = np.zeros(coo.nrows + 1, dtype=np.int64)
    if rows.shape[0]:
        np.cumsum(np.bincount(rows, minlength=coo.nrows), out=indptr[1:])
    return CSR(coo.nrows, coo.ncols, indptr, _idx(coo.cols), coo.values, coo.dtype, coo.iso)


def coo_from_csr(csr: CSR) -> COO:
    """COO of a CSR (row ids expanded; index/value arrays are shared)."""
    rows = np.repeat(np.arange(csr.nrows, dtype=np.int64), np.diff(_idx(csr.indptr)))
    return COO(csr.nrows, csr.ncols, rows, _idx(csr.indices), csr.values, csr.dtype, csr.iso)


__all__ = [
    "mxv_pull", "mxv_push", "mxm_gustavson", "mxm_masked_dot", "transpose", "csr_from_coo",
    "coo_from_csr", "SemiringKernel", "mult_op", "add_op", "cast_to", "sr_args", "kernel_opcodes",
    "operand_values", "mask_args", "value_dtype",
]
