"""CUDA (CuPy) mxv over Sell-C-σ / SlimSell: pull over chunks, one thread per chunk lane.

The kernels live in ``mxv.cu`` beside this file (design notes there); the semiring
functors are the ones the CSR kernels use (gblas.semirings.codegen_cuda), so every
built-in semiring runs by opcode. Each instantiation is compiled once per device with
``cupy.RawModule(name_expressions=[...])`` and memoised, as in gblas/formats/csr/cuda.py,
whose operand/mask/parameter helpers this module shares.

Registered for ``device="cuda"``, formats ``"sellcs"`` and ``"slimsell"``, built-in and
structural semirings (fused mask). User-defined semirings have no CUDA functor: the
planner falls back to the generic CSR kernel of the device for them.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from ...backend.registry import MxvCall, register_kernel
from ...semirings.codegen_cuda import c_type
from ..csr import cuda as csr_cuda
from ..csr.cuda import (
    _b,
    _cp,
    _dev_id,
    _domain,
    _first_wins,
    _grid,
    _mask,
    _operand,
    _params,
)
from ..vector import VecData
from . import cpu
from .container import SellCS

_SOURCE = Path(__file__).with_name("mxv.cu")
_BLOCK = 256
SPLIT = 128  # slots per derived piece of a wide chunk (matrices built without slimchunk)


def source() -> str:
    return csr_cuda.source(_SOURCE)


def get_kernel(device_id: int, expr: str) -> Any:
    """The compiled kernel ``expr`` (e.g. ``sell_mxv<7, 4, double, double, true, true,
    false, true>``) of this format's mxv.cu; memoised per (device, instantiation) by the CSR
    module's factory."""
    return csr_cuda.get_kernel(device_id, expr, _SOURCE)


# work of the last call (benchmarks and tests read it): pieces, warps (groups of 32
# (piece, lane) threads), rows_read ((piece, lane) threads that read their row: with
# SlimWork off, every one that has a row), warps_idle (warps that read no row: for C = 32
# a warp is a piece, so these are the pieces SlimWork skipped), slimwork (the variant)
LAST_RUN: dict[str, int] = {"pieces": 0, "warps": 0, "rows_read": 0, "warps_idle": 0,
                            "slimwork": 1}
# a list: every call appends a pair of CUDA events recorded around its kernel launches
# (benchmarks/formats.py times the kernels apart from the call's host-side work)
KERNEL_EVENTS: list[tuple[Any, Any]] | None = None


def mxv_pull(call: MxvCall, *, slimwork: bool | None = None) -> VecData:
    """T = S ⊕.⊗ x over the chunks of S (x as a bitmap), mask fused; a bitmap VecData in
    the original row order. SlimSell entries are 1 of the multiply's domain.

    ``slimwork`` (default: ``sellcs.cpu.slimwork_enabled()``) picks the kernel variant:
    on, rows the mask forbids are not read and lanes stop at the monoid's terminal; off,
    every row of every chunk is read and the mask is applied on write."""
    cp = _cp()
    S: SellCS = call.rep  # noqa: N806
    ks = call.ks
    out = np.dtype(ks.out_type.np_type)
    n = call.nrows
    if n == 0:
        return VecData.empty(0, ks.out_type, cp)
    dev = _dev_id(S.cols)
    C = int(S.C)  # noqa: N806
    with cp.cuda.Device(dev):
        dom = _domain(ks)
        ul, ur = bool(ks.uses_left), bool(ks.uses_right)
        xb, xv = call.x.as_bitmap()
        iso = S.dtype.cast(1) if S.name == "slimsell" else S.iso
        mvals, m_iso = _operand(S.values, iso, ul, dom, cp)
        xvals, x_iso = _operand(xv, None, ur, dom, cp)
        mask, use_mask, mcomp = _mask(call, cp)
        params = _params(out.str, ks.identity, ks.terminal, dev)
        has_perm = S.perm is not None
        perm = S.perm if has_perm else cs_dummy(dev)
        # SlimWork follows the CPU switch (sellcs.cpu.slimwork): a template flag of the
        # kernel (mask before read, terminal stop); the stop at the first product of a
        # first-wins monoid is what defines `any`, so it holds either way
        sw = cpu.slimwork_enabled() if slimwork is None else bool(slimwork)
        stop_term = int(bool(ks.has_terminal) and sw)
        first = int(_first_wins(ks))
        pres = cp.empty(n, dtype=np.bool_)
        vals = cp.empty(n, dtype=out)
        count = cp.zeros(3, dtype=np.uint64)  # found, rows read, idle warps
        xb = cp.ascontiguousarray(xb, dtype=np.bool_)
        head = (f"{int(ks.mult_op)}, {int(ks.add_op)}, {c_type(dom)}, {c_type(out)}, "
                f"{_b(ul)}, {_b(ur)}")
        # SlimChunk: partials per piece, then a fold. Without a SlimChunk width a chunk
        # wider than SPLIT slots is still cut (derived pieces): one lane walking a hub
        # row alone would serialise the whole launch on it
        pieces = S.pieces_ is not None or S.max_width() > SPLIT
        if pieces:
            pstart, pc, plo, phi = S.pieces_ if S.pieces_ is not None else S.split(SPLIT)
        else:
            pstart = pc = plo = cs_dummy(dev)
            phi = S.cl
        npieces = int(pc.shape[0]) if pieces else S.nchunks
        events = KERNEL_EVENTS
        if events is not None:
            events.append((cp.cuda.Event(), cp.cuda.Event()))
        if npieces:
            k = get_kernel(dev, f"sell_mxv<{head}, {_b(pieces)}, {_b(sw)}>")
            kc = get_kernel(dev, f"sell_combine<{int(ks.add_op)}, {c_type(out)}>") \
                if pieces else None
            tp = cp.empty(npieces * C if pieces else 1, dtype=np.bool_)
            tv = cp.empty(npieces * C if pieces else 1, dtype=out)
            if events is not None:
                events[-1][0].record()  # after compiles and allocations: launches only
            k((_grid(npieces * C, dev),), (_BLOCK,), (
                S.cs, pc, plo, phi, np.int64(npieces), np.int64(C), np.int64(n), S.cols,
                mvals, np.int32(m_iso), perm, np.int32(has_perm), xb, xvals, np.int32(x_iso),
                mask, np.int32(use_mask), np.int32(mcomp), params, np.int32(stop_term),
                np.int32(first), tp if pieces else pres, tv if pieces else vals, count))
            if kc is not None:
                kc((_grid(n, dev),), (_BLOCK,), (
                    pstart, np.int64(C), np.int64(n), perm, np.int32(has_perm), tp, tv,
                    params, np.int32(stop_term), np.int32(first), pres, vals, count))
        else:
            if events is not None:
                events[-1][0].record()
            pres[...] = False
        if events is not None:
            events[-1][1].record()
        work = count.get()  # the one host read: sizes the result, brings the counters
    nv = int(work[0])
    LAST_RUN.update(pieces=npieces, warps=-(-npieces * C // 32), rows_read=int(work[1]),
                    warps_idle=int(work[2]), slimwork=int(sw))
    return VecData.bitmap(n, ks.out_type, pres, vals, nv).normalized()


@functools.cache
def cs_dummy(device_id: int) -> Any:
    """A 1-element int64 array for index arguments a kernel does not read."""
    cp = _cp()
    with cp.cuda.Device(device_id):
        return cp.zeros(1, dtype=np.int64)


# Instantiations compiled by scripts/check_cuda.sh (nvcc -Xptxas -v: errors and spills).
_SHAPES = [
    "2, 3, bool, bool, false, false",  # any_pair (BFS pull)
    "30, 3, bool, long long, false, false",  # any_secondi (BFS parents)
    "7, 4, double, double, true, true",  # plus_times fp64
    "7, 4, float, float, true, true",  # plus_times fp32
    "7, 4, long long, long long, true, true",  # plus_times int64
    "4, 10, double, double, true, true",  # min_plus
    "7, 11, long long, long long, true, true",  # max_times
    "13, 12, bool, bool, true, true",  # lor_land
    "89, 4, long long, long long, true, true",  # plus_pow flipped
    "22, 24, unsigned long long, unsigned long long, true, true",  # bxor_bor
]
CHECK_INSTANCES: dict[str, list[str]] = {"mxv.cu": [
    *(f"sell_mxv<{s}, {p}, {w}>" for s in _SHAPES for p in ("false", "true")
      for w in ("true", "false")),
    "sell_combine<3, bool>", "sell_combine<3, long long>", "sell_combine<4, double>",
    "sell_combine<10, double>", "sell_combine<12, bool>", "sell_combine<11, long long>",
]}


# ====================================================================== registrations
# direction "*": the planner runs it as pull whenever the matrix holds the format (as on
# the CPU); UDF semirings find no registration here and take the generic CSR kernel
for _fmt in ("sellcs", "slimsell"):
    register_kernel("mxv", f"cuda_{_fmt}_pull_structural", device="cuda", format=_fmt,
                    traits="structural", fuses_mask=True)(mxv_pull)
    register_kernel("mxv", f"cuda_{_fmt}_pull_spmv", device="cuda", format=_fmt,
                    traits="builtin", fuses_mask=True)(mxv_pull)

__all__ = ["CHECK_INSTANCES", "SPLIT", "get_kernel", "mxv_pull", "source"]
