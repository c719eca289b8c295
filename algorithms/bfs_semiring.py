"""BFS as repeated SpMV over the four semirings of SlimSell (Besta et al., IPDPS'17, §3).

Each family writes one BFS level as ``Aᵀ ⊕.⊗ x`` followed by a filter; all four give the
same levels (sel-max also gives parents, without the DP transform of the paper):

- boolean  (lor_land):   x' = (Aᵀ x) ∧ f, f = unvisited filter;
- real     (plus_times): x' = (Aᵀ x) ⊙ f, values count frontier in-neighbours (x is reset to
  1 each level), nonzero = reached;
- tropical (min_plus):   d' = min(d, Aᵀ ⊗ d), d = ∞ on unvisited vertices, until stable;
- sel-max  (max_second): x(v) = v + 1 on the frontier; (Aᵀ x)(i) = 1 + the largest
  frontier in-neighbour, i.e. a parent.

Every SpMV is masked with the rows still to settle (the filter, or the unreached vertices
for tropical), which changes no level and lets a format's kernel skip settled rows: on
Sell-C-σ / SlimSell this is SlimWork (whole settled chunks skipped). Aᵀ is kept in the
format A holds (``A.to_format("slimsell", C=8, sigma=...)``), so the same code runs on
CSR, Sell-C-σ and SlimSell.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gblas import BOOL, FP64, INT64, Matrix, Vector, binary, unary
from gblas.exceptions import InvalidValue
from gblas.semirings.families import BFS as FAMILIES

from .bfs import check_graph


def bfs_semiring(A: Matrix, source: int, family: str = "boolean", *,  # noqa: N803
                 return_parents: bool = False) -> Vector | tuple[Vector, Vector]:
    """Levels of a BFS from ``source`` computed with the ``family`` semiring."""
    src = check_graph(A, source)
    if family not in FAMILIES:
        raise InvalidValue(
            f"unknown BFS semiring family {family!r}; expected one of {', '.join(FAMILIES)}"
        )
    if return_parents and family != "selmax":
        raise InvalidValue("only the selmax family yields parents")
    run = {"boolean": _boolean, "real": _real, "tropical": _tropical, "selmax": _selmax}
    return run[family](A, src, return_parents) if family == "selmax" else run[family](A, src)


def _levels_start(n: int, src: int, dev: str) -> Vector:
    levels = Vector(INT64, n, device=dev)
    levels[src] << 0
    return levels


def _structure(A: Matrix, dtype: Any) -> Matrix:  # noqa: N803
    """Aᵀ with every stored entry 1 of ``dtype`` (BFS follows edges, whatever their values).

    Built from A's cached transpose: for an iso-valued A it shares its arrays (O(n)).
    It is given A's primary format and that format's parameters.
    """
    AT = A.T.apply(unary.one[dtype]).new()  # noqa: N806
    name = A.format.split("(")[0]
    if name != "csr":
        AT.to_format(name, **A._primary_params)
    return AT


def _boolean(A: Matrix, src: int) -> Vector:  # noqa: N803
    n, dev, AT = A.nrows, A.device, _structure(A, BOOL)  # noqa: N806
    levels = _levels_start(n, src, dev)
    f = Vector.from_dense(np.ones(n, dtype=bool), device=dev)  # filter: 1 = unvisited
    f[src] << False
    x = Vector(BOOL, n, device=dev)
    x[src] << True
    k = 1
    while True:
        t = AT.mxv(x, FAMILIES["boolean"]).new(mask=f.V)  # only unvisited vertices
        x = t.ewise_mult(f, binary.land).new().select("==", True).new()
        if x.nvals == 0:
            return levels
        levels(x.S) << k
        f(x.S) << False
        k += 1


def _real(A: Matrix, src: int) -> Vector:  # noqa: N803
    n, dev, AT = A.nrows, A.device, _structure(A, FP64)  # noqa: N806
    levels = _levels_start(n, src, dev)
    f = Vector.from_dense(np.ones(n, dtype=np.float64), device=dev)
    f[src] << 0.0
    x = Vector(FP64, n, device=dev)
    x[src] << 1.0
    k = 1
    while True:
        t = AT.mxv(x, FAMILIES["real"]).new(FP64, mask=f.V)
        x = t.ewise_mult(f, binary.times).new().select("!=", 0.0).new()
        if x.nvals == 0:
            return levels
        x = x.apply(unary.one).new()  # keep values bounded: only the structure matters
        levels(x.S) << k
        f(x.S) << 0.0
        k += 1


def _tropical(A: Matrix, src: int) -> Vector:  # noqa: N803
    n, dev = A.nrows, A.device
    d = Vector.from_dense(np.full(n, np.inf), device=dev)
    d[src] << 0.0
    OT = _structure(A, FP64)  # noqa: N806 - unit edge weights
    while True:
        unreached = d.select("==", np.inf).new()  # rows with ∞ left: the rest is settled
        relaxed = OT.mxv(d, FAMILIES["tropical"]).new(mask=unreached.S)
        new_d = d.ewise_add(relaxed, binary.min).new()
        if new_d.isequal(d):
            break
        d = new_d
    reached = d.select("<", np.inf).new()
    return reached.apply(unary.identity[INT64]).new(INT64)


def _selmax(A: Matrix, src: int, return_parents: bool) -> Any:  # noqa: N803
    n, dev, AT = A.nrows, A.device, _structure(A, INT64)  # noqa: N806
    levels = _levels_start(n, src, dev)
    parents = Vector(INT64, n, device=dev)
    parents[src] << src
    f = Vector.from_dense(np.ones(n, dtype=bool), device=dev)
    f[src] << False
    x = Vector(INT64, n, device=dev)
    x[src] << src + 1  # sel-max carries vertex id + 1 so that 0 means "none"
    k = 1
    while True:
        t = AT.mxv(x, FAMILIES["selmax"]).new(INT64, mask=f.V)  # only unvisited vertices
        t = t.select(">", 0).new()
        if t.nvals == 0:
            break
        parents(t.S) << t.apply(binary.minus, right=1)
        levels(t.S) << k
        f(t.S) << False
        idx, _ = t.to_coo()
        x = Vector.from_coo(idx, idx + 1, INT64, size=n, device=dev)
        k += 1
    return (levels, parents) if return_parents else levels
