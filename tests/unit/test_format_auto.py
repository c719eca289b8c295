"""``A.to_format("auto")`` (gblas.formats.auto): the statistics it decides on, against
brute-force counts, the rule on each device, and the Matrix API around it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas import Matrix, generators
from gblas.exceptions import InvalidValue
from gblas.formats import auto


def _brute_compression(rows: np.ndarray, cols: np.ndarray) -> float:
    pairs = set(zip(rows.tolist(), (cols // 8).tolist(), strict=True))
    return len(rows) / (8.0 * len(pairs)) if pairs else 0.0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 70), st.integers(0, 2**31 - 1),
       st.floats(0.0, 1.0))
def test_slice_compression_matches_a_count(nrows: int, ncols: int, seed: int,
                                           density: float) -> None:
    rng = np.random.default_rng(seed)
    dense = rng.random((nrows, ncols)) < density
    rows, cols = np.nonzero(dense)
    A = Matrix.from_coo(rows, cols, True, nrows=nrows, ncols=ncols)  # noqa: N806
    r, c, _ = A.to_coo()
    assert auto.slice_compression(A._csr()) == pytest.approx(_brute_compression(r, c))


def _blocks(n: int, width: int) -> Matrix:
    """Row i holds the `width` columns of its own 8-aligned block (dense slices)."""
    r = np.repeat(np.arange(n), width)
    c = (r // 8) * 8 + np.tile(np.arange(width), n)
    return Matrix.from_coo(r, c, True, nrows=n, ncols=n)


def test_rule_by_device_and_shape() -> None:
    dense, sparse = _blocks(512, 8)._csr(), generators.kronecker(9, seed=1)._csr()
    assert auto.slice_compression(dense) == 1.0
    assert auto.slice_compression(sparse) < auto.BVSS_COMPRESSION
    name, params, why = auto.choose(dense, "cuda:0")
    assert (name, params) == ("bvss", {"reorder": "none"})
    assert why["chosen"] == "bvss" and "8.0 edges" in why["reason"]
    assert auto.choose(sparse, "cuda:0")[:2] == ("csr", {})
    assert auto.choose(dense, "cpu")[:2] == ("csr", {})  # the CPU reads CSR
    wide = Matrix.from_coo([0, 1], [3, 9], True, nrows=2, ncols=16)._csr()
    name, _, why = auto.choose(wide, "cuda:0")
    assert name == "csr" and why["compression"] is None and "square" in why["reason"]
    empty = Matrix(bool, 5, 5)._csr()
    assert auto.slice_compression(empty) == 0.0 and auto.top_share(empty) == 0.0
    assert auto.choose(empty, "cuda:0")[0] == "csr"


def test_top_share_of_a_star() -> None:
    n = 300
    star = Matrix.from_coo(np.zeros(n - 1, dtype=np.int64), np.arange(1, n), True,
                           nrows=n, ncols=n)
    assert auto.top_share(star._csr()) == 1.0  # the hub row holds every entry
    assert auto.top_share(_blocks(400, 4)._csr()) == pytest.approx(4 * 4 / 1600)


def test_matrix_to_format_auto() -> None:
    A = _blocks(64, 8)  # noqa: N806
    assert A.to_format("auto") is A and A.format == "csr"  # on the CPU
    info = A.format_info("auto")
    assert info["format"] == "csr" and info["auto"]["chosen"] == "csr"
    assert info["auto"]["compression"] == 1.0
    A.to_format("coo")
    with pytest.raises(InvalidValue, match="takes no parameters"):
        A.to_format("auto", reorder="rcm")
    assert A.format == "coo"  # a failed call leaves the format as it was
    with pytest.raises(InvalidValue, match="takes no parameters"):
        A.format_info("auto", tau=64)
    ref = A.dup()
    A.to_format("auto")
    assert A.isequal(ref) and A.format == "csr"
    A[0, 9] = True  # a change drops the cached statistics with the other properties
    assert A.format_info("auto")["auto"]["compression"] < 1.0
    assert gb.algorithms.bfs(A, 0).nvals == 8 + 8
