"""Property tests of the write-back on its own, ``out(mask, accum, replace) << expr`` vs
``reference.writeback``, including aliasing (the output is also the mask or the operand),
and of failed operations, which must leave their output unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gblas import Descriptor, Matrix, Vector, binary, semiring, unary
from gblas.exceptions import GraphblasException
from gblas.ops import reference as ref

from .strategies import (
    MATRIX_FORMATS,
    MaskCase,
    accums,
    assert_matches,
    assert_same_object,
    assume_accum_ok,
    dense_arrays,
    dtypes,
    from_gblas,
    masks,
    out_dtypes,
    sizes,
    to_gblas,
    vector_storages,
)


@st.composite
def shapes(draw: st.DrawFn) -> tuple[int, ...]:
    return tuple(draw(sizes) for _ in range(draw(st.sampled_from([1, 2]))))


def _storage(data: st.DataObject, ndim: int, label: str) -> str | None:
    strat = vector_storages if ndim == 1 else st.sampled_from((None,) + MATRIX_FORMATS)
    return data.draw(strat, label=label)


@given(data=st.data())
def test_writeback_vs_oracle(data: st.DataObject) -> None:
    """``out(mask, accum, replace) << u.apply(identity)`` (or ``<< u``) for any output dtype."""
    d = data.draw
    shape = d(shapes(), label="shape")
    udt = d(dtypes, label="u dtype")
    u = d(dense_arrays(shape, udt), label="u")
    odt = d(out_dtypes(udt), label="out dtype")
    C0 = d(dense_arrays(shape, odt), label="out")
    mask = d(masks(shape), label="mask")
    accum = d(accums, label="accum")
    assume_accum_ok(accum, odt, udt)
    replace = d(st.booleans(), label="replace") if mask.kind else False
    form = d(st.sampled_from(["apply", "collection", "positional", "desc"]), label="form")
    out = to_gblas(C0, _storage(data, len(shape), "out storage"))
    ug = to_gblas(u, _storage(data, len(shape), "u storage"))
    m = mask.build()
    if form == "positional":  # python-graphblas' out(mask, accum) form
        if replace:
            out(m, accum, replace=True) << ug.apply(unary.identity)
        else:
            out(m, accum) << ug.apply(unary.identity)
    elif form == "desc":  # replace through the descriptor
        out(mask=m, accum=accum, desc=Descriptor(replace=replace)) << ug.apply(unary.identity)
    elif form == "collection":
        out(mask=m, accum=accum, replace=replace) << ug
    else:
        out(mask=m, accum=accum, replace=replace) << ug.apply(unary.identity)
    expected = ref.writeback(C0, u, mask.spec(), accum, replace)
    assert_matches(from_gblas(out), expected,
                   what=f"{form}: mask={mask.kind} accum={accum} replace={replace}")
    assert_same_object(ug, u, "write-back: the operand was modified")


@given(data=st.data())
def test_writeback_mask_descriptor_vs_oracle(data: st.DataObject) -> None:
    """Descriptor(mask_structure=, mask_complement=) modify the given mask."""
    d = data.draw
    n = d(sizes, label="n")
    dt = d(dtypes, label="dtype")
    u = d(dense_arrays((n,), dt), label="u")
    C0 = d(dense_arrays((n,), dt), label="out")
    mask = d(masks((n,), kinds=("S", "V", "~S", "~V")), label="mask")
    ms, mc = d(st.booleans(), label="mask_structure"), d(st.booleans(), label="mask_compl")
    replace = d(st.booleans(), label="replace")
    out = to_gblas(C0, d(vector_storages))
    out(mask=mask.build(), replace=replace,
        desc=Descriptor(mask_structure=ms, mask_complement=mc)) << to_gblas(u).apply(
            unary.identity)
    mv, mp, structure, complement = mask.spec()
    spec = (mv, mp, structure or ms, complement != mc)
    assert_matches(from_gblas(out), ref.writeback(C0, u, spec, None, replace),
                   what=f"mask={mask.kind} desc(structure={ms}, complement={mc})")


@given(data=st.data())
def test_writeback_aliased_vs_oracle(data: st.DataObject) -> None:
    """The output is also the mask (``w(w.S) << …``) and/or the operand (``w << w.apply``)."""
    d = data.draw
    shape = d(shapes(), label="shape")
    dt = d(dtypes, label="dtype")
    C0 = d(dense_arrays(shape, dt), label="out")
    kind = d(st.sampled_from(["S", "V", "~S", "~V"]), label="mask kind (of out itself)")
    alias_operand = d(st.booleans(), label="operand is out")
    accum = d(st.sampled_from([None, binary.plus, binary.min, binary.first]), label="accum")
    replace = d(st.booleans(), label="replace")
    out = to_gblas(C0, _storage(data, len(shape), "out storage"))
    if alias_operand:
        operand, T = out, ref.apply(C0, unary.ainv)
    else:
        u = d(dense_arrays(shape, dt), label="u")
        operand, T = to_gblas(u), ref.apply(u, unary.ainv)
    m = out.S if "S" in kind else out.V
    m = ~m if kind.startswith("~") else m
    out(mask=m, accum=accum, replace=replace) << operand.apply(unary.ainv)
    spec = MaskCase(kind, C0).spec()
    assert_matches(from_gblas(out), ref.writeback(C0, T, spec, accum, replace),
                   what=f"aliased mask={kind} operand_is_out={alias_operand} accum={accum} "
                        f"replace={replace}")


@given(data=st.data())
def test_mxv_aliased_vs_oracle(data: st.DataObject) -> None:
    """BFS's shape: ``q(~q.S, replace=True) << A.mxv(q)``: output, mask and operand alias."""
    d = data.draw
    n = d(sizes, label="n")
    A = d(dense_arrays((n, n), np.bool_), label="A")
    q0 = d(dense_arrays((n,), np.bool_), label="q")
    kind = d(st.sampled_from(["S", "~S", "V", "~V"]), label="mask kind")
    direction = d(st.sampled_from(["push", "pull", "auto"]), label="direction")
    replace = d(st.booleans(), label="replace")
    fmt = d(st.sampled_from(MATRIX_FORMATS), label="format")
    sr = semiring.any_pair
    q = to_gblas(q0, d(vector_storages))
    m = q.S if "S" in kind else q.V
    m = ~m if kind.startswith("~") else m
    q(mask=m, replace=replace, desc=Descriptor(direction=direction)) << to_gblas(
        A, fmt).mxv(q, sr)
    expected = ref.writeback(q0, ref.mxv(A, q0, sr), MaskCase(kind, q0).spec(), None, replace)
    assert_matches(from_gblas(q), expected, what=f"q(mask={kind}) << A.mxv(q) {direction}")


# ================================================================== failed operations
def _must_raise(name: str, fail, obj) -> None:
    try:
        fail(obj)
    except GraphblasException:
        return
    pytest.fail(f"{name}: no gblas error was raised")


def _failures(n: int, m: int):
    """(name, function(out) that must raise) for an output vector of size n and
    a matrix output of shape (n, m)."""
    u_n = Vector.from_coo(np.arange(n), 1, dtype=np.int64, size=n)
    u_n1 = Vector(np.int64, n + 1)
    A_n_m = Matrix(np.int64, n, m)
    A_n1_m = Matrix(np.int64, n + 1, m)
    u_m1 = Vector(np.int64, m + 1)
    u_m = Vector(np.int64, m)
    vec = [
        ("mxv operand size", lambda w: w.update(A_n_m.mxv(u_m1, semiring.plus_times))),
        ("mxv output size", lambda w: w.update(A_n1_m.mxv(u_m, semiring.plus_times))),
        ("vxm output size", lambda w: w.update(u_n1.vxm(Matrix(np.int64, n + 1, n + 2),
                                                       semiring.plus_times))),
        ("mask size", lambda w: w(mask=u_n1.S) << u_n),
        ("matrix mask", lambda w: w(mask=A_n_m.S) << u_n),
        ("replace without mask", lambda w: w(replace=True) << u_n),
        ("ewise sizes", lambda w: w.update(u_n.ewise_add(u_n1, binary.plus))),
        ("assign index out of range", lambda w: w()[[0, n]].update(1)),
        ("assign operand size", lambda w: w()[list(range(n))].update(u_n1)),
        ("extract out of range", lambda w: w.update(u_n1[[0, n + 1]])),
        ("matrix into vector", lambda w: w.update(A_n_m)),
        ("select value op needs thunk", lambda w: w.update(u_n.select("valuegt"))),
        ("reduce rows size", lambda w: w.update(A_n1_m.reduce_rowwise())),
    ]
    B_m1_n = Matrix(np.int64, m + 1, n)
    mat = [
        ("mxm inner dims", lambda C: C.update(A_n_m.mxm(B_m1_n, semiring.plus_times))),
        ("mxm output shape", lambda C: C.update(A_n1_m.mxm(Matrix(np.int64, m, m),
                                                           semiring.plus_times))),
        ("assign region shape", lambda C: C()[list(range(n)), list(range(m))].update(
            Matrix(np.int64, n + 1, m))),
        ("assign index out of range", lambda C: C()[[n], [0]].update(1)),
        ("transpose shape", lambda C: C.update(Matrix(np.int64, n + 1, m).T)),
        ("mask shape", lambda C: C(mask=Matrix(bool, n + 1, m).S) << A_n_m),
        ("vector into matrix", lambda C: C.update(u_n)),
    ]
    return vec, mat


@given(data=st.data())
def test_failed_operations_leave_output_unchanged(data: st.DataObject) -> None:
    d = data.draw
    n = d(st.integers(1, 6), label="n")
    m = d(st.integers(1, 6), label="m")
    dt = d(dtypes, label="dtype")
    w0 = d(dense_arrays((n,), dt), label="w")
    C0 = d(dense_arrays((n, m), dt), label="C")
    vec, mat = _failures(n, m)
    for name, fail in vec:
        w = to_gblas(w0, d(vector_storages, label=f"{name}: storage"))
        _must_raise(name, fail, w)
        assert_same_object(w, w0, f"{name}: output changed by a failed operation")
    for name, fail in mat:
        C = to_gblas(C0, d(st.sampled_from(MATRIX_FORMATS), label=f"{name}: format"))
        _must_raise(name, fail, C)
        assert_same_object(C, C0, f"{name}: output changed by a failed operation")
