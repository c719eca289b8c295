"""CPU (Numba) kernels over CSR, and the thin Python wrappers the ops layer calls (the
matrix products are in ``mxm_cpu.py``).

Techniques:

- **mxv pull** (row-wise SpMV over a bitmap vector, GraphBLAST/Yang-Buluç-Owens ICPP'18):
  one row per iteration, parallel over rows, mask checked before a row is read, early
  exit on the monoid's terminal value (``any``: the first product found; with a
  structure-only multiply this is the BFS bottom-up step).
- **mxv push** (SpMSpV scatter from a sparse vector over CSR of Mᵀ, GraphBLAST): a dense
  accumulator + touched list kept in a module workspace, mask checked before an output
  row is touched, touched indices sorted (or the flags scanned when many).
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
from ...backend.threads import chunksize, num_threads
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


def balanced_cuts(ptr: Any, parts: int) -> Any:
    """Where the running counts ``ptr`` (int64, ptr[-1] = total) cross each of ``parts - 1``
    equal shares of the total: rows cutting them into blocks of about equal entries. The
    probes are int64 (the first ptr >= x is the first >= ceil(x)): float probes made
    ``np.searchsorted`` convert all of ptr to float64, ~90 µs at 10⁵ rows per call (a
    triangle count of a road graph made two)."""
    total = int(ptr[-1])
    probes = np.ceil(np.linspace(0, total, parts + 1)[1:-1]).astype(np.int64)
    return np.searchsorted(ptr, probes)


def balanced_bounds(ptr: Any, parts: int) -> Any:
    """Block bounds 0 = b₀ < b₁ < ... = rows (int64) of :func:`balanced_cuts`."""
    m = ptr.shape[0] - 1
    return np.unique(np.concatenate(([0], balanced_cuts(ptr, parts), [m]))).astype(np.int64)


def _chunk(n: int) -> int:
    """Dynamic-scheduling chunk size for a prange over ``n`` (possibly skewed) rows."""
    t = max(num_threads(), 1)
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
        with chunksize(_chunk(M.nrows)):
            _pull_first(_idx(M.indptr), _idx(M.indices), xbits, mb, use_mask,
                        bool(mask_comp), kind, np.int64(offset), out_pres, out_vals)
        return out_pres, out_vals
    with chunksize(_chunk(M.nrows)):
        _pull.for_semiring(ks)(
            _idx(M.indptr), _idx(M.indices), *operand_values(M.values, M.iso, ks.uses_left, ks),
            np.ascontiguousarray(x_present, dtype=np.bool_),
            *operand_values(x_values, None, ks.uses_right, ks), mb, use_mask, bool(mask_comp),
            *sr_args(ks), out_pres, out_vals)
    return out_pres, out_vals


# ====================================================================== mxv: push
@numba.njit(inline="always", **_JIT_OPTS)
def _set_keys(mask, mkeys, on):  # noqa: ANN001, ANN202
    """mask[k] = ``on`` at the sorted mask keys (a sparse mask in the workspace's bool[n])."""
    for t in range(mkeys.shape[0]):
        mask[mkeys[t]] = on


@numba.njit(**_JIT_OPTS)
def _sorted_touched(flag, summ, touched, cnt):  # noqa: ANN001, ANN202
    """The touched rows in index order, the bits cleared on the way (a small frontier pays
    for every Python-level array call, so this runs in the kernel's own call): radix-sort the
    touched list, or scan the summary words and the touched words they name (n / 4096 + the
    rows), whichever costs less."""
    nwords = flag.shape[0]
    idx = np.empty(cnt, dtype=np.int64)
    if radix_passes(nwords * 64) * (8 * cnt + 2048) < summ.shape[0] + 2 * cnt:
        idx[:] = radix_sort(touched[:cnt], nwords * 64)
        for t in range(cnt):
            w = idx[t] >> 6
            flag[w] = _ZERO
            summ[w >> 6] = _ZERO
        return idx
    c = 0
    for s in range(summ.shape[0]):
        y = summ[s]
        if y == _ZERO:
            continue
        summ[s] = _ZERO
        while y != _ZERO:
            w = s * 64 + np.int64(ctz(y))
            y &= y - _ONE
            x = flag[w]
            flag[w] = _ZERO
            while x != _ZERO:
                idx[c] = w * 64 + np.int64(ctz(x))
                c += 1
                x &= x - _ONE
    return idx


def _push_impl(indptr, indices, mvals, m_iso, xidx, xvals, x_iso, mask, mkeys, use_mask,  # noqa: ANN001, ANN202
               mcomp, mop, aop, ident, term, has_term, is_any, k_free, flag, summ, acc,
               touched):
    """``flag``: a bit a row (uint64 words), ``summ``: a bit a word of ``flag`` (so the
    touched rows come out sorted by a scan of n / 4096 summary words and the touched
    words, not of all n / 64); both zero on entry and on return. ``mask``: bool[n], or for
    a sparse mask the workspace's zeroed bool[n] that its keys ``mkeys`` are set in here and
    cleared from on return (one simple test per edge either way: a three-way choice there
    made the loop 1.5x slower). ``k_free`` (:func:`push_mark_applies`: an ``any`` monoid
    whose product depends on the row alone) computes each row's product once, with the
    output, and keeps no accumulator (a BFS step: a third less time)."""
    _set_keys(mask, mkeys, True)
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
            word = flag[w]
            seen = (word & bit) != _ZERO
            if seen and (is_any or (has_term and acc[i] == term)):
                continue
            if not k_free:
                t = _MUL(mop, mvals[0] if m_iso else mvals[p], b, i, k, _J0, ident)
                if seen:
                    acc[i] = _ADD(aop, acc[i], t)
                    continue
                acc[i] = t
            if word == _ZERO:
                summ[w >> 6] |= _ONE << np.uint64(w & 63)
            flag[w] = word | bit
            touched[cnt] = i
            cnt += 1
    _set_keys(mask, mkeys, False)
    idx = _sorted_touched(flag, summ, touched, cnt)
    vals = np.empty(cnt, dtype=acc.dtype)
    if k_free:
        for t in range(cnt):
            vals[t] = _MUL(mop, ident, ident, idx[t], _J0, _J0, ident)
    else:
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


# per (nrows, out dtype): row flags, their summary words, a sparse mask's bool[n], the
# accumulator and the touched list
_PUSH_WS: dict[tuple[int, np.dtype], tuple[Any, Any, Any, Any, Any]] = {}
_NO_KEYS = np.empty(0, dtype=np.int64)


def _push_plan(MT: CSR, ks: KernelSemiring) -> tuple[Any, tuple[Any, ...], Any, Any, bool]:
    """(kernel, MT's arguments, x's dummy arguments when the multiply reads no x value, the
    semiring's arguments, ``k_free``) for a push over MT, kept on MT (its arrays are not
    changed in place) per resolved semiring: a loop of small pushes prepares them once."""
    plans = MT.__dict__.setdefault("_push_plans", {})
    plan = plans.get(id(ks))
    if plan is None or plan[0] is not ks:  # (an id may be reused once ks is gone)
        m_args = (_idx(MT.indptr), _idx(MT.indices),
                  *operand_values(MT.values, MT.iso, ks.uses_left, ks))
        x_unused = None if ks.uses_right else operand_values(None, None, False, ks)
        plan = plans[id(ks)] = (ks, _push.for_semiring(ks), m_args, x_unused, sr_args(ks),
                                bool(ks.derived("push_mark", push_mark_applies)))
    return plan[1:]


def mxv_push(MT: CSR, x_indices: Any, x_values: Any | None, nrows: int,
             mask_bits: Any | None, mask_comp: bool, ks: KernelSemiring,
             mask_keys: Any | None = None) -> tuple[Any, Any]:
    """T = M ⊕.⊗ x by scattering each x entry k over row k of MT = Mᵀ (GraphBLAST push).

    ``x_values`` is aligned with ``x_indices`` (sorted). The mask comes as bool[nrows]
    (``mask_bits``) or, for a sparse structural mask, as its sorted keys (``mask_keys``:
    O(nnz(mask)), no array of nrows). Bit flags, an accumulator and a touched list are kept
    per (nrows, out dtype) and reset after use. Returns (indices sorted unique, values).
    """
    out = ks.out_type.np_type
    xi = _idx(x_indices)
    if xi.shape[0] == 0 or nrows == 0 or MT.nnz == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=out)
    kernel, m_args, x_unused, sr, k_free = _push_plan(MT, ks)
    x_args = x_unused if x_unused is not None else \
        operand_values(x_values, None, ks.uses_right, ks)
    key = (int(nrows), np.dtype(out))
    ws = _PUSH_WS.pop(key, None)  # popped while in use: safe for concurrent callers
    if ws is None:
        nwords = (nrows + 63) // 64
        ws = (np.zeros(nwords, dtype=np.uint64), np.zeros((nwords + 63) // 64, dtype=np.uint64),
              np.zeros(nrows, dtype=np.bool_), np.empty(nrows, dtype=out),
              np.empty(nrows, dtype=np.int64))
    flag, summ, mbool, acc, touched = ws
    if mask_keys is not None:
        mb, use_mask, mk = mbool, True, _idx(mask_keys)
    else:
        (mb, use_mask), mk = mask_args(mask_bits), _NO_KEYS
    try:
        idx, vals = kernel(*m_args, xi, *x_args, mb, mk, use_mask, bool(mask_comp), *sr,
                           k_free, flag, summ, acc, touched)
    except BaseException:
        flag[:] = 0
        summ[:] = 0
        mbool[:] = False
        raise
    finally:
        if len(_PUSH_WS) >= 8:  # keep a few workspaces (graphs in use), not one per size
            _PUSH_WS.pop(next(iter(_PUSH_WS)), None)
        _PUSH_WS[key] = ws
    return idx, vals


def push_parallel_applies(MT: CSR, x_indices: Any, nrows: int, ks: KernelSemiring) -> bool:
    """Whether :func:`mxv_push_parallel` runs (:func:`push_mark_applies`, 2+ threads, and
    enough frontier edges to pay for them)."""
    xi = _idx(x_indices)
    if xi.shape[0] * 16 * MT.nnz < _PARALLEL_PUSH_EDGES * max(MT.nrows, 1):
        return False  # far below the threshold at 16x the average degree: skip the sum
    if nrows == 0 or not ks.derived("push_mark", push_mark_applies) or \
            num_threads() < 2:
        return False
    indptr = _idx(MT.indptr)
    return int((indptr[xi + 1] - indptr[xi]).sum()) >= _PARALLEL_PUSH_EDGES


def mxv_push_parallel(MT: CSR, x_indices: Any, nrows: int, mask_bits: Any | None,
                      mask_comp: bool, ks: KernelSemiring, checked: bool = False
                      ) -> tuple[Any, Any] | None:
    """The parallel push (:func:`push_mark_applies`) as a bitmap (present, values), or None
    when it does not apply or the frontier's edges are too few to pay for threads
    (``checked``: the caller asked :func:`push_parallel_applies` already)."""
    xi = _idx(x_indices)
    if not (checked or push_parallel_applies(MT, xi, nrows, ks)):
        return None
    mb, use_mask = mask_args(mask_bits)
    flag = np.zeros(nrows, dtype=np.bool_)
    with chunksize(max(1, min(256, xi.shape[0] // 64))):
        _push_mark(_idx(MT.indptr), _idx(MT.indices), xi, mb, use_mask, bool(mask_comp), flag)
    vals = np.empty(nrows, dtype=ks.out_type.np_type)
    _row_products(flag, kernel_opcodes(ks)[0], _scalar(ks.identity, ks.out_type.np_type), vals)
    return flag, vals


# ====================================================================== conversions
@numba.njit(cache=True, parallel=True, nogil=True)
def _transpose_par(indptr, indices, ncols, bounds, want_perm):  # noqa: ANN001, ANN202
    """Parallel stable counting sort by column over row blocks ``bounds`` (one count row
    per block): (indptr of Aᵀ, row ids of Aᵀ, source position of each entry, or an empty
    array without ``want_perm``: the positions are a second random write per entry, half
    the sort's time, and only values need them)."""
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
    perm = np.empty(indices.shape[0] if want_perm else 0, dtype=np.int64)
    for b in prange(nb):
        for i in range(bounds[b], bounds[b + 1]):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                q = counts[b, j]
                counts[b, j] = q + 1
                t_idx[q] = i
                if want_perm:
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
    nb = max(1, min(num_threads(), 4 * nnz // max(ncols, 1), A.nrows,
                    nnz // 65536))
    bounds = np.concatenate(([0], balanced_cuts(indptr, nb), [A.nrows])).astype(np.int64)
    t_ptr, t_idx, perm = _transpose_par(indptr, indices, ncols, bounds, A.values is not None)
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
    "balanced_bounds", "balanced_cuts",
    "mxv_pull", "mxv_push", "transpose", "csr_from_coo", "coo_from_csr", "SemiringKernel",
    "mult_op", "add_op", "cast_to", "sr_args", "kernel_opcodes", "operand_values", "mask_args",
    "value_dtype",
]
