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

until ``gf`` stops changing. The stochastic hooking ``f[f] min= mngf`` scatters with
duplicate indices (many vertices share a parent); GrB_assign leaves that undefined, and
SuiteSparse, which LAGraph relies on, folds the duplicates with the accumulator. gblas
does the same (``f(binary.min)[parents] << mngf``, a min over every vertex with that
parent). The parents are f's values, taken with ``f.to_coo(device=...)``: on a GPU they
stay on the device, and so do the scatter and the gather ``gf << f[parents]``. Labels
only ever decrease and stay inside a component, so at convergence every component is a
star whose root is its smallest vertex id.
"""

from __future__ import annotations

from gblas import BOOL, INT64, Matrix, Vector, binary, indexunary, semiring, unary

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
    if A.is_symmetric(structure=True):
        S = A  # noqa: N806 - min.2nd reads no value of S: the structure is enough
    else:
        pattern = A.apply(unary.one[BOOL]).new()
        S = pattern.ewise_add(pattern.T, binary.lor).new()  # noqa: N806 - A ∪ Aᵀ

    # parents: f(i) = i, made where A lives (LAGraph: GrB_apply with GrB_ROWINDEX_INT64; a
    # host arange uploaded to a GPU cost ~20 ms of host time at 4 M vertices)
    f = Vector(INT64, n, device=dev)
    f << 0
    f << f.apply(indexunary.rowindex, 0)
    gf = f.dup()  # grandparents
    dup = f.dup()  # grandparents of the previous iteration
    mngf = f.dup()  # min grandparent over the neighbours
    while True:
        mngf(binary.min) << S.mxv(gf, semiring.min_second)
        # stochastic hooking: f[f[u]] = min(f[f[u]], mngf[u]), duplicates folded with min
        parents = f.to_coo(indices=False, device=dev)[1]
        f(binary.min)[parents] << mngf
        # aggressive hooking and shortcutting
        f(binary.min) << mngf
        f(binary.min) << gf
        # grandparents
        parents = f.to_coo(indices=False, device=dev)[1]
        gf << f[parents]
        if gf.isequal(dup):
            break
        dup << gf
    return f


__all__ = ["connected_components"]
