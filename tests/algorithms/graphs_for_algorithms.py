"""Graphs shared by the cross-format and cross-device algorithm tests: user-shaped inputs
(a SciPy matrix with values, a NetworkX graph, a directed graph with isolated vertices)
next to the generators' iso matrices."""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp

import gblas as gb
from gblas import Matrix


def weighted_scipy(n: int = 300, seed: int = 4) -> Matrix:
    """A symmetric SciPy matrix with positive float weights (not iso)."""
    S = sp.random(n, n, 8 / n, format="csr", random_state=seed,  # noqa: N806
                  data_rvs=lambda k: np.random.default_rng(seed).integers(1, 9, k) / 2.0)
    S = (S + S.T).tocsr()  # noqa: N806
    S.setdiag(0)
    S.eliminate_zeros()
    return gb.io.from_scipy_sparse(S)


def directed_with_isolated(n: int = 200, seed: int = 7) -> Matrix:
    """A directed graph whose last tenth of the vertices has no edge at all."""
    rng = np.random.default_rng(seed)
    m = 5 * n
    r = rng.integers(0, int(n * 0.9), m)
    c = rng.integers(0, int(n * 0.9), m)
    keep = r != c
    return Matrix.from_coo(r[keep], c[keep], True, nrows=n, ncols=n, dup_op=gb.binary.any)


def networkx_karate() -> Matrix:
    return Matrix.from_networkx(nx.karate_club_graph(), weight="weight")


def named_graphs() -> dict[str, Matrix]:
    return {
        "kron10": gb.generators.kronecker(10, seed=2),
        "urand9": gb.generators.urand(9, seed=3),
        "grid": gb.generators.grid2d(12, 9),
        "scipy_weighted": weighted_scipy(),
        "directed_isolated": directed_with_isolated(),
        "karate": networkx_karate(),
    }
