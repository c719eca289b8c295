"""validate_bfs (Graph500 checks) accepts correct BFS results and rejects wrong ones.

The wrong results are built by hand from SciPy's levels, so these tests do not depend on
bfs being right.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import assume, given
from hypothesis import strategies as st

from gblas import BOOL, INT64, Matrix, Vector, generators
from gblas.algorithms import BFSValidationError, validate_bfs
from gblas.exceptions import InvalidValue


def vec(d: dict[int, int], n: int) -> Vector:
    idx = np.array(sorted(d), dtype=np.int64)
    vals = np.array([d[i] for i in sorted(d)], dtype=np.int64)
    return Vector.from_coo(idx, vals, INT64, size=n)


def undirected(n: int, edges) -> Matrix:
    r = [u for u, v in edges] + [v for u, v in edges]
    c = [v for u, v in edges] + [u for u, v in edges]
    return Matrix.from_coo(np.array(r, dtype=np.int64), np.array(c, dtype=np.int64), True,
                           BOOL, nrows=n, ncols=n)


# A small graph with two components:
#   0 - 1 - 3 - 5      (0-2, 2-3, 1-2 too: 1 and 2 are both on level 1 and adjacent)
#    \ /  /
#     2 -+             6 - 7 (unreachable from 0), 8 isolated
EDGES = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (3, 5), (3, 4), (6, 7)]
N = 9
LEVELS = {0: 0, 1: 1, 2: 1, 3: 2, 4: 3, 5: 3}
PARENTS = {0: 0, 1: 0, 2: 0, 3: 1, 4: 3, 5: 3}


@pytest.fixture
def A() -> Matrix:
    return undirected(N, EDGES)


def rejects(A, source, levels, parents=None, match=None):
    with pytest.raises(BFSValidationError, match=match):
        validate_bfs(A, source, vec(levels, A.nrows),
                     None if parents is None else vec(parents, A.nrows))


# ---------------------------------------------------------------- accepted
def test_accepts_correct_result(A):
    assert validate_bfs(A, 0, vec(LEVELS, N)) is True
    assert validate_bfs(A, 0, vec(LEVELS, N), vec(PARENTS, N)) is True


def test_accepts_any_valid_parent(A):
    # 3 may hang under 1 or 2: both are neighbours on level 1
    assert validate_bfs(A, 0, vec(LEVELS, N), vec({**PARENTS, 3: 2}, N)) is True


def test_accepts_other_component_and_isolated_source(A):
    assert validate_bfs(A, 6, vec({6: 0, 7: 1}, N), vec({6: 6, 7: 6}, N)) is True
    assert validate_bfs(A, 8, vec({8: 0}, N)) is True
    assert validate_bfs(A, 8, vec({8: 0}, N), vec({8: 8}, N)) is True


def test_error_is_an_invalid_value():
    assert issubclass(BFSValidationError, InvalidValue)


def test_accepts_edgeless_graph_without_parents():
    assert validate_bfs(Matrix(BOOL, 1, 1), 0, vec({0: 0}, 1)) is True
    assert validate_bfs(Matrix(BOOL, 4, 4), 2, vec({2: 0}, 4)) is True


@pytest.mark.parametrize("n,source", [(1, 0), (4, 2)])
def test_accepts_edgeless_graph_with_parents(n, source):
    """The source alone (its own parent) is a valid BFS tree of a graph without edges."""
    A = Matrix(BOOL, n, n)
    assert validate_bfs(A, source, vec({source: 0}, n), vec({source: source}, n)) is True


# ---------------------------------------------------------------- rejected
@pytest.mark.parametrize("root_level", [1, 2, 5])
def test_wrong_root_level(A, root_level):
    rejects(A, 0, {**LEVELS, 0: root_level}, match="root")
    rejects(A, 0, {**LEVELS, 0: root_level}, PARENTS)


def test_root_missing(A):
    lv = {v: d for v, d in LEVELS.items() if v != 0}
    rejects(A, 0, lv)


def test_levels_of_another_source(A):
    """Correct levels of source 0 do not validate as a BFS from 1."""
    rejects(A, 1, LEVELS)


@pytest.mark.parametrize("v", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("delta", [-1, 1, 2])
def test_level_off_by_one(A, v, delta):
    rejects(A, 0, {**LEVELS, v: LEVELS[v] + delta})
    rejects(A, 0, {**LEVELS, v: LEVELS[v] + delta}, PARENTS)


def test_all_levels_shifted(A):
    rejects(A, 0, {v: d + 1 for v, d in LEVELS.items()})


@pytest.mark.parametrize("v", [1, 2, 3, 4, 5])
def test_missing_reachable_vertex(A, v):
    lv = {u: d for u, d in LEVELS.items() if u != v}
    rejects(A, 0, lv)
    pa = {u: p for u, p in PARENTS.items() if u != v}
    rejects(A, 0, lv, pa)


@pytest.mark.parametrize("v,level", [(6, 1), (7, 2), (8, 1), (6, 4), (7, 0), (8, 0)])
def test_extra_unreachable_vertex(A, v, level):
    rejects(A, 0, {**LEVELS, v: level})


def test_extra_unreachable_vertex_with_parent(A):
    # 7 is given level 2 and parent 6 (a real edge) but 6 itself is not reached
    rejects(A, 0, {**LEVELS, 7: 2}, {**PARENTS, 7: 6})
    # 6 and 7 both added, hanging under each other
    rejects(A, 0, {**LEVELS, 6: 3, 7: 4}, {**PARENTS, 6: 7, 7: 6})


def test_negative_level(A):
    rejects(A, 0, {**LEVELS, 8: -1})


@pytest.mark.parametrize("v,parent", [(4, 2), (5, 1), (3, 0), (4, 8), (1, 7)])
def test_parent_not_a_neighbour(A, v, parent):
    """(2 and 1 are one level above 4/5 resp., and 0 two levels above 3: no edge.)"""
    rejects(A, 0, LEVELS, {**PARENTS, v: parent}, match="parent")


@pytest.mark.parametrize("v,parent", [(2, 1), (1, 2), (3, 4), (3, 5), (1, 3), (2, 3)])
def test_parent_on_wrong_level(A, v, parent):
    """Each parent is a neighbour, but not on the level just above."""
    rejects(A, 0, LEVELS, {**PARENTS, v: parent}, match="level")


def test_parent_is_itself_or_out_of_range(A):
    rejects(A, 0, LEVELS, {**PARENTS, 3: 3})
    big = Vector.from_coo(np.array(sorted(PARENTS)), np.array(
        [PARENTS[v] if v != 4 else 99 for v in sorted(PARENTS)]), INT64, size=N)
    with pytest.raises(BFSValidationError):
        validate_bfs(A, 0, vec(LEVELS, N), big)
    neg = vec({**PARENTS, 5: -1}, N)
    with pytest.raises(BFSValidationError):
        validate_bfs(A, 0, vec(LEVELS, N), neg)


def test_root_parent_wrong(A):
    rejects(A, 0, LEVELS, {**PARENTS, 0: 1}, match="root")


def test_parents_and_levels_cover_different_vertices(A):
    rejects(A, 0, LEVELS, {u: p for u, p in PARENTS.items() if u != 5})
    rejects(A, 0, LEVELS, {**PARENTS, 8: 8})


def test_directed_graph_uses_out_edges():
    A = Matrix.from_coo([0, 1, 2], [1, 2, 3], True, BOOL, nrows=4, ncols=4)
    assert validate_bfs(A, 0, vec({0: 0, 1: 1, 2: 2, 3: 3}, 4),
                        vec({0: 0, 1: 0, 2: 1, 3: 2}, 4))
    assert validate_bfs(A, 2, vec({2: 0, 3: 1}, 4))
    # levels along in-edges are wrong on a directed graph
    rejects(A, 2, {2: 0, 1: 1, 0: 2})
    rejects(A, 2, {2: 0, 1: 1, 3: 1})
    # parent edge reversed: 3 -> 2 is an edge, 2 -> 3 is not
    B = Matrix.from_coo([0, 0, 1, 3], [1, 2, 3, 2], True, BOOL, nrows=4, ncols=4)
    lv = {0: 0, 1: 1, 2: 1, 3: 2}
    assert validate_bfs(B, 0, vec(lv, 4), vec({0: 0, 1: 0, 2: 0, 3: 1}, 4))
    rejects(B, 0, lv, {0: 0, 1: 0, 2: 0, 3: 2}, match="parent edge")


def test_grid_result_and_off_by_one():
    A = generators.grid2d(5, 5)
    rr, cc = np.divmod(np.arange(25), 5)
    lv = {v: int(rr[v] + cc[v]) for v in range(25)}
    assert validate_bfs(A, 0, vec(lv, 25))
    for v in range(1, 25):
        rejects(A, 0, {**lv, v: lv[v] + 1})


# ---------------------------------------------------------------- random graphs
@st.composite
def graph_with_levels(draw):
    n = draw(st.integers(2, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    directed = draw(st.booleans())
    p = draw(st.sampled_from([0.03, 0.08, 0.15, 0.4]))
    rng = np.random.default_rng(seed)
    mask = rng.random((n, n)) < p
    np.fill_diagonal(mask, False)
    if not directed:
        mask = mask | mask.T
    r, c = np.nonzero(mask)
    source = draw(st.integers(0, n - 1))
    S = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, n))
    d = csgraph.shortest_path(S, unweighted=True, directed=True, indices=source)
    lv = {int(v): int(d[v]) for v in np.flatnonzero(np.isfinite(d))}
    # a valid BFS tree: any in-neighbour one level up
    parents = {source: source}
    for v, level in lv.items():
        if v != source:
            cand = [int(u) for u in r[c == v] if lv.get(int(u)) == level - 1]
            parents[v] = draw(st.sampled_from(sorted(cand)))
    A = Matrix.from_coo(r, c, True, BOOL, nrows=n, ncols=n)
    return A, r, c, source, lv, parents


@given(graph_with_levels())
def test_random_correct_results_pass(g):
    A, _, _, source, lv, parents = g
    assume(A.nvals > 0)
    assert validate_bfs(A, source, vec(lv, A.nrows)) is True
    assert validate_bfs(A, source, vec(lv, A.nrows), vec(parents, A.nrows)) is True


@given(graph_with_levels(), st.data())
def test_random_single_level_change_is_rejected(g, data):
    A, _, _, source, lv, _ = g
    v = data.draw(st.integers(0, A.nrows - 1), label="vertex")
    new = data.draw(st.integers(-1, A.nrows + 1).filter(lambda x: x != lv.get(v, -1)),
                    label="new level (-1 = remove)")
    bad = dict(lv)
    if new == -1:
        bad.pop(v)
    else:
        bad[v] = new
    with pytest.raises(BFSValidationError):
        validate_bfs(A, source, vec(bad, A.nrows))


@given(graph_with_levels(), st.data())
def test_random_parent_change(g, data):
    """A changed parent is accepted iff it is an in-neighbour one level up."""
    A, r, c, source, lv, parents = g
    assume(len(lv) > 1)
    v = data.draw(st.sampled_from(sorted(set(lv) - {source})), label="vertex")
    w = data.draw(st.integers(0, A.nrows - 1), label="new parent")
    ok = bool(((r == w) & (c == v)).any()) and lv.get(w, -9) == lv[v] - 1
    pa = {**parents, v: w}
    if ok:
        assert validate_bfs(A, source, vec(lv, A.nrows), vec(pa, A.nrows)) is True
    else:
        with pytest.raises(BFSValidationError):
            validate_bfs(A, source, vec(lv, A.nrows), vec(pa, A.nrows))
