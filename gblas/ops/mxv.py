"""mxv / vxm / inner: plan (direction, format, kernel), run, record.

``vxm(u, A)`` is planned as ``mxv(Aᵀ, u)`` with the multiply flipped. Push scatters from
the vector's entries over rows of Mᵀ; pull gathers each allowed output row of M.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from .._device import device_kind, same_device
from ..backend import keys as E
from ..backend import spmv
from ..backend.threads import threads_for
from ..core.descriptor import Descriptor
from ..core.expr import Expression, Result
from ..core.mask import Mask
from ..dtypes import BOOL
from ..exceptions import DimensionMismatch, NotImplementedForFormat
from ..formats.vector import FULL, SPARSE, VecData
from ..semirings.model import KernelSemiring, resolve_semiring
from .dispatch import MxvCall, find_kernel, formats_for, semiring_traits
from .ewise import ewise_values
from .plan import choose_direction, record
from .validate import as_semiring, require
from .writeback import vector_mask_bits


def mxv_expr(M: Any, x: Any, op: Any) -> Expression:  # noqa: N803
    require(M, "matrix", "mxv")
    require(x, "vector", "mxv")
    sr = as_semiring(op, "mxv")
    mismatch = None
    if M.ncols != x.size:
        mismatch = (f"mxv: matrix {M.name} has {M.ncols} columns but vector {x.name} has "
                    f"size {x.size}; they must agree")
        if M.nrows != x.size:  # not even with transpose_first
            raise DimensionMismatch(mismatch)
    dev = same_device(M, x)
    ks = resolve_semiring(sr, M.dtype, x.dtype)
    e = Expression("mxv", 1, (M.nrows,), ks.out_type, dev,
                   lambda mask, desc: run_mxv(M, x, ks, mask, desc, "mxv"), (M, x))
    e._into = lambda C, accum, mask, replace, desc: run_mxv(  # noqa: N803
        M, x, ks, mask, desc, "mxv", (C, accum, replace))
    # the matrix is GrB_INP0 of mxv
    e._transposed = lambda t0, t1: mxv_expr(M.T, x, sr) if t0 else mxv_expr(M, x, sr)
    e._mismatch = mismatch
    return e


def vxm_expr(u: Any, A: Any, op: Any) -> Expression:  # noqa: N803
    require(u, "vector", "vxm")
    require(A, "matrix", "vxm")
    sr = as_semiring(op, "vxm")
    mismatch = None
    if A.nrows != u.size:
        mismatch = (f"vxm: vector {u.name} has size {u.size} but matrix {A.name} has "
                    f"{A.nrows} rows; they must agree")
        if A.ncols != u.size:  # not even with transpose_second
            raise DimensionMismatch(mismatch)
    dev = same_device(u, A)
    ks = resolve_semiring(sr.flipped, A.dtype, u.dtype)
    M = A.T
    e = Expression("vxm", 1, (A.ncols,), ks.out_type, dev,
                   lambda mask, desc: run_mxv(M, u, ks, mask, desc, "vxm"), (u, A))
    e._into = lambda C, accum, mask, replace, desc: run_mxv(  # noqa: N803
        M, u, ks, mask, desc, "vxm", (C, accum, replace))
    # the matrix is GrB_INP1 of vxm
    e._transposed = lambda t0, t1: vxm_expr(u, A.T, sr) if t1 else vxm_expr(u, A, sr)
    e._mismatch = mismatch
    return e


def inner_expr(u: Any, v: Any, op: Any) -> Expression:
    """⊕_i u_i ⊗ v_i as a Scalar expression."""
    require(v, "vector", "inner")
    sr = as_semiring(op, "inner")
    if u.size != v.size:
        raise DimensionMismatch(f"inner: sizes {u.size} and {v.size} differ")
    dev = same_device(u, v)
    ks = resolve_semiring(sr, u.dtype, v.dtype)

    def compute(mask: Any, desc: Any) -> Result:
        if u._data.on_device:  # ⊕ of u(i) ⊗ v(i) in one reduction on the device
            from ..backend.reduce_cuda import reduce_dense  # noqa: PLC0415
            from .writeback import dense_operand  # noqa: PLC0415

            ab, av = dense_operand(u._data)
            bb, bv = dense_operand(v._data)
            ds = reduce_dense(ks.add, ab, av, ks.out_type, (ks.mult, ks.domain, bb, bv))
            if ds is not None:
                record(desc, "inner", "inner_dense")
                return Result(ds)
        keys, vals = ewise_values("ewise_mult", u, v, ks.mult, ks.out_type)
        if keys.shape[0] == 0:
            return Result((None, False))
        return Result((E.reduce_all(ks.add, vals, ks.out_type), True))

    return Expression("inner", 0, (), ks.out_type, dev, compute, (u, v))


def _base_format(M: Any, desc: Descriptor | None) -> str:  # noqa: N803
    if desc is not None and desc.format:
        from ..formats import format_names  # noqa: PLC0415

        if desc.format not in format_names():
            raise NotImplementedForFormat(
                f"Descriptor format {desc.format!r} is unknown; available formats: "
                f"{', '.join(format_names())}"
            )
        return desc.format
    owner = getattr(M, "_matrix", M)
    return owner.format.split("(")[0]


# for semirings whose pull reads every entry (no early exit), the push-to-pull density of
# choose_direction is scaled by this (0.04 -> 0.30), both ways: min_plus with 2 threads,
# push against pull crosses between 20% and 40% density on kron:16 and urand:16 (push
# 3.1 / 4.3 ms against pull 6.5 / 5.0 ms at 20%) and near 35-40% on urand:20
_NO_EXIT_DENSITY = 7.5

# a GPU push that folds with atomics (KernelSemiring.order_free) runs below this density of
# x (whose count is known): one random 64-bit atomic a frontier edge against the pull's
# streamed rows. SSSP on the H100 (2026-11-27), thresholds 0 / 0.01 / 0.05 / 0.1 / 0.2:
# kron:22 30.6 / 24.8 / 24.0 / 24.7 / 23.2 ms, urand:22 66.5 / 53.6 / 51.2 / 51.9 / 50.6
_DEVICE_ATOMIC_PUSH = 0.2
# ... and on matrices of at least this many entries: the push issues ~7 launches and
# memsets where the pull issues ~2, ~25 µs more host time, what a pull of ~3 M entries
# takes on the device
_DEVICE_ATOMIC_MIN_NNZ = 1 << 21

# below this many entries + rows an mxv on the CPU runs on one Numba thread
_SERIAL_WORK = 1 << 16

# formats that store the pattern only and read every entry as 1
_VALUELESS = frozenset({"slimsell"})


def _unit_valued(M: Any) -> bool:  # noqa: N803
    """Every stored value of M is 1 (the structure-only graphs); cached on the matrix."""
    owner = getattr(M, "_matrix", M)

    def check() -> bool:
        csr = owner._csr()
        return bool(csr.iso == 1) if csr.is_iso else bool((csr.values == 1).all())

    return owner._prop("unit_valued", check)


def run_mxv(M: Any, x: Any, ks: KernelSemiring, mask: Mask | None,  # noqa: N803
            desc: Descriptor | None, opname: str, into: tuple[VecData, Any, bool] | None = None
            ) -> Result:
    """Plan and run T = M ⊕.⊗ x (mask fused when the kernel can); a descriptor's
    transposes were applied to the operands already (Expression.for_descriptor).
    ``into`` = (C's data, accumulator, replace) of ``C(mask, accum, replace) << M ⊕.⊗ x``:
    a kernel that can fold T into C as it writes (fuses_accum) returns C's new data
    (Result.accum_applied), else T is returned as without it."""
    xdata: VecData = x._data
    transposed_view = M is not getattr(M, "_matrix", M)
    state = getattr(M, "_last_direction", {})
    # a GPU vector's count may not be known without a read: its storage is then the
    # density signal (a bitmap is dense: pull)
    nv = xdata.known_nvals
    nv = x_nv = xdata.size if nv is None else nv
    last = state.get(transposed_view, "push")
    if not (ks.is_any or (ks.has_terminal and ks.out_type == BOOL)):
        # a pull that cannot stop early reads every entry of M whatever x, a push only x's
        # rows: one crossover density, well above the early-exit one, and no hysteresis
        nv, last = nv / _NO_EXIT_DENSITY, "push"
    direction = choose_direction(last, nv, xdata.size, desc)
    forced = desc is not None and desc.direction != "auto"
    if direction == "push" and xdata.on_device and not forced and not (
            (ks.is_any and xdata.kind == SPARSE)
            or (ks.order_free and x_nv < _DEVICE_ATOMIC_PUSH * xdata.size
                and M.nvals >= _DEVICE_ATOMIC_MIN_NNZ)):
        # a GPU push scatters a sparse frontier with first-claim atomics (the any monoid),
        # or folds a small known frontier of a large matrix with atomics (min, max,
        # integer plus: one atomic an edge, so only well below the CPU's crossover); other
        # monoids would sort the products and read their count: pull reads nothing
        direction = "pull"
    if desc is not None and not desc.early_exit:
        ks = replace(ks, has_terminal=False)
    owner = getattr(M, "_matrix", M)
    traits = ks.derived("traits", semiring_traits)
    mask_kind = mask.kind if mask is not None else "none"
    # the plan (kernel, format, representation) of the same call shape, kept with the
    # matrix's properties (dropped when it changes): a loop of small products plans once
    pkey = ("mxv_plan", transposed_view, owner._primary, desc.format if desc is not None else None,
            x.device, xdata.kind, direction, traits, ks.uses_left, mask_kind)
    plan = owner._props.get(pkey)
    if plan is None:
        plan = owner._props[pkey] = _plan_mxv(M, owner, x.device, xdata.kind, direction,
                                              traits, ks.uses_left, mask_kind, desc, opname)
    reg, fmt, rep, used_direction = plan
    fuse = reg.fuses_mask and mask is not None
    mask_keys = None
    if fuse:
        mdata = mask.parent._data
        if mask.structure and mdata.kind == SPARSE and not mdata.on_device:
            mask_keys = mdata.indices
    accum_into = None
    if into is not None and reg.fuses_accum and (mask is None or fuse):
        accum_into = _accum_into(into, xdata, ks, mask)
    call = MxvCall(
        rep=rep, x=xdata, ks=ks, nrows=M.nrows,
        mask_bits_of=partial(vector_mask_bits, mask) if fuse else None,
        mask_comp=bool(mask.complement) if fuse else False,
        early_exit=desc.early_exit if desc is not None else True,
        mask_keys=mask_keys, accum_into=accum_into,
    )
    name = reg.name
    if xdata.on_device:
        T = reg.func(call)  # noqa: N806
    else:
        if name == "csr_pull_spmv" and ks.derived("spmv", spmv.applies):
            # plus/min/max with first/second/times/plus/pair on one numeric type: the
            # specialised pull (operators inlined, no per-entry opcode switch; small ones
            # outside the parallel runtime)
            name = "csr_pull_arith"
            T = _pull_arith(call)  # noqa: N806
        elif used_direction == "push":
            T = reg.func(call)  # noqa: N806 - the push kernels size their own parallelism
        else:
            # small products on one thread: waking the pool costs more than the work
            with threads_for(int(getattr(rep, "nnz", 1 << 30)) + M.nrows, _SERIAL_WORK):
                T = reg.func(call)  # noqa: N806
    if isinstance(state, dict):
        state[transposed_view] = used_direction
    record(desc, opname, name, used_direction, fmt)
    return Result(T, mask_applied=fuse, accum_applied=accum_into is not None)


def _accum_into(into: tuple[VecData, Any, bool], xdata: VecData, ks: KernelSemiring,
                mask: Mask | None) -> tuple[VecData, int] | None:
    """(C, the accumulator's opcode) when a kernel may write ``C(mask, accum) << T`` into
    C's arrays: C dense on the device, of T's type, an accumulator of that domain with a
    kernel form, no replace, and C neither x nor the mask (the kernel reads those while it
    writes C); else None."""
    C, accum, replace = into  # noqa: N806
    if (replace or not C.on_device or C.kind == SPARSE or C is xdata
            or C.dtype != ks.out_type):
        return None
    if mask is not None and mask.parent._data is C:
        return None
    if accum.domain(C.dtype, ks.out_type) != C.dtype:
        return None
    op = accum.for_domain(C.dtype)
    if op.positional or op.opcode < 0 or op.is_udf:
        return None
    return C, int(op.opcode)


def _plan_mxv(M: Any, owner: Any, device: str, storage: str, direction: str,  # noqa: N803
              traits: str, uses_left: bool, mask_kind: str, desc: Descriptor | None,
              opname: str) -> tuple[Any, str, Any, str]:
    """(registration, format, representation, direction) for run_mxv's call shape."""
    fmt = _base_format(M, desc)
    if fmt in _VALUELESS and uses_left and not _unit_valued(M):
        fmt = "csr"  # SlimSell keeps no values (every entry reads 1): A's values are in CSR
    key = {"device": device_kind(device), "storage": storage, "direction": direction,
           "traits": traits, "mask": mask_kind}
    reg = find_kernel("mxv", format=fmt, **key)
    if reg is None:
        others = formats_for("mxv", **key)
        fmt = "csr" if "csr" in others else (others[0] if others else fmt)
        reg = find_kernel("mxv", format=fmt, **key)
    if reg is None:
        raise NotImplementedForFormat(
            f"no {opname} kernel for format {fmt!r} on {device} ({key}); convert the "
            "matrix with A.to_format('csr')"
        )
    used_direction = reg.direction if reg.direction != "*" else "pull"
    # the parameters given to to_format (C, sigma, ...) select the cached representation;
    # a format named only by the descriptor or by the fallback takes its defaults
    params = owner._primary_params if owner.format.split("(")[0] == fmt else {}
    rep = M._rep(fmt, transposed=used_direction == "push", **params)
    return reg, fmt, rep, used_direction


def _pull_arith(call: MxvCall) -> VecData:
    """The CPU pull of :mod:`gblas.backend.spmv` on the CSR of M."""
    csr = call.rep
    x: VecData = call.x
    if x.kind == FULL:
        xb, xv = None, x.values
    else:
        xb, xv = x.as_bitmap()
    pres, vals = spmv.pull(csr.indptr, csr.indices, csr.values, csr.iso, xb, xv,
                           call.mask_bits, call.mask_comp, call.ks)
    return VecData.bitmap(call.nrows, call.ks.out_type, pres, vals).normalized()
