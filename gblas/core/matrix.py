"""Matrix: a sparse matrix that caches its representations (CSR, CSR of Aᵀ, COO, ...)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._device import get_array_module, move_array, normalize_device
from ..dtypes import FP64, DataType, lookup_dtype
from ..exceptions import DimensionMismatch, InvalidValue, NoValue
from ..formats.csr.container import CSR
from ..semirings.model import BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp
from ._lazy import ops
from .base import (
    Collection,
    ElementwiseMethods,
    auto_name,
    index_array,
    is_scalar_index,
    normalize_index,
)
from .expr import Expression, Result
from .infix import InfixMethods
from .op_args import apply_op, ewise_op, reduce_op

if TYPE_CHECKING:
    from .vector import Vector


class MatrixLike(InfixMethods, ElementwiseMethods, Collection):
    """Read-side API shared by Matrix and its transposed view ``A.T``."""

    ndim = 2

    @property
    def shape(self) -> tuple[int, int]:
        return (self.nrows, self.ncols)

    def mxv(self, other: Any, op: Semiring | None = None) -> Expression:
        """A ⊕.⊗ v (default plus_times)."""
        return ops.mxv.mxv_expr(self, other, op)

    def mxm(self, other: Any, op: Semiring | None = None) -> Expression:
        """A ⊕.⊗ B (default plus_times)."""
        return ops.mxm.mxm_expr(self, other, op)

    def __matmul__(self, other: Any) -> Expression:
        from .vector import Vector  # noqa: PLC0415

        method = "mxv" if isinstance(other, Vector) else "mxm"
        e = getattr(self, method)(other)
        e._matmul = (method, self, other)  # semiring.min_plus(A @ B) reruns it
        return e

    def kronecker(self, other: Any, op: Any = None) -> Expression:
        """Kronecker product with op (default times)."""
        return ops.compose.kronecker_expr(self, other, ewise_op(op, "kronecker"))

    def power(self, n: int, op: Semiring | str | None = None) -> Expression:
        """A ⊕.⊗ A ⊕.⊗ ... with n >= 1 factors (default plus_times)."""
        return ops.compose.power_expr(self, n, op)

    def diag(self, k: int = 0) -> Vector:
        """The k-th diagonal as a Vector (k > 0 above the main diagonal, k < 0 below)."""
        return ops.compose.matrix_diag(self, k)

    def apply(self, op: UnaryOp | BinaryOp | IndexUnaryOp | Monoid | str, right: Any = None,
              *, left: Any = None) -> Expression:
        return ops.apply.apply_expr(self, apply_op(op, left, right), left=left, right=right)

    def select(self, op: IndexUnaryOp | str, thunk: Any = None) -> Expression:
        """Keep entries where op(x, i, j, thunk) holds: tril, triu, diag, offdiag, ``">"``..."""
        return ops.select.select_expr(self, op, thunk)

    def reduce_rowwise(self, op: Any = None) -> Expression:
        """Reduce each row with a Monoid (default plus) or an Aggregator (gb.agg)."""
        op = reduce_op(op, "reduce_rowwise")
        if hasattr(op, "_reduce"):
            return op._reduce(self, "rows")
        return ops.reduce.reduce_matrix_expr(self, op, "rows")

    def reduce_columnwise(self, op: Any = None) -> Expression:
        """Reduce each column with a Monoid (default plus) or an Aggregator (gb.agg)."""
        op = reduce_op(op, "reduce_columnwise")
        if hasattr(op, "_reduce"):
            return op._reduce(self, "columns")
        return ops.reduce.reduce_matrix_expr(self, op, "columns")

    def reduce_scalar(self, op: Any = None, *, allow_empty: bool = True) -> Expression:
        op = reduce_op(op, "reduce_scalar")
        if hasattr(op, "_reduce"):
            return op._reduce(self, "scalar")
        return ops.reduce.reduce_matrix_expr(self, op, "scalar")

    def to_coo(self, dtype: Any = None, *, rows: bool = True, columns: bool = True,
               values: bool = True, sort: bool = True) -> tuple[Any, Any, Any]:
        """(rows, cols, values) as NumPy arrays, sorted row-major (whatever ``sort``)."""
        csr = self._csr()
        r, c = move_array(csr.row_ids(), "cpu"), move_array(csr.indices, "cpu")
        v = move_array(csr.full_values(), "cpu")
        if dtype is not None:
            v = v.astype(lookup_dtype(dtype).np_type)
        return (r.copy() if rows else None, c.copy() if columns else None,
                v.copy() if values else None)

    def to_csr(self, dtype: Any = None) -> tuple[Any, Any, Any]:
        """(indptr, col_indices, values) as NumPy arrays."""
        csr = self._csr()
        v = move_array(csr.full_values(), "cpu")
        if dtype is not None:
            v = v.astype(lookup_dtype(dtype).np_type)
        return (move_array(csr.indptr, "cpu").copy(), move_array(csr.indices, "cpu").copy(),
                v.copy())

    def to_csc(self, dtype: Any = None) -> tuple[Any, Any, Any]:
        """(indptr, row_indices, values) as NumPy arrays."""
        return self.T.to_csr(dtype)

    def to_dicts(self, order: str = "rowwise") -> dict[int, dict[int, Any]]:
        """``{row: {column: value}}`` (``order="columnwise"``: ``{column: {row: value}}``)."""
        if order not in ("rowwise", "columnwise"):
            raise InvalidValue(f"order must be 'rowwise' or 'columnwise', got {order!r}")
        r, c, v = (self if order == "rowwise" else self.T).to_coo()
        out: dict[int, dict[int, Any]] = {}
        for i, j, x in zip(r.tolist(), c.tolist(), v.tolist()):
            out.setdefault(i, {})[j] = x
        return out

    def to_edgelist(self, dtype: Any = None, *, values: bool = True) -> tuple[Any, Any]:
        """(edges, values): an (nvals, 2) array of (row, column) pairs, and the values."""
        r, c, v = self.to_coo(dtype, values=values)
        return np.column_stack([r, c]), v

    def get(self, row: int, col: int, default: Any = None) -> Any:
        """The value at (row, col), or ``default`` when there is no entry."""
        v = self[row, col].value
        return default if v is None else v

    def wait(self) -> MatrixLike:
        """Wait for the work queued on the matrix's device (results are computed at ``<<``
        and ``.new()``; on a GPU the kernels may still be running)."""
        from .._device import synchronize  # noqa: PLC0415

        synchronize(self.device)
        return self

    def to_dense(self, fill_value: Any = None, dtype: Any = None) -> np.ndarray:
        dt = lookup_dtype(dtype) if dtype is not None else self.dtype
        if fill_value is None and self.nvals != self.nrows * self.ncols:
            raise NoValue(f"{self.name} has missing values; pass fill_value")
        r, c, v = self.to_coo(dt)
        out = np.full(self.shape, 0 if fill_value is None else fill_value, dtype=dt.np_type)
        out[r, c] = v
        return out

    def to_scipy_sparse(self, format: str = "csr") -> Any:  # noqa: A002
        """A SciPy sparse matrix (``csr``, ``csc``, ``coo``) on the host."""
        import scipy.sparse as sp  # noqa: PLC0415

        indptr, idx, vals = self.to_csr()
        m = sp.csr_matrix((vals, idx, indptr), shape=self.shape)
        if format not in ("csr", "csc", "coo", "lil", "dok", "dia", "bsr"):
            raise InvalidValue(f"unknown SciPy format {format!r}")
        return m.asformat(format)

    def isequal(self, other: Any, *, check_dtype: bool = False) -> bool:
        return ops.compare.isequal(self, other, check_dtype=check_dtype)

    def isclose(self, other: Any, *, rel_tol: float = 1e-7, abs_tol: float = 0.0,
                check_dtype: bool = False) -> bool:
        return ops.compare.isequal(self, other, check_dtype=check_dtype, rel_tol=rel_tol,
                                   abs_tol=abs_tol)

    def __getitem__(self, index: Any) -> Any:
        from ..ops.extract import (  # noqa: PLC0415
            ScalarIndexExpr,
            matrix_extract,
            matrix_extract_col,
            matrix_extract_row,
        )

        if not isinstance(index, tuple) or len(index) != 2:
            raise InvalidValue("matrix indexing needs two indices: A[i, j], A[I, J]")
        ri, ci = index
        if is_scalar_index(ri) and is_scalar_index(ci):
            return ScalarIndexExpr(self, (normalize_index(ri, self.nrows, "row"),
                                          normalize_index(ci, self.ncols, "column")))
        if is_scalar_index(ri):
            return matrix_extract_row(self, normalize_index(ri, self.nrows, "row"),
                                      index_array(ci, self.ncols, "column"))
        if is_scalar_index(ci):
            return matrix_extract_col(self, index_array(ri, self.nrows, "row"),
                                      normalize_index(ci, self.ncols, "column"))
        return matrix_extract(self, index_array(ri, self.nrows, "row"),
                              index_array(ci, self.ncols, "column"))


class Matrix(MatrixLike):
    """A GraphBLAS matrix (``nrows`` × ``ncols`` of ``dtype``) on a device."""

    def __init__(self, dtype: Any = FP64, nrows: int = 0, ncols: int = 0, *,
                 name: str | None = None, device: str | None = None) -> None:
        if int(nrows) < 0 or int(ncols) < 0:
            raise InvalidValue(f"shape must be non-negative, got ({nrows}, {ncols})")
        self.device = normalize_device(device)
        self._name = name or auto_name("M")
        xp = get_array_module(self.device)
        dt = lookup_dtype(dtype)
        self._set(CSR(int(nrows), int(ncols), xp.zeros(int(nrows) + 1, dtype=np.int64),
                      xp.empty(0, dtype=np.int64), xp.empty(0, dtype=dt.np_type), dt))

    # ------------------------------------------------------------------ storage
    def _set(self, csr: CSR, primary: str = "csr") -> None:
        self._reps: dict[str, Any] = {"csr": csr}
        self._primary = primary
        self._primary_params: dict[str, Any] = {}  # to_format's parameters (run_mxv reads)
        self._keys_cache: tuple[Any, Any] | None = None
        self._last_direction: dict[bool, str] = {}
        # graph properties (out_degree, in_degree, symmetry): dropped with the reps
        self._props: dict[str, Any] = {}
        if primary != "csr":
            self.to_format(primary)

    @classmethod
    def _from_csr(cls, csr: CSR, device: str, name: str | None = None) -> Matrix:
        m = cls.__new__(cls)
        m.device = device
        m._name = name or auto_name("M")
        m._set(csr)
        return m

    def _csr(self) -> CSR:
        if "csr" not in self._reps:
            from ..formats import to_csr  # noqa: PLC0415

            self._reps["csr"] = to_csr(self._reps[self._primary])
        return self._reps["csr"]

    def _csr_T(self) -> CSR:  # noqa: N802
        """CSR of Aᵀ (cached: pull on A.T and push on A read it). A matrix already known
        to be symmetric (values too, or an iso one with a symmetric structure) is its own
        transpose: no copy (a kron:26 transpose would not fit beside it on one H100)."""
        if "csr_T" not in self._reps:
            from ..formats import transpose_csr  # noqa: PLC0415

            csr = self._csr()
            known = self._props.get("symmetric_False") or (
                self._props.get("symmetric_True") and csr.iso)
            self._reps["csr_T"] = csr if known else transpose_csr(csr)
        return self._reps["csr_T"]

    def _rep(self, name: str, transposed: bool = False, **params: Any) -> Any:
        """The representation ``name`` of A (or of Aᵀ), built and cached on first use."""
        from ..formats import build_format, format_key  # noqa: PLC0415

        if name == "csr":
            if params:
                raise InvalidValue(f"the csr format takes no parameters, got {sorted(params)}")
            return self._csr_T() if transposed else self._csr()
        key = format_key(name, transposed, params)
        if key not in self._reps:
            base = self._csr_T() if transposed else self._csr()
            self._reps[key] = build_format(name, base, **params)
        return self._reps[key]

    def _keys(self) -> tuple[Any, Any]:
        """Row-major keys and values of the entries (masks and write-back use them)."""
        if self._keys_cache is None:
            from ..formats.csr.convert import csr_keys  # noqa: PLC0415

            csr = self._csr()
            self._keys_cache = (csr_keys(csr), csr.full_values())
        return self._keys_cache

    # ------------------------------------------------------------------ graph properties
    def _prop(self, key: str, compute: Any) -> Any:
        if key not in self._props:
            self._props[key] = compute()
        return self._props[key]

    def out_degree(self) -> Vector:
        """Stored entries per row (INT64; rows with none have no entry), computed once and
        cached until the matrix changes (LAGraph's cached ``out_degree``)."""
        from ..ops import properties  # noqa: PLC0415
        from .vector import Vector  # noqa: PLC0415

        data = self._prop("out_degree", lambda: properties.out_degree(self._csr()))
        return Vector._from_data(data, self.device, f"{self.name}.out_degree")

    def in_degree(self) -> Vector:
        """Stored entries per column (INT64; columns with none have no entry), cached like
        :meth:`out_degree`. Reads the cached transpose when there is one."""
        from ..ops import properties  # noqa: PLC0415
        from .vector import Vector  # noqa: PLC0415

        data = self._prop("in_degree", lambda: properties.in_degree(
            self._csr(), self._reps.get("csr_T")))
        return Vector._from_data(data, self.device, f"{self.name}.in_degree")

    def is_symmetric(self, *, structure: bool = True) -> bool:
        """Whether A equals Aᵀ: the pattern only (``structure=True``, LAGraph's
        ``is_symmetric_structure``) or the values too. Cached until the matrix changes; the
        transpose it builds is the one ``A.T`` and pull steps read."""
        from ..ops import properties  # noqa: PLC0415

        return self._prop(f"symmetric_{structure}", lambda: properties.is_symmetric(
            self._csr(), self._csr_T(), structure))

    @property
    def format(self) -> str:
        """The primary format."""
        return self._primary

    @property
    def formats(self) -> list[str]:
        """Names of the cached representations (``csr_T`` is CSR of Aᵀ)."""
        return list(self._reps)

    def to_format(self, name: str, **params: Any) -> Matrix:
        """Build (or reuse) representation ``name`` and make it the primary one; returns self.

        ``A.to_format("coo")``; later formats take parameters, e.g.
        ``A.to_format("sellcs", C=32, sigma=n)``. ``A.to_format("auto")`` picks the format
        and its parameters from cheap statistics of A (gblas.formats.auto: BVSS on a CUDA
        device where its slices hold several edges, else CSR); ``A.format_info("auto")``
        says what it measured and why.
        """
        from ..formats import format_key  # noqa: PLC0415

        if name == "auto":
            from ..formats import auto  # noqa: PLC0415

            auto.check_no_params(params)
            name, params, why = auto.choose(self._csr(), self.device)
            self._props["format_auto"] = why
        self._rep(name, **params)
        self._primary = format_key(name, False, params)
        self._primary_params = dict(params)
        return self

    def format_info(self, name: str | None = None, **params: Any) -> dict[str, Any]:
        """Statistics of representation ``name`` (default: the primary format with the
        parameters given to :meth:`to_format`), built and cached if it is not yet: ``format``,
        ``nnz``, ``nbytes``, ``bytes_per_edge`` for every format, and the format's own keys
        (Sell-C-σ/SlimSell: ``C``, ``sigma``, ``chunks``, ``cells``, ``padding``...; BVSS:
        ``slices``, ``compression_ratio``, ``reorder``...; docs/api.md lists them). The
        primary format does not change. ``A.format_info("bvss", reorder="rcm")``.
        ``A.format_info("auto")``: the statistics ``to_format("auto")`` decides on, under
        ``auto`` (``compression``, ``top1_share``, ``threshold``, ``chosen``, ``params``,
        ``reason``), with the chosen format's own statistics."""
        if name == "auto":
            from ..formats import auto  # noqa: PLC0415

            auto.check_no_params(params)
            why = self._prop("format_auto", lambda: auto.choose(self._csr(), self.device)[2])
            info = self.format_info(why["chosen"], **why["params"])
            info["auto"] = dict(why)
            return info
        if name is None:
            name = self._primary.split("(")[0]
            params = {**self._primary_params, **params}
        info = dict(self._rep(name, **params).stats())
        info["device"] = self.device
        return info

    @property
    def is_iso(self) -> bool:
        """All stored values are equal and stored once."""
        return self._csr().is_iso

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_coo(cls, rows: Any, columns: Any, values: Any = 1.0, dtype: Any = None, *,
                 nrows: int | None = None, ncols: int | None = None,
                 dup_op: BinaryOp | Monoid | None = None, name: str | None = None,
                 device: str | None = None) -> Matrix:
        """Build from coordinates; a scalar ``values`` makes an iso-valued matrix."""
        dev = normalize_device(device)
        csr = ops.build.build_matrix_csr(rows, columns, values, dtype, nrows, ncols, dup_op)
        return cls._from_csr(csr.to(dev) if dev != "cpu" else csr, dev, name)

    @classmethod
    def from_csr(cls, indptr: Any, col_indices: Any, values: Any = 1.0, dtype: Any = None, *,
                 nrows: int | None = None, ncols: int | None = None, name: str | None = None,
                 device: str | None = None) -> Matrix:
        """Build from CSR arrays (column indices need not be sorted; no duplicates)."""
        rows, cols, nrows = ops.build.csr_arrays_to_coo(indptr, col_indices, nrows)
        return cls.from_coo(rows, cols, values, dtype, nrows=nrows, ncols=ncols, name=name,
                            device=device)

    @classmethod
    def from_dense(cls, values: Any, missing_value: Any = None, *, dtype: Any = None,
                   name: str | None = None, device: str | None = None) -> Matrix:
        arr = np.asarray(values.get() if hasattr(values, "get") else values)
        if arr.ndim != 2:
            raise DimensionMismatch(f"from_dense needs a 2-D array, got shape {arr.shape}")
        dt = lookup_dtype(dtype if dtype is not None else arr.dtype)
        arr = arr.astype(dt.np_type)
        present = np.ones(arr.shape, bool) if missing_value is None else arr != missing_value
        r, c = np.nonzero(present)
        return cls.from_coo(r, c, arr[r, c], dt, nrows=arr.shape[0], ncols=arr.shape[1],
                            name=name, device=device)

    @classmethod
    def from_csc(cls, indptr: Any, row_indices: Any, values: Any = 1.0, dtype: Any = None, *,
                 nrows: int | None = None, ncols: int | None = None, name: str | None = None,
                 device: str | None = None) -> Matrix:
        """Build from CSC arrays (row indices need not be sorted; no duplicates)."""
        T = cls.from_csr(indptr, row_indices, values, dtype, nrows=ncols, ncols=nrows,  # noqa: N806
                         device=device)
        return T.T.new(name=name)

    @classmethod
    def from_scalar(cls, value: Any, nrows: int, ncols: int, dtype: Any = None, *,
                    name: str | None = None, device: str | None = None) -> Matrix:
        """Every element present and equal to ``value`` (an iso matrix)."""
        idx = np.arange(int(nrows) * int(ncols), dtype=np.int64)
        ncols_ = max(int(ncols), 1)
        return cls.from_coo(idx // ncols_, idx % ncols_, value, dtype, nrows=nrows, ncols=ncols,
                            name=name, device=device)

    @classmethod
    def from_dicts(cls, nested_dicts: Any, dtype: Any = None, *, order: str = "rowwise",
                   nrows: int | None = None, ncols: int | None = None, name: str | None = None,
                   device: str | None = None) -> Matrix:
        """From ``{row: {column: value}}`` (``order="columnwise"``: ``{column: {row: ...}}``)."""
        if order not in ("rowwise", "columnwise"):
            raise InvalidValue(f"order must be 'rowwise' or 'columnwise', got {order!r}")
        outer, inner, vals = [], [], []
        for i, row in nested_dicts.items():
            for j, x in row.items():
                outer.append(i)
                inner.append(j)
                vals.append(x)
        r, c = (outer, inner) if order == "rowwise" else (inner, outer)
        return cls.from_coo(np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64),
                            vals, dtype, nrows=nrows, ncols=ncols, name=name, device=device)

    @classmethod
    def from_edgelist(cls, edgelist: Any, values: Any = None, dtype: Any = None, *,
                      nrows: int | None = None, ncols: int | None = None, dup_op: Any = None,
                      name: str | None = None, device: str | None = None) -> Matrix:
        """From an (n, 2) array of (row, column) pairs and values (None: iso 1.0)."""
        edges = np.asarray(edgelist)
        if edges.ndim != 2 or edges.shape[1] != 2:
            raise DimensionMismatch(f"edgelist must have shape (n, 2), got {edges.shape}")
        return cls.from_coo(edges[:, 0], edges[:, 1], 1.0 if values is None else values, dtype,
                            nrows=nrows, ncols=ncols, dup_op=dup_op, name=name, device=device)

    @classmethod
    def from_scipy_sparse(cls, S: Any, *, dtype: Any = None, dup_op: Any = None,  # noqa: N803
                          name: str | None = None, device: str | None = None) -> Matrix:
        """From any SciPy sparse matrix or array (duplicates need ``dup_op``). A CSR or CSC
        matrix in SciPy's canonical form (sorted, no duplicates) is copied as it is, straight
        to ``device`` (no sort; on a GPU its int32 column ids are uploaded as they are)."""
        dev = normalize_device(device)
        csr = ops.build.csr_from_scipy(S, dtype, dev)
        if csr is not None:
            return cls._from_csr(csr, dev, name)
        coo = S.tocoo()
        return cls.from_coo(coo.row, coo.col, coo.data, dtype, nrows=coo.shape[0],
                            ncols=coo.shape[1], dup_op=dup_op, name=name, device=device)

    @classmethod
    def from_networkx(cls, G: Any, *, nodelist: Any = None, dtype: Any = None,  # noqa: N803
                      weight: str | None = "weight", name: str | None = None,
                      device: str | None = None) -> Matrix:
        """Adjacency matrix of a NetworkX graph (``weight=None`` for a structure-only bool)."""
        import networkx as nx  # noqa: PLC0415

        # csr first: NetworkX's coo export lists an undirected self-loop twice
        S = nx.to_scipy_sparse_array(G, nodelist=nodelist, weight=weight, format="csr",
                                     dtype=None if weight else bool).tocoo()
        if weight is None:
            return cls.from_coo(S.row, S.col, True, dtype or bool, nrows=S.shape[0],
                                ncols=S.shape[1], name=name, device=device)
        return cls.from_scipy_sparse(S, dtype=dtype, name=name, device=device)

    def build(self, rows: Any, columns: Any, values: Any, *, dup_op: Any = None,
              clear: bool = False) -> None:
        from ..exceptions import OutputNotEmpty  # noqa: PLC0415
        if self.nvals and not clear:
            raise OutputNotEmpty(f"{self.name} has {self.nvals} values; pass clear=True")
        csr = ops.build.build_matrix_csr(rows, columns, values, self.dtype, self.nrows,
                                         self.ncols, dup_op)
        self._set(csr.to(self.device) if self.device != "cpu" else csr)

    # ------------------------------------------------------------------ properties
    @property
    def nrows(self) -> int:
        return next(iter(self._reps.values())).nrows

    @property
    def ncols(self) -> int:
        return next(iter(self._reps.values())).ncols

    @property
    def nvals(self) -> int:
        return self._csr().nnz

    @property
    def dtype(self) -> DataType:
        return next(iter(self._reps.values())).dtype

    @property
    def T(self) -> TransposedMatrix:  # noqa: N802
        """The transpose, as a view (``A.T.new()`` materialises it); one view object per
        matrix (it holds nothing but the matrix), so a loop of ``A.T.mxv(...)`` makes none."""
        view = self.__dict__.get("_t_view")
        if view is None:
            view = self.__dict__["_t_view"] = TransposedMatrix(self)
        return view

    @property
    def _data(self) -> CSR:
        return self._csr()

    # ------------------------------------------------------------------ elements
    def __setitem__(self, index: Any, value: Any) -> None:
        self()[index].update(value)

    def __delitem__(self, index: Any) -> None:
        if not (isinstance(index, tuple) and len(index) == 2
                and all(is_scalar_index(i) for i in index)):
            raise InvalidValue("del A[i, j] takes two integer indices")
        ops.assign.delete_element(self, (normalize_index(index[0], self.nrows, "row"),
                                         normalize_index(index[1], self.ncols, "column")))

    def _write(self, res: Result, mask: Any, accum: Any, replace: bool) -> None:
        self._set(ops.writeback.writeback_matrix(self._csr(), res.data, mask, accum, replace,
                                                 res.mask_applied))

    # ------------------------------------------------------------------ whole-object
    def dup(self, dtype: Any = None, *, clear: bool = False, mask: Any = None,
            name: str | None = None) -> Matrix:
        """A copy (cast to ``dtype``); ``clear=True``: empty, same shape; ``mask``: only the
        entries the mask allows."""
        if clear or mask is not None:
            out = Matrix(self.dtype if dtype is None else dtype, self.nrows, self.ncols,
                         name=name, device=self.device)
            if not clear:
                out(mask) << self
            return out
        csr = self._csr()
        copy = CSR(csr.nrows, csr.ncols, csr.indptr.copy(), csr.indices.copy(),
                   None if csr.values is None else csr.values.copy(), csr.dtype, csr.iso)
        if dtype is not None:
            copy = copy.astype(lookup_dtype(dtype))
        return Matrix._from_csr(copy, self.device, name)

    def clear(self) -> None:
        xp = get_array_module(self.device)
        self._set(CSR(self.nrows, self.ncols, xp.zeros(self.nrows + 1, dtype=np.int64),
                      xp.empty(0, dtype=np.int64), xp.empty(0, dtype=self.dtype.np_type),
                      self.dtype))

    def resize(self, nrows: int, ncols: int) -> None:
        """Grow or shrink; entries outside the new shape are dropped."""
        if int(nrows) < 0 or int(ncols) < 0:
            raise InvalidValue(f"shape must be non-negative, got ({nrows}, {ncols})")
        from ..formats.csr.convert import csr_from_keys  # noqa: PLC0415

        csr = self._csr()
        r, c, v = csr.row_ids(), csr.indices, csr.full_values()
        keep = (r < nrows) & (c < ncols)
        keys = r[keep] * max(int(ncols), 1) + c[keep]
        self._set(csr_from_keys(int(nrows), int(ncols), keys, v[keep], self.dtype))

    def to(self, device: str) -> Matrix:
        """A copy on ``device``; self if already there."""
        dev = normalize_device(device)
        if dev == self.device:
            return self
        return Matrix._from_csr(self._csr().to(dev), dev, self.name)

    def __repr__(self) -> str:
        head = (f'"{self.name}" nvals={self.nvals} nrows={self.nrows} ncols={self.ncols} '
                f"dtype={self.dtype} format={self.format} device={self.device}")
        lines = [f"gblas.Matrix({head})"]
        if self.nvals:
            r, c, v = self.to_coo()
            for i, j, x in zip(r[:10].tolist(), c[:10].tolist(), v[:10].tolist()):
                lines.append(f"  ({i}, {j}) {x}")
            if self.nvals > 10:
                lines.append(f"  ... {self.nvals - 10} more")
        return "\n".join(lines)


class TransposedMatrix(MatrixLike):
    """``A.T``: reads A through its cached transpose; no copy until ``.new()``."""

    def __init__(self, matrix: Matrix) -> None:
        self._matrix = matrix

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"{self._matrix.name}.T"

    @property
    def device(self) -> str:
        return self._matrix.device

    @property
    def nrows(self) -> int:
        return self._matrix.ncols

    @property
    def ncols(self) -> int:
        return self._matrix.nrows

    @property
    def nvals(self) -> int:
        return self._matrix.nvals

    @property
    def dtype(self) -> DataType:
        return self._matrix.dtype

    @property
    def T(self) -> Matrix:  # noqa: N802
        return self._matrix

    @property
    def _last_direction(self) -> dict[bool, str]:
        return self._matrix._last_direction

    def out_degree(self) -> Vector:
        """Out-degree of Aᵀ: A's cached in-degree."""
        return self._matrix.in_degree()

    def in_degree(self) -> Vector:
        """In-degree of Aᵀ: A's cached out-degree."""
        return self._matrix.out_degree()

    def is_symmetric(self, *, structure: bool = True) -> bool:
        return self._matrix.is_symmetric(structure=structure)

    def _csr(self) -> CSR:
        return self._matrix._csr_T()

    def _csr_T(self) -> CSR:  # noqa: N802
        return self._matrix._csr()

    def _rep(self, name: str, transposed: bool = False, **params: Any) -> Any:
        return self._matrix._rep(name, not transposed, **params)

    @property
    def _data(self) -> CSR:
        return self._csr()

    def _as_expression(self) -> Expression:
        csr = self._csr()
        return Expression("transpose", 2, self.shape, self.dtype, self.device,
                          lambda mask, desc: Result(csr), (self,))

    def new(self, dtype: Any = None, *, mask: Any = None, name: str | None = None) -> Matrix:
        return self._as_expression().new(dtype, mask=mask, name=name)

    def dup(self, dtype: Any = None, *, name: str | None = None) -> Matrix:
        return self.new(dtype, name=name)

    @property
    def S(self) -> Any:  # noqa: N802
        raise InvalidValue("a mask cannot be a transposed view; materialise it: A.T.new().S")

    V = S

    def __repr__(self) -> str:
        return f"gblas.TransposedMatrix of {self._matrix!r}"
