"""gblas.io: Matrix Market, edge lists, .npz, SciPy/NetworkX wrappers, dispatch, real graphs."""

from __future__ import annotations

import gzip
import io
import re
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import gblas.io as gio
from gblas import Matrix, binary
from gblas.exceptions import InvalidValue

# n, m (stored directed edges), directed -- from /work/shared/graphs/README.md
GRAPHS = {
    "dimacs10_luxembourg_osm": (114599, 239332, False),
    "netrepo_road-usroads": (129164, 330870, False),
    "snap_com-DBLP": (317080, 2099732, False),
    "law_cnr-2000": (325557, 3128710, True),
    "snap_ego-Twitter_undirected": (81306, 2684592, False),
    "metis_copter2": (55476, 704476, False),
    "snap_cit-HepPh": (34546, 421534, True),
    "snap_email-Enron": (36692, 367662, False),
    "dimacs10_delaunay_n16": (65536, 393150, False),
    "snap_ego-Facebook": (4039, 176468, False),
}


def _coo(A: Matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return A.to_coo()


def _same(A: Matrix, B: Matrix) -> None:
    assert A.shape == B.shape
    assert A.dtype == B.dtype
    for x, y in zip(_coo(A), _coo(B), strict=True):
        np.testing.assert_array_equal(x, y)


def _random(n: int, m: int, dtype: object, seed: int = 0, symmetric: bool = False,
            ncols: int | None = None) -> Matrix:
    rng = np.random.default_rng(seed)
    nc = n if ncols is None else ncols
    r, c = rng.integers(0, n, m), rng.integers(0, nc, m)
    if dtype is bool:
        v: object = True
    elif np.dtype(dtype).kind == "f":
        v = rng.normal(size=m).astype(dtype) * 1e3
    else:
        v = rng.integers(0, 100, m).astype(dtype)
    if symmetric:
        keep = r >= c
        r, c = r[keep], c[keep]
        v = v if np.ndim(v) == 0 else v[keep]
        off = r != c
        r, c = np.concatenate([r, c[off]]), np.concatenate([c, r[off]])
        v = v if np.ndim(v) == 0 else np.concatenate([v, v[off]])
    return Matrix.from_coo(r, c, v, dtype, nrows=n, ncols=nc, dup_op=binary.first)


# ---------------------------------------------------------------------------- Matrix Market
@pytest.mark.parametrize("dtype, field", [(bool, "pattern"), (np.float64, "real"),
                                          (np.float32, "real"), (np.int64, "integer"),
                                          (np.uint8, "integer"), (np.int16, "integer")])
@pytest.mark.parametrize("symmetric", [False, True])
@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
def test_mm_round_trip(tmp_path: Path, dtype: object, field: str, symmetric: bool,
                       suffix: str) -> None:
    A = _random(40, 200, dtype, symmetric=symmetric)
    p = tmp_path / f"a{suffix}"
    gio.mmwrite(p, A, comment="made by a test\nsecond line")
    raw = gzip.open(p).read() if suffix.endswith(".gz") else p.read_bytes()
    head = raw.decode().splitlines()
    sym = "symmetric" if symmetric else "general"
    assert head[0] == f"%%MatrixMarket matrix coordinate {field} {sym}"
    assert head[1:3] == ["%made by a test", "%second line"]
    B = gio.mmread(p, dtype=dtype)
    _same(A, B)
    natural = {"pattern": "BOOL", "real": "FP64", "integer": "INT64"}[field]
    assert gio.mmread(p).dtype.name == natural
    if field == "pattern":
        assert B.is_iso
    assert B.isequal(gio.mmread(p, dtype=dtype), check_dtype=True)


def test_mm_write_options(tmp_path: Path) -> None:
    A = _random(10, 40, np.float64, symmetric=True)
    p = tmp_path / "g.mtx"
    gio.mmwrite(p, A, symmetric=False)
    assert p.read_text().splitlines()[0].endswith("real general")
    _same(A, gio.mmread(p))
    N = Matrix.from_coo([0], [1], [2.0], nrows=3, ncols=3)
    with pytest.raises(InvalidValue, match="not symmetric"):
        gio.mmwrite(p, N, symmetric=True)
    with pytest.raises(InvalidValue, match="integral"):
        gio.mmwrite(p, Matrix.from_coo([0], [1], [2.5], nrows=3, ncols=3), field="integer")
    gio.mmwrite(p, N, field="pattern")
    B = gio.mmread(p)
    assert B.dtype == bool and B.nvals == 1
    # exact float round trip, including awkward values
    vals = np.array([0.1, 1 / 3, 1e-300, -2.5e17, np.inf, 123456789.123456789])
    F = Matrix.from_coo(np.arange(6), np.arange(6), vals, nrows=6, ncols=6)
    gio.mmwrite(p, F, symmetric=False)
    np.testing.assert_array_equal(gio.mmread(p).to_coo()[2], vals)
    # skew-symmetric
    S = Matrix.from_coo([1, 0, 2, 0], [0, 1, 0, 2], [3, -3, 5, -5], nrows=3, ncols=3)
    gio.mmwrite(p, S, symmetric="skew-symmetric")
    assert "skew-symmetric" in p.read_text().splitlines()[0]
    _same(S, gio.mmread(p))


def test_mm_file_objects() -> None:
    A = _random(8, 20, np.int64)
    buf = io.BytesIO()
    gio.mmwrite(buf, A)
    _same(A, gio.mmread(io.BytesIO(buf.getvalue())))
    sbuf = io.StringIO()
    gio.mmwrite(sbuf, A)
    _same(A, gio.mmread(io.StringIO(sbuf.getvalue())))
    gz = io.BytesIO(gzip.compress(buf.getvalue()))
    _same(A, gio.mmread(gz))


def _mm(tmp_path: Path, text: str, name: str = "m.mtx") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_mm_symmetric_and_array(tmp_path: Path) -> None:
    p = _mm(tmp_path, "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n"
                      "1 1 1.5\n3 1 2\n3 2 -1\n")
    assert gio.mmread(p).to_dense(0).tolist() == [[1.5, 0, 2], [0, 0, -1], [2, -1, 0]]
    p = _mm(tmp_path, "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 1\n"
                      "2 1 5\n")
    assert gio.mmread(p).to_dense(0).tolist() == [[0, -5, 0], [5, 0, 0], [0, 0, 0]]
    p = _mm(tmp_path, "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n0\n")
    A = gio.mmread(p)
    assert A.nvals == 6  # array files store every value, zeros included
    assert A.to_dense().tolist() == [[1, 3, 5], [2, 4, 0]]
    p = _mm(tmp_path, "%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n")
    assert gio.mmread(p).to_dense().tolist() == [[1, 2], [2, 3]]
    p = _mm(tmp_path, "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n")
    assert gio.mmread(p).to_dense(0).tolist() == [[0, -1, -2], [1, 0, -3], [2, 3, 0]]
    # blank lines and comment lines inside the data are tolerated
    p = _mm(tmp_path, "%%MatrixMarket matrix coordinate pattern general\n\n2 2 2\n1 1\n\n"
                      "% late comment\n2 2\n\n")
    assert gio.mmread(p).nvals == 2
    # header words are case-insensitive
    p = _mm(tmp_path, "%%MatrixMarket MATRIX Coordinate Pattern General\n2 2 1\n1 2\n")
    assert gio.mmread(p).nvals == 1


def test_mm_duplicates(tmp_path: Path) -> None:
    p = _mm(tmp_path, "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n1 2\n"
                      "2 1\n")
    A = gio.mmread(p)
    assert A.nvals == 2 and A.is_iso
    p = _mm(tmp_path, "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 1.5\n"
                      "1 2 2\n2 1 1\n")
    assert gio.mmread(p).to_dense(0).tolist() == [[0, 3.5], [1, 0]]
    assert gio.mmread(p, dup_op=binary.max).to_dense(0).tolist() == [[0, 2], [1, 0]]


def test_mm_matches_scipy(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    for k, S in enumerate([sp.random(30, 50, density=0.1, random_state=1, format="coo"),
                           sp.random(40, 40, density=0.05, random_state=2, format="coo")]):
        S.data = np.round(S.data * 100 - 50, 3)
        for sym in ("general", "symmetric") if S.shape[0] == S.shape[1] else ("general",):
            M = S if sym == "general" else (S + S.T).tocoo()
            p = tmp_path / f"s{k}{sym}.mtx"
            scipy.io.mmwrite(str(p), M, symmetry=sym)
            B = gio.mmread(p).to_scipy_sparse()
            assert abs(B - M.tocsr()).max() == 0
    iS = sp.coo_matrix(rng.integers(-5, 5, (6, 7)))
    p = tmp_path / "i.mtx"
    scipy.io.mmwrite(str(p), iS, field="integer")
    A = gio.mmread(p)
    assert A.dtype == "INT64" and (A.to_scipy_sparse() != iS.tocsr()).nnz == 0


_BANNER = "%%MatrixMarket matrix coordinate real general\n"
_ERRORS = [
    ("%MatrixMarket matrix coordinate real general\n1 1 0\n", 1, "bad banner"),
    ("", 1, "file ends before the banner"),
    ("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "5 words"),
    ("%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "format 'sparse'"),
    ("%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1, "complex"),
    ("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1, "hermitian"),
    ("%%MatrixMarket matrix coordinate double-ish general\n1 1 0\n", 1, "field"),
    (_BANNER + "% comment\n", 3, "file ends before the size line"),
    (_BANNER + "% comment\n3 3\n", 3, "bad size line"),
    (_BANNER + "3 3 -1\n", 2, "bad size line"),
    (_BANNER + "3 3 2\n1 1 1.0\n2 x 3\n", 4, "'x' is not an integer"),
    (_BANNER + "3 3 2\n1 1 1.0\n2 2 abc\n", 4, "'abc' is not a number"),
    (_BANNER + "3 3 2\n1 1 1.0\n4 2 3\n", 4, "row index 4 is out of range 1..3"),
    (_BANNER + "3 3 2\n1 1 1.0\n2 0 3\n", 4, "column index 0 is out of range 1..3"),
    (_BANNER + "3 3 2\n1 1 1.0\n2 1.5 3\n", 4, "not an integer"),
    (_BANNER + "3 3 3\n1 1 1.0\n2 2 3\n", 4, "file ends after 2 entries"),
    (_BANNER + "3 3 1\n1 1 1.0\n2 2 3\n", 4, "than the 1 announced"),
    (_BANNER + "3 3 2\n1 1 1.0\n2 2\n", 4, "expected 3 values per line"),
    (_BANNER + "3 3 2\n1 1 1.0 7\n2 2\n", 3, "expected 3 values per line"),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n2 2 1\n", 4,
     "expected 2 values per line"),
    ("%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", 2, "must be square"),
    ("%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 0\n", 1, "pattern"),
    ("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", 3, "diagonal"),
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5, "file ends after 3"),
]


@pytest.mark.parametrize("text, line, what", _ERRORS)
def test_mm_malformed(tmp_path: Path, text: str, line: int, what: str) -> None:
    p = _mm(tmp_path, text, "bad.mtx")
    with pytest.raises(InvalidValue) as info:
        gio.mmread(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}:{line}:"), msg
    assert what in msg, msg


def test_mm_malformed_big_file_line_number(tmp_path: Path) -> None:
    n = 20000
    lines = [f"{i % 100 + 1} {i % 77 + 1}" for i in range(n)]
    lines[12345] = "5 101"
    p = _mm(tmp_path, "%%MatrixMarket matrix coordinate pattern general\n% x\n"
                      f"100 100 {n}\n" + "\n".join(lines) + "\n", "big.mtx.gz")
    p.write_bytes(gzip.compress(p.read_bytes()))
    with pytest.raises(InvalidValue, match=rf"big\.mtx\.gz:{12345 + 4}: column index 101"):
        gio.mmread(p)


def test_bad_compressed_file(tmp_path: Path) -> None:
    p = tmp_path / "x.mtx.gz"
    p.write_bytes(b"\x1f\x8b" + b"garbage" * 10)
    with pytest.raises(InvalidValue, match="decompress"):
        gio.mmread(p)


# ---------------------------------------------------------------------------- edge lists
def _el(tmp_path: Path, text: str, name: str = "g.txt") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_edgelist_snap(tmp_path: Path) -> None:
    p = _el(tmp_path, "# Directed graph: test\n# Nodes: 6 Edges: 4\n# FromNodeId\tToNodeId\n"
                      "0\t1\n1\t2\n2\t0\n3\t3\n")
    A = gio.read_edgelist(p)
    assert A.shape == (6, 6) and A.dtype == bool and A.is_iso  # n from the header
    r, c, _ = A.to_coo()
    assert list(zip(r.tolist(), c.tolist(), strict=True)) == [(0, 1), (1, 2), (2, 0), (3, 3)]
    U = gio.read_edgelist(p, directed=False)
    assert U.nvals == 7 and U.isequal(U.T.new())
    assert gio.read_edgelist(p, make_undirected=True).isequal(U)


def test_edgelist_one_based_rules(tmp_path: Path) -> None:
    p = _el(tmp_path, "1 2\n2 3\n")
    A = gio.read_edgelist(p)  # no 0 -> 1-based
    assert A.shape == (3, 3) and A.to_coo()[0].tolist() == [0, 1]
    assert gio.read_edgelist(p, one_based=False).shape == (4, 4)
    assert gio.read_edgelist(p, nodes=3).shape == (3, 3)  # max == n: 1-based
    B = gio.read_edgelist(p, nodes=5)  # max < n: 0-based
    assert B.shape == (5, 5) and B.to_coo()[0].tolist() == [1, 2]
    p0 = _el(tmp_path, "0 2\n2 3\n", "z.txt")
    assert gio.read_edgelist(p0).shape == (4, 4)
    with pytest.raises(InvalidValue, match=r"z\.txt:1: source index 0 is out of range 1\.\.3"):
        gio.read_edgelist(p0, one_based=True)
    with pytest.raises(InvalidValue, match=r"z\.txt:2: target index 3 is out of range 0\.\.2"):
        gio.read_edgelist(p0, nodes=3)
    # SNAP ids beyond the header's Nodes: the header is ignored
    ps = _el(tmp_path, "# Nodes: 2 Edges: 1\n0 9\n", "s.txt")
    assert gio.read_edgelist(ps).shape == (10, 10)


def test_edgelist_weighted_csv_comments(tmp_path: Path) -> None:
    p = _el(tmp_path, "% comment\nsrc is a comment? no\n", "h.csv")
    with pytest.raises(InvalidValue, match=r"h\.csv:2: token 'src' is not an integer"):
        gio.read(p)
    p = _el(tmp_path, "% comment\n0,1,0.5\n1,2,2.5\n# mid comment\n1,2,1.0\n\n", "w.csv")
    A = gio.read(p)
    assert A.dtype == "FP64" and A.shape == (3, 3)
    assert A.to_dense(0).tolist() == [[0, 0.5, 0], [0, 0, 3.5], [0, 0, 0]]  # dups summed
    assert gio.read(p, dedupe=True).to_dense(0)[1, 2] == 2.5  # first weight kept
    assert gio.read(p, weighted=False).dtype == bool
    assert gio.read(p, dtype=np.float32).dtype == "FP32"
    assert gio.read_edgelist(p, delimiter=",").isequal(A)
    with pytest.raises(InvalidValue, match="weighted=True"):
        gio.read_edgelist(_el(tmp_path, "0 1\n"), weighted=True)


@pytest.mark.parametrize("text, line, what", [
    ("0 1\n1 x\n", 2, "'x' is not an integer"),
    ("0 1\n1 2 3\n", 2, "expected 2 values per line"),
    ("0 1\n1\n", 2, "expected 2 values per line"),
    ("7\n", 1, "expected 'src dst"),
    ("# c\n0 1 1.0\n1 2 z\n", 3, "'z' is not a number"),
    ("0 1 1.0\n1.5 2 1\n", 2, "source index 1.5 is not an integer"),
    ("0 1\n5 2\n", 2, "source index 5 is out of range 0..3"),
])
def test_edgelist_malformed(tmp_path: Path, text: str, line: int, what: str) -> None:
    p = _el(tmp_path, text, "bad.el")
    with pytest.raises(InvalidValue) as info:
        gio.read_edgelist(p, nodes=4)
    msg = str(info.value)
    assert msg.startswith(f"{p}:{line}:"), msg
    assert what in msg, msg


@pytest.mark.parametrize("one_based", [False, True])
@pytest.mark.parametrize("name", ["e.el", "e.txt.gz", "e.csv", "e.tsv"])
def test_edgelist_round_trip(tmp_path: Path, one_based: bool, name: str) -> None:
    W = Matrix.from_coo([0, 1, 4, 4], [1, 2, 0, 4], [1.5, 2.0, -3.0, 0.25], nrows=7, ncols=7)
    P = Matrix.from_coo([0, 1, 4], [1, 2, 0], True, nrows=7, ncols=7)
    for M in (W, P):
        p = tmp_path / name
        gio.write_edgelist(p, M, one_based=one_based)
        _same(M, gio.read(p))  # the header restores n (isolated vertices 5, 6)
    gio.write_edgelist(p, W, weights=False, header=False, one_based=one_based)
    B = gio.read(p, one_based=one_based, nodes=7)
    assert B.dtype == bool and B.nvals == 4


def test_empty_edgelist(tmp_path: Path) -> None:
    A = gio.read_edgelist(_el(tmp_path, "# Nodes: 4 Edges: 0\n"))
    assert A.shape == (4, 4) and A.nvals == 0


# ---------------------------------------------------------------------------- npz
@pytest.mark.parametrize("dtype", [bool, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                   np.uint16, np.uint32, np.uint64, np.float32, np.float64])
def test_npz_round_trip(tmp_path: Path, dtype: object) -> None:
    A = _random(30, 100, dtype, ncols=20)
    p = tmp_path / "a.npz"
    gio.save_npz(p, A)
    B = gio.load_npz(p)
    assert B.isequal(A, check_dtype=True) and B.dtype == A.dtype and B.is_iso == A.is_iso
    iso = Matrix.from_coo([0, 2], [1, 1], 7, dtype, nrows=3, ncols=2)
    gio.write(p, iso)
    B = gio.read(p)
    assert B.is_iso and B.isequal(iso, check_dtype=True) and B.shape == (3, 2)


def test_npz_scipy_and_bad(tmp_path: Path) -> None:
    S = sp.random(6, 5, density=0.4, random_state=0, format="csr")
    p = tmp_path / "s.npz"
    sp.save_npz(p, S)
    assert abs(gio.load_npz(p).to_scipy_sparse() - S).max() == 0
    q = tmp_path / "o.npz"
    np.savez(q, x=np.arange(3))
    with pytest.raises(InvalidValue, match="not a gblas"):
        gio.load_npz(q)
    r = tmp_path / "junk.npz"
    r.write_bytes(b"junk")
    with pytest.raises(InvalidValue, match="junk.npz"):
        gio.load_npz(r)


# ---------------------------------------------------------------------------- SciPy / NetworkX
def test_scipy_networkx_wrappers() -> None:
    nx = pytest.importorskip("networkx")
    S = sp.csr_matrix(np.array([[0, 2.0, 0], [0, 0, 3.0], [1.0, 0, 0]]))
    A = gio.from_scipy_sparse(S)
    assert (gio.to_scipy_sparse(A, "csc") != S).nnz == 0
    assert gio.to_scipy_sparse(A, "coo").format == "coo"
    G = gio.to_networkx(A)
    assert isinstance(G, nx.DiGraph) and G[0][1]["weight"] == 2.0
    U = gio.from_scipy_sparse(S + S.T)
    H = gio.to_networkx(U, weight=None)
    assert type(H) is nx.Graph and H.number_of_edges() == 3 and H[0][1] == {}
    assert isinstance(gio.to_networkx(U, directed=True), nx.DiGraph)
    back = gio.from_networkx(G)
    assert back.isequal(A)
    P = gio.from_networkx(nx.path_graph(4), weight=None)
    assert P.dtype == bool and P.nvals == 6
    with pytest.raises(InvalidValue):
        gio.to_networkx(Matrix.from_coo([0], [1], 1.0, nrows=1, ncols=2))


def test_dispatch(tmp_path: Path) -> None:
    A = _random(10, 30, np.float64)
    for name in ("a.mtx", "a.mtx.gz", "a.mm", "a.npz", "a.el", "a.edges", "a.txt.bz2",
                 "a.csv", "a.tsv"):
        gio.write(tmp_path / name, A)
        _same(A, gio.read(tmp_path / name))
    for bad in ("a.foo", "a", "a.npz.gz"):
        with pytest.raises(InvalidValue, match="extension"):
            gio.read(tmp_path / bad)
        with pytest.raises(InvalidValue, match="extension"):
            gio.write(tmp_path / bad, A)


# ---------------------------------------------------------------------------- real graphs
def _graph_files(graphs_path: Path, small: bool) -> list[Path]:
    files = [graphs_path / f"{g}.mtx.gz" for g in GRAPHS]
    return [f for f in files if f.exists() and (f.stat().st_size < 1_000_000) == small]


@pytest.mark.parametrize("graph", [g for g in GRAPHS])
def test_real_graph_sizes(graphs_path: Path, graph: str) -> None:
    """Small graphs (< 1 MB files) only, to keep the unit tests fast."""
    p = graphs_path / f"{graph}.mtx.gz"
    if not p.exists():
        pytest.skip(f"{p.name} not present")
    if p.stat().st_size >= 1_000_000:
        pytest.skip("large file: read in test_law_cnr_load_time / benchmarks")
    n, m, directed = GRAPHS[graph]
    A = gio.mmread(p)
    assert A.shape == (n, n) and A.nvals == m and A.dtype == bool and A.is_iso
    S = A.to_scipy_sparse()
    assert S.diagonal().sum() == 0  # self loops were removed
    assert ((S != S.T).nnz == 0) == (not directed)


def test_real_graphs_match_scipy(graphs_path: Path) -> None:
    for p in _graph_files(graphs_path, small=True)[:3]:
        A = gio.mmread(p).to_scipy_sparse()
        S = scipy.io.mmread(p).tocsr()
        S.data[:] = 1
        assert (A != S.astype(bool)).nnz == 0, p.name


def test_law_cnr_load_time(graphs_path: Path) -> None:
    p = graphs_path / "law_cnr-2000.mtx.gz"
    if not p.exists():
        pytest.skip("law_cnr-2000 not present")
    t = time.perf_counter()
    A = gio.mmread(p)
    elapsed = time.perf_counter() - t
    n, m, _ = GRAPHS["law_cnr-2000"]
    assert A.shape == (n, n) and A.nvals == m
    assert elapsed < 15, f"reading {p.name} took {elapsed:.1f} s"


def test_error_messages_name_file_and_line(tmp_path: Path) -> None:
    p = _mm(tmp_path, _BANNER + "2 2 1\n1 q 1\n", "named.mtx")
    with pytest.raises(InvalidValue) as info:
        gio.read(p)
    assert re.match(rf"{re.escape(str(p))}:3: ", str(info.value))
