"""CPU (Numba) mxv over Sell-C-σ / SlimSell: pull, one chunk piece per task.

Phase 1 runs the pieces (a whole chunk, or a SlimChunk slice of one) in parallel: the
inner loop walks the C lanes of one slot, which are adjacent in memory (column-major
chunk), so the loads of a slot are one contiguous vector. The mask is fused: a lane whose
output row the mask forbids is never read. Phase 2 folds the partial results of each
chunk's pieces with the monoid (in slot order, so ``any`` keeps the first entry of a row,
as the CSR pull does) and writes them to the original row ``perm[r]``.

SlimWork (Besta et al. §4.2): a chunk whose rows are all settled is skipped without
reading its columns, in both phases (its rows keep the output's initial "absent").
"Settled" is read off the mask (a row the mask forbids needs no
output), which covers the paper's cases when the caller masks its filter: boolean/real
(filter all zero), tropical (no ∞ left: mask = unreached), sel-max (all parents set).
Inside a chunk, lanes of forbidden rows read nothing, and a lane stops at the monoid's
terminal value. It never changes a result; ``slimwork(False)`` turns it off to measure
its effect: then every row of every chunk is read (the plain SpMV of the paper's
baseline) and the mask is applied only when the result is written. In both variants a
lane stops after its first product under ``any`` (that defines which entry ``any``
returns, as in the CSR pull).

Operators come through the CSR kernels' ``SemiringKernel`` machinery (opcodes, cached
per dtype; user-defined operators in per-operator clones).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np
from numba import prange

from ...backend.threads import chunksize, num_threads
from ...semirings.codegen_numba import add_op, mult_op
from ...semirings.model import KernelSemiring
from ..csr.cpu import _JIT_OPTS, SemiringKernel, mask_args, operand_values, sr_args
from .container import SellCS

# SemiringKernel swaps these names for user-defined operators in its clones
_MUL = mult_op
_ADD = add_op
_J0 = np.int64(0)
_SLIMWORK = {"on": True}


@contextmanager
def slimwork(enabled: bool) -> Iterator[None]:
    """Turn SlimWork (skip settled chunks) on or off for the CPU Sell kernels."""
    prev = _SLIMWORK["on"]
    _SLIMWORK["on"] = bool(enabled)
    try:
        yield
    finally:
        _SLIMWORK["on"] = prev


def slimwork_enabled() -> bool:
    return _SLIMWORK["on"]


def _piece_impl(q, C, nrows, cs, pc, plo, phi, cols, mvals, m_iso, perm, has_perm,  # noqa: ANN001, ANN202, N803
                xpres, xvals, x_iso, mask, use_mask, mcomp, skip, mop, aop, ident, term,
                has_term, is_any, st, fnd, acc, nread):
    """Piece q: partial results of its chunk's C lanes in fnd/acc[q*C : q*C + C].
    st: 0 lane off (no row, or masked under SlimWork), 1 live, 2 done (terminal reached).
    nread[q]: lanes that read their row."""
    c = pc[q]
    r0 = c * C
    o = q * C
    live = 0
    has_term = has_term and skip  # the terminal stop is part of SlimWork
    for lane in range(C):
        r = r0 + lane
        ok = r < nrows
        if ok and use_mask and skip:
            ok = mask[perm[r] if has_perm else r] != mcomp
        st[o + lane] = 1 if ok else 0
        fnd[o + lane] = False
        acc[o + lane] = ident
        live += ok
    nread[q] = live
    if skip and live == 0:
        return 1  # SlimWork: every row of the chunk is settled
    had = live > 0
    base = cs[c]
    for j in range(plo[q], phi[q]):
        cb = base + j * C
        for lane in range(C):  # the C lanes of a slot: contiguous loads
            if st[o + lane] != 1:
                continue
            k = cols[cb + lane]
            if k < 0 or not xpres[k]:
                continue
            r = r0 + lane
            t = _MUL(mop, mvals[0] if m_iso else mvals[cb + lane],
                     xvals[0] if x_iso else xvals[k], perm[r] if has_perm else r, k, _J0,
                     ident)
            if fnd[o + lane]:
                acc[o + lane] = _ADD(aop, acc[o + lane], t)
            else:
                acc[o + lane] = t
                fnd[o + lane] = True
            if is_any or (has_term and acc[o + lane] == term):
                st[o + lane] = 2
                live -= 1
        if had and live == 0:
            break  # every lane is done: the rest of the chunk cannot change the output
    return 0


_sell_piece = numba.njit(**_JIT_OPTS, cache=True)(_piece_impl)


def _combine_impl(c, C, nrows, pstart, perm, has_perm, mask, use_mask, mcomp, skip, aop,  # noqa: ANN001, ANN202, N803
                  ident, term, has_term, is_any, fnd, acc, out_pres, out_vals):
    """Fold chunk c's pieces lane by lane (in slot order) into the original rows; without
    SlimWork the rows were computed whatever the mask, which is applied here."""
    for lane in range(C):
        r = c * C + lane
        if r >= nrows:
            break
        found = False
        a = ident
        for q in range(pstart[c], pstart[c + 1]):
            p = q * C + lane
            if fnd[p]:
                a = _ADD(aop, a, acc[p]) if found else acc[p]
                found = True
                if is_any or (has_term and a == term):
                    break
        i = perm[r] if has_perm else r
        if found and use_mask and not skip and mask[i] == mcomp:
            found = False
            a = ident
        out_pres[i] = found
        out_vals[i] = a


_sell_combine = numba.njit(**_JIT_OPTS, cache=True)(_combine_impl)


def _mxv_impl(C, nrows, cs, pstart, pc, plo, phi, cols, mvals, m_iso, perm, has_perm,  # noqa: ANN001, ANN202, N803
              xpres, xvals, x_iso, mask, use_mask, mcomp, skip, mop, aop, ident, term,
              has_term, is_any, st, fnd, acc, skipped, nread, out_pres, out_vals):
    for qq in prange(pc.shape[0]):
        q = np.int64(qq)
        skipped[q] = _sell_piece(q, C, nrows, cs, pc, plo, phi, cols, mvals, m_iso, perm,
                                 has_perm, xpres, xvals, x_iso, mask, use_mask, mcomp, skip,
                                 mop, aop, ident, term, has_term, is_any, st, fnd, acc,
                                 nread)
    for cc in prange(pstart.shape[0] - 1):
        if skip and pstart[cc + 1] > pstart[cc] and skipped[pstart[cc]]:
            continue  # SlimWork: a settled chunk (all its pieces skipped) writes nothing
        _sell_combine(np.int64(cc), C, nrows, pstart, perm, has_perm, mask, use_mask, mcomp,
                      skip, aop, ident, term, has_term, is_any, fnd, acc, out_pres, out_vals)


_mxv = SemiringKernel(_mxv_impl, parallel=True, bodies=("_sell_piece", "_sell_combine"))

# work of the last call (benchmarks and tests read it): pieces, skipped (pieces SlimWork
# skipped: all their rows settled), rows ((piece, lane) pairs that hold a row), rows_read
# (those that read their row: all of them with SlimWork off), slimwork (the variant)
LAST_RUN: dict[str, int] = {"pieces": 0, "skipped": 0, "rows": 0, "rows_read": 0,
                            "slimwork": 1}


def _chunksize(n: int) -> int:
    t = max(num_threads(), 1)
    return int(min(max(n // (t * 16), 1), 1024))


def mxv_pull(S: SellCS, x_present: Any, x_values: Any | None, mask_bits: Any | None,  # noqa: N803
             mask_comp: bool, ks: KernelSemiring, *, slimwork: bool | None = None
             ) -> tuple[Any, Any]:
    """T = S ⊕.⊗ x over the chunks of S (x as a bitmap). Returns (present, values) in the
    original row order. A SlimSell matrix's entries are 1 of the multiply's domain."""
    n = S.nrows
    skip = slimwork_enabled() if slimwork is None else bool(slimwork)
    sr = sr_args(ks)
    out_pres = np.zeros(n, dtype=np.bool_)
    # the identity where no entry is found: rows of skipped chunks are never written
    out_vals = np.full(n, sr[2]) if skip else np.empty(n, dtype=ks.out_type.np_type)
    if n == 0:
        return out_pres, out_vals
    pstart, pc, plo, phi = (np.ascontiguousarray(a, dtype=np.int64) for a in S.pieces())
    npieces = pc.shape[0]
    C = S.C  # noqa: N806
    out_t = ks.out_type.np_type
    st = np.empty(npieces * C, dtype=np.int8)
    fnd = np.empty(npieces * C, dtype=np.bool_)
    acc = np.empty(npieces * C, dtype=out_t)
    skipped = np.zeros(npieces, dtype=np.int8)
    nread = np.zeros(npieces, dtype=np.int64)
    mb, use_mask = mask_args(mask_bits)
    iso = S.dtype.cast(1) if S.name == "slimsell" else S.iso
    has_perm = S.perm is not None
    perm = S.perm if has_perm else np.zeros(1, dtype=np.int64)
    with chunksize(_chunksize(npieces)):
        _mxv.for_semiring(ks)(
            np.int64(C), np.int64(n), S.cs, pstart, pc, plo, phi, S.cols,
            *operand_values(S.values, iso, ks.uses_left, ks), perm, has_perm,
            np.ascontiguousarray(x_present, dtype=np.bool_),
            *operand_values(x_values, None, ks.uses_right, ks), mb, use_mask,
            bool(mask_comp), skip, *sr, st, fnd, acc, skipped, nread, out_pres,
            out_vals)
    last = (n - 1) // C  # the last chunk's pieces hold fewer than C rows
    rows = npieces * C - int(np.count_nonzero(pc == last)) * (C - (n - last * C))
    LAST_RUN.update(pieces=int(npieces), skipped=int(skipped.sum()), rows=rows,
                    rows_read=int(nread.sum()), slimwork=int(skip))
    return out_pres, out_vals
