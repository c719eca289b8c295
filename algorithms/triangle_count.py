"""Triangle counting with a masked dot-product product of the lower triangle.

Sources: M. Wolf, M. Deveci, J. Berry, S. Hammond, S. Rajamanickam, "Fast linear algebra-based
triangle counting with KokkosKernels", HPEC'17 (the "Sandia" L·L method); A. Azad, A. Buluç,
J. Gilbert, "Parallel triangle counting and enumeration using matrix algebra", IPDPSW'15;
LAGraph's ``LAGr_TriangleCount`` (methods ``Sandia_LL`` / ``Sandia_LUT``). With
``L = tril(A, -1)`` (the strictly lower triangle: self-loops dropped, every undirected edge
once),

    C⟨L⟩ = L +.pair Lᵀ        C[i, j] = |{k < j : (i, k), (j, k) ∈ E}|  for j < i
    triangles = Σ C

counts every triangle k < j < i exactly once, at C[i, j]. The mask makes the product a set
of dot products computed only at L's entries (rows of L against rows of L, as in
``Sandia_LUT``'s dot-product form), so no part of L·Lᵀ outside L's pattern is formed.
"""

from __future__ import annotations

from gblas import BOOL, INT64, Matrix, binary, monoid, select, semiring, unary

from .bfs import check_graph


def triangle_count(A: Matrix, *, symmetrize: bool = True) -> int:  # noqa: N803
    """Number of triangles of the undirected simple graph ``A``.

    Values of ``A`` are ignored (a stored zero is an edge) and self-loops are ignored.
    ``A`` should be symmetric; a directed ``A`` is read as undirected (the pattern of
    A ∪ Aᵀ) unless ``symmetrize=False``, which trusts A to be symmetric and skips that
    step (then only A's lower triangle is read). A symmetric ``A`` (its structural symmetry
    is cached on the Matrix) is used as it is.
    """
    check_graph(A)
    n = A.nrows
    dev = A.device
    if symmetrize and not A.is_symmetric(structure=True):
        # tril(A ∪ Aᵀ, -1) = tril(A, -1) ∪ triu(A, 1)ᵀ
        lower = A.select(select.tril, -1).new().apply(unary.one[BOOL]).new()
        upper_t = A.select(select.triu, 1).new().T.new().apply(unary.one[BOOL]).new()
        L = lower.ewise_add(upper_t, binary.lor).new()  # noqa: N806
    else:
        L = A.select(select.tril, -1).new()  # noqa: N806
    if L.nvals == 0:
        return 0
    C = Matrix(INT64, n, n, device=dev)  # noqa: N806
    C(L.S) << L.mxm(L.T, semiring.plus_pair[INT64])
    total = C.reduce_scalar(monoid.plus).new().value
    return int(total or 0)


__all__ = ["triangle_count"]
