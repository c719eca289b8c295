"""Column reduces of wide, sparse matrices sort their entries by column (no transpose):
the results equal the transposed CSR's, value for value, for every monoid family, iso and
valued matrices, integer and float types, empty matrices and empty columns."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gblas import FP64, INT64, Matrix, binary, monoid
from gblas.ops.plan import last_plan

MONOIDS = ["plus", "times", "min", "max", "any"]


@st.composite
def wide_matrices(draw: st.DrawFn) -> tuple[Matrix, str]:
    nrows = draw(st.integers(1, 6))
    ncols = draw(st.integers(40, 400))
    nnz = draw(st.integers(0, ncols // 16 - 1))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, nrows, nnz), rng.integers(0, ncols, nnz)
    kind = draw(st.sampled_from(["iso", "int", "float"]))
    if kind == "iso":
        A = Matrix.from_coo(r, c, 3, INT64, nrows=nrows, ncols=ncols, dup_op=binary.first)
    elif kind == "int":
        A = Matrix.from_coo(r, c, rng.integers(-5, 6, nnz), INT64, nrows=nrows, ncols=ncols,
                            dup_op=binary.plus)
    else:
        A = Matrix.from_coo(r, c, rng.normal(size=nnz), FP64, nrows=nrows, ncols=ncols,
                            dup_op=binary.plus)
    return A, draw(st.sampled_from(MONOIDS))


@given(wide_matrices())
def test_sorted_column_reduce_equals_transposed(case: tuple[Matrix, str]) -> None:
    A, name = case  # noqa: N806
    sorted_path = "csr_T" not in A._reps
    got = A.reduce_columnwise(getattr(monoid, name)).new()  # no transpose cached: sorted
    assert (last_plan().kernel == "reduce_columns_sorted") == sorted_path
    A._csr_T()  # now the transposed CSR serves the same reduce
    want = A.reduce_columnwise(getattr(monoid, name)).new()
    gi, gv = got.to_coo()
    wi, wv = want.to_coo()
    np.testing.assert_array_equal(gi, wi)
    np.testing.assert_array_equal(gv, wv)
    assert got.dtype == want.dtype
