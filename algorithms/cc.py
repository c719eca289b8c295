"""Connected components with FastSV (a fast Shiloach-Vishkin in linear algebra).

Source: Y. Zhang, A. Azad, A. Buluç, "Parallel algorithms for finding connected components
using linear algebra", J. Parallel Distrib. Comput. 2020 / SIAM PP'20 (FastSV, Algorithm 3);
LAGraph's ``LAGr_ConnectedComponents`` (``LG_CC_FastSV5``). Every vertex keeps a parent
``f`` (initially itself) and a grandparent ``gf = f[f]``; one iteration is

    mngf = min(mngf, A min.2nd gf)      (min grandparent among the neighbours)
    f[f] = min(f[f], mngf)              (stochastic hooking: hook the parents)
    f    = min(f, mngf)                 (aggressive hooking)
    f    = min(f, gf)                   (shortcutting)
    gf   = f[f]

until ``gf`` stops changing. The scatter ``f[f] min= mngf`` has duplicate indices, which
GrB_assign leaves undefined (LAGraph uses a custom "reduce-assign" for it); here it is
the product ``mngf min.1st P`` with the parent matrix ``P[u, f[u]] = 1``, i.e. a min over
all u with the same parent, written with plain GraphBLAS operations. Labels only ever
decrease and stay inside a component, so at convergence every component is a star whose
root is its smallest vertex id.
"""

from __future__ import annotations

import numpy as np

from gblas import BOOL, INT64, Matrix, Vector, binary, semiring, unary

from .bfs import check_graph


def connected_components(A: Matrix) -> Vector:  # noqa: N803
    """Component label (INT64) of every vertex: the smallest vertex id in its component.

    ``A`` is read as an undirected graph: a directed ``A`` gives the weakly connected
    components (the pattern of A ∪ Aᵀ is used; values are ignored; self-loops are harmless).
    Every vertex gets a label; isolated vertices label themselves.
    """
    check_graph(A)
    n = A.nrows
    dev = A.device
    pattern = A.apply(unary.one[BOOL]).new()
    S = pattern.ewise_add(pattern.T, binary.lor).new()  # noqa: N806 - A ∪ Aᵀ

    ids = np.arange(n, dtype=np.int64)
    f = Vector.from_dense(ids, dtype=INT64, device=dev)  # parents
    gf = f.dup()  # grandparents
    dup = f.dup()  # grandparents of the previous iteration
    mngf = f.dup()  # min grandparent over the neighbours
    while True:
        # stochastic hooking: f[f[u]] = min(f[f[u]], mngf[u])
        mngf(accum=binary.min) << S.mxv(gf, semiring.min_second)
        _, parent = f.to_coo()
        P = Matrix.from_coo(ids, parent, True, BOOL, nrows=n, ncols=n, device=dev)  # noqa: N806
        f(accum=binary.min) << mngf.vxm(P, semiring.min_first)
        # aggressive hooking and shortcutting
        f(accum=binary.min) << mngf
        f(accum=binary.min) << gf
        # grandparents
        _, parent = f.to_coo()
        gf << f[parent]
        if gf.isequal(dup):
            break
        dup << gf
    return f


__all__ = ["connected_components"]
