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

The largest component first: one BFS from a vertex of largest degree finds its component,
whose vertices get their final label (the smallest id the BFS reached); FastSV then runs
on the subgraph the other vertices induce only (``S[ids, ids]``), its labels mapped back.
A graph of one component (road networks, meshes) is then one BFS: FastSV takes
O(log diameter) iterations of O(n + m) each there (luxembourg_osm: 11), the BFS one pass.
The same idea as the largest-component skip of Afforest (Sutton, Ben-Nun, Barak, IPDPS
2018) and LAGraph's ``LG_CC_FastSV7``, which find the component by sampling; a BFS finds
it exactly.
"""

from __future__ import annotations

from gblas import BOOL, INT64, Matrix, Vector, binary, indexunary, monoid, select, semiring, unary

from .bfs import bfs, check_graph


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

    deg = S.out_degree()  # present where a vertex has an edge
    found = _largest_component(S, deg)
    if found is None:
        return _identity_labels(n, dev)  # no edge: every vertex alone
    done, first = found
    if getattr(S.device, "distributed", False) and done.nvals < n:
        # no extract on a DistMatrix: FastSV on all of S with the component's rows masked
        f = _identity_labels(n, dev)
        f(done.S) << first
        return _fastsv(S, f, done)
    # every vertex gets the component's label (one fill, no masked assign: one component,
    # road networks and meshes, is then done); the other vertices' labels are overwritten
    # below
    f = Vector(INT64, n, device=dev)
    f << first
    if done.nvals == n:
        return f
    if deg.nvals < n:  # an isolated vertex is its own component: its label is its id
        f(~deg.S) << f.apply(indexunary.rowindex, 0)
    # the other vertices with an edge: FastSV on the subgraph they induce (no edge leaves
    # it), its local labels mapped back through the ascending list of their ids (so the
    # smallest stays the smallest). kron:22: 1.8 M vertices outside the largest component,
    # all but ~1 % of them isolated
    rest = Vector(BOOL, n, device=dev)
    rest(~done.S) << deg.apply(unary.one[BOOL])
    if rest.nvals == 0:
        return f
    ids = rest.to_coo(values=False, device=dev)[0]  # on a GPU it stays there
    R = S[ids, ids].new()  # noqa: N806
    local = _fastsv(R, _identity_labels(R.nrows, dev))
    gid = Vector.from_dense(ids, dtype=INT64, device=dev)  # local id -> global id
    f[ids] << gid[local.to_coo(indices=False, device=dev)[1]].new()
    return f


def _identity_labels(n: int, dev: str) -> Vector:
    """f(i) = i, made where the graph lives (LAGraph: GrB_apply with GrB_ROWINDEX_INT64; a
    host arange uploaded to a GPU cost ~20 ms of host time at 4 M vertices)."""
    f = Vector(INT64, n, device=dev)
    f << 0
    f << f.apply(indexunary.rowindex, 0)
    return f


def _fastsv(S: Matrix, f: Vector, done: Vector | None = None) -> Vector:  # noqa: N803
    """FastSV on the symmetric pattern S from the labels f (in place): every vertex's label
    becomes the smallest id of its component (the loop of the module docstring). ``done``:
    vertices whose label is final already (a whole component); their rows are not
    computed."""
    dev = S.device
    gf = f.dup()  # grandparents
    dup = f.dup()  # grandparents of the previous iteration
    mngf = f.dup()  # min grandparent over the neighbours
    while True:
        if done is None:
            mngf(binary.min) << S.mxv(gf, semiring.min_second)
        else:
            mngf(~done.S, binary.min) << S.mxv(gf, semiring.min_second)
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


def _largest_component(S: Matrix, deg: Vector) -> tuple[Vector, int] | None:  # noqa: N803
    """The component of a vertex of largest degree (``deg``: S's out-degrees), found by one
    BFS over the symmetric ``S``: its vertices (a structural mask) and its label, the
    smallest id among them; None when S has no edge (every vertex is its own component)."""
    if deg.nvals == 0:
        return None
    top = deg.reduce(monoid.max).new().value
    hub = int(deg.select(select.valueeq, top).new().to_coo(values=False)[0][0])
    done = bfs(S, hub)
    first = done.apply(indexunary.rowindex, 0).new().reduce(monoid.min).new().value
    return done, first


__all__ = ["connected_components"]
