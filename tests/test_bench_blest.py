"""benchmarks/blest.py and the blest column of benchmarks/bfs_gpu.py: the graph file, the
driver's output, the checks, the build (with a stand-in nvcc, and with the real one when
nvcc and a Blest checkout are here), the driver protocol (with a stand-in driver), and, on a
GPU machine, Blest's levels against SciPy's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

import gblas as gb
from gblas.exceptions import IndexOutOfBound, InvalidValue

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bfs_gpu  # noqa: E402
import blest  # noqa: E402

READY = ("ready n=16 nnz=48 symmetric=1 social=0 full_padding=1 ordering=rcm "
         "ordering_cached=0 jaccard=1 window=65536 slices=32 vsets=2 update_divergence=3.25 "
         "kernel=BVSSBFS8EnhancedSliceSize8NoMasks4FullPad read_s=0.001 csc_s=0.002 "
         "reorder_s=0.5 bvss_s=0.25 device=NVIDIA_H100_80GB_HBM3 cc=90")
BFS = "bfs source=5 ms=0.125 call_ms=9.5 levels=4 visited=7 blest_visited=7 hist=1,2,3,1"


def _canonical(S: sp.spmatrix) -> sp.csr_matrix:
    S = sp.csr_matrix(S)
    S.sum_duplicates()
    S.sort_indices()
    return S


def _without_diagonal(S: sp.csr_matrix) -> sp.csr_matrix:
    T = S.tolil()
    T.setdiag(0)
    T = sp.csr_matrix(T)
    T.eliminate_zeros()
    T.sort_indices()
    return T


def _levels(S: sp.csr_matrix, src: int) -> np.ndarray:
    """BFS levels by SciPy (-1 where unreached): A[i, j] = edge i -> j."""
    n = S.shape[0]
    order, pred = breadth_first_order(S, src, directed=True, return_predecessors=True)
    lv = np.full(n, -1, dtype=np.int32)
    lv[src] = 0
    for v in order[1:]:
        lv[v] = lv[pred[v]] + 1
    return lv


# ---------------------------------------------------------------------------- graph file
def test_graph_file_round_trip_symmetric(tmp_path: Path) -> None:
    S = _canonical(gb.generators.parse_spec("kron:8").to_scipy_sparse())
    S = _canonical(S + sp.identity(S.shape[0], format="csr"))  # loops: Blest drops them
    n, nnz = blest.write_graph(tmp_path / "g.gbg", S.indptr, S.indices, symmetric=True)
    T = _without_diagonal(S)
    assert (n, nnz) == (S.shape[0], T.nnz) and nnz == S.nnz - S.shape[0]
    indptr, indices, sym = blest.read_graph(tmp_path / "g.gbg")
    assert sym and indptr.dtype == np.dtype("<u4") and indices.dtype == np.dtype("<u4")
    np.testing.assert_array_equal(indptr, T.indptr)
    np.testing.assert_array_equal(indices, T.indices)
    assert blest.read_graph_header(tmp_path / "g.gbg") == (n, nnz, True)
    size = (tmp_path / "g.gbg").stat().st_size
    assert size == 32 + 4 * (n + 1 + nnz)  # header + two uint32 arrays, nothing else


def test_graph_file_round_trip_directed_int32(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    S = _canonical(sp.random(300, 300, density=0.03, format="csr", random_state=rng))
    S.setdiag(1.0)
    S = _canonical(S)
    blest.write_graph(tmp_path / "d.gbg", S.indptr.astype(np.int32),
                      S.indices.astype(np.int32), symmetric=False)
    indptr, indices, sym = blest.read_graph(tmp_path / "d.gbg")
    T = _without_diagonal(S)
    assert not sym
    np.testing.assert_array_equal(indptr, T.indptr)
    np.testing.assert_array_equal(indices, T.indices)
    # a row whose only entry is a loop becomes empty, and an empty graph is fine
    blest.write_graph(tmp_path / "e.gbg", np.array([0, 1, 1]), np.array([0]), symmetric=True)
    ip, ix, _ = blest.read_graph(tmp_path / "e.gbg")
    assert ip.tolist() == [0, 0, 0] and ix.size == 0


@pytest.mark.parametrize(("indptr", "indices", "match"), [
    ([0, 2, 3], [1, 1, 0], "sorted and unique"),      # duplicate in row 0
    ([0, 2, 3], [2, 1, 0], "outside"),                # id 2 in a 2-vertex graph
    ([0, 2, 3], [1, 0, 0], "sorted and unique"),      # unsorted row 0
    ([0, 2, 1, 3], [1, 2, 0], "decreases"),
    ([1, 2, 3], [1, 0], "from 0 to len"),
    ([0], [], "n >= 1"),
])
def test_graph_writer_rejects_bad_patterns(tmp_path: Path, indptr: list[int],
                                          indices: list[int], match: str) -> None:
    with pytest.raises(InvalidValue, match=match):
        blest.write_graph(tmp_path / "b.gbg", np.array(indptr, dtype=np.int64),
                          np.array(indices, dtype=np.int64), symmetric=False)
    assert not (tmp_path / "b.gbg").exists()


def test_graph_writer_limits_and_types(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    with pytest.raises(InvalidValue, match="integers"):
        blest.write_graph(tmp_path / "f.gbg", np.array([0.0, 1.0]), np.array([0]),
                          symmetric=True)
    monkeypatch.setattr(blest, "MAX_ID", 2)
    with pytest.raises(InvalidValue, match="32 bits"):
        blest.write_graph(tmp_path / "big.gbg", np.array([0, 0, 0, 0]), np.array([], int),
                          symmetric=True)


def test_graph_reader_rejects_foreign_files(tmp_path: Path) -> None:
    (tmp_path / "x").write_bytes(b"GBBLEST2" + bytes(24))
    with pytest.raises(InvalidValue, match="magic"):
        blest.read_graph(tmp_path / "x")
    with pytest.raises(InvalidValue, match="magic"):
        blest.read_graph_header(tmp_path / "x")
    blest.write_graph(tmp_path / "g.gbg", np.array([0, 1, 2]), np.array([1, 0]),
                      symmetric=True)
    data = (tmp_path / "g.gbg").read_bytes()
    (tmp_path / "t.gbg").write_bytes(data[:-4])
    with pytest.raises(InvalidValue, match="expected"):
        blest.read_graph(tmp_path / "t.gbg")
    (tmp_path / "s.gbg").write_bytes(data[:10])
    with pytest.raises(InvalidValue, match="header"):
        blest.read_graph(tmp_path / "s.gbg")


# ---------------------------------------------------------------------------- driver output
def test_parse_ready_and_bfs_lines() -> None:
    r = blest.parse_ready(READY)
    assert (r.n, r.nnz, r.social, r.full_padding, r.ordering) == (16, 48, False, True, "rcm")
    assert r.kernel.endswith("FullPad") and r.device == "NVIDIA H100 80GB HBM3"
    assert r.prep_s == pytest.approx(0.752) and not r.ordering_cached
    b = blest.parse_bfs(BFS)
    assert (b.source, b.ms, b.call_ms, b.levels, b.visited) == (5, 0.125, 9.5, 4, 7)
    assert b.hist == [1, 2, 3, 1] and b.level_array is None
    assert blest.parse_bfs(BFS.replace("hist=1,2,3,1", "hist=")).hist == []


def test_parse_rejects_bad_lines() -> None:
    with pytest.raises(InvalidValue, match="expected a 'ready"):
        blest.parse_ready(BFS)
    with pytest.raises(InvalidValue, match="lacks kernel"):
        blest.parse_ready(READY.replace("kernel=", "kernal="))
    with pytest.raises(InvalidValue, match="bad number"):
        blest.parse_bfs(BFS.replace("ms=0.125", "ms=fast"))
    with pytest.raises(InvalidValue, match="lacks hist"):
        blest.parse_bfs(BFS.split(" hist")[0])


def _printf_keys(kind: str) -> set[str]:
    """The keys of the driver's printf for a ``kind`` line, read from its source."""
    src = blest.DRIVER.read_text()
    start = src.index(f'std::printf("{kind} ')
    fmt = "".join(re.findall(r'"([^"]*)"', src[start:src.index(";", start)]))
    return set(re.findall(r"(\w+)=%", fmt))


def test_parser_keys_match_the_driver_source() -> None:
    assert set(blest._READY_KEYS) <= _printf_keys("ready")
    assert set(blest._BFS_KEYS) <= _printf_keys("bfs")


def test_check_levels() -> None:
    ref = np.array([0, 1, 1, 2, -1, 3, 2], dtype=np.int32)
    ok = blest.BfsResult(source=0, ms=1.0, call_ms=2.0, levels=4, visited=6,
                         hist=[1, 2, 2, 1], level_array=ref.copy())
    assert blest.check_levels(ok, ref) == "ok"
    assert blest.level_hist(ref) == [1, 2, 2, 1] and blest.level_hist(np.array([-1])) == []
    swapped = ref.copy()
    swapped[[3, 6]] = [1, 2]
    swapped[1] = 2  # same histogram, other vertices
    res = blest.BfsResult(0, 1.0, 2.0, 4, 6, [1, 2, 2, 1], swapped)
    assert "vertices differ, e.g. 1: Blest 2, gblas 1" in blest.check_levels(res, ref)
    res = blest.BfsResult(0, 1.0, 2.0, 4, 5, [1, 2, 2], None)
    assert "reached 5 vertices" in blest.check_levels(res, ref)
    res = blest.BfsResult(0, 1.0, 2.0, 4, 6, [1, 3, 1, 1], None)
    assert "level sizes" in blest.check_levels(res, ref)
    res = blest.BfsResult(0, 1.0, 2.0, 4, 6, [1, 2, 2], None)
    assert "sums to 5" in blest.check_levels(res, ref)
    res = blest.BfsResult(0, 1.0, 2.0, 4, 6, [1, 2, 2, 1], ref[:-1])
    assert "6 levels, gblas 7" in blest.check_levels(res, ref)


# ---------------------------------------------------------------------------- checkout, build
def _fake_checkout(root: Path) -> Path:
    for f in blest.CHECKOUT_FILES:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text(f"// {f}\n")
    return root


def test_resolve_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(blest.BLEST_ENV, raising=False)
    assert blest.resolve_checkout(None) is None and blest.resolve_checkout("") is None
    monkeypatch.setenv(blest.BLEST_ENV, str(tmp_path))
    with pytest.raises(InvalidValue, match=r"not a Blest source checkout.*missing Common\.cuh"):
        blest.resolve_checkout(None)
    _fake_checkout(tmp_path)
    assert blest.resolve_checkout(None) == tmp_path.resolve()
    (tmp_path / "BFS" / "BVSSBFSKernel.cuh").unlink()
    with pytest.raises(InvalidValue, match=r"missing BFS/BVSSBFSKernel\.cuh \(git clone"):
        blest.resolve_checkout(str(tmp_path))
    with pytest.raises(InvalidValue, match="git clone https://github.com/delbek/blest"):
        blest.resolve_checkout(tmp_path / "nowhere")


def test_build_command_has_blests_flags(tmp_path: Path) -> None:
    co = tmp_path / "blest"
    cmd = blest.build_command(co, tmp_path / "drv", nvcc="/opt/nvcc", arch="sm_90")
    assert cmd[0] == "/opt/nvcc" and cmd[cmd.index("-o") + 1] == str(tmp_path / "drv")
    for flag in ("-O3", "--generate-line-info", "--std=c++20", "-Xptxas=-v", "-lgomp",
                 "-gencode=arch=compute_90,code=[sm_90,compute_90]"):
        assert flag in cmd
    assert cmd[cmd.index("-Xcompiler") + 1] == "-fopenmp"
    assert [c for c in cmd if c.startswith("-I")] == [
        f"-I{co / d}" for d in (".", "DataStructures", "BFS", "Gorder")]
    assert str(blest.DRIVER) in cmd and blest.DRIVER.is_file()
    for src in ("Gorder/Graph.cpp", "Gorder/Util.cpp", "Gorder/UnitHeap.cpp"):
        assert str(co / src) in cmd
    assert "-gencode=arch=compute_100,code=[sm_100,compute_100]" in blest.build_command(
        co, tmp_path / "drv", arch=100)
    for bad in ("75", "sm_86a", "", "ninety"):
        with pytest.raises(InvalidValue, match="compute capability"):
            blest.build_command(co, tmp_path / "drv", arch=bad)


FAKE_NVCC = """\
#!/bin/sh
# a stand-in nvcc: records its arguments, writes the -o file, fails on request
if [ "$1" = "--version" ]; then echo "fake nvcc 1.0"; exit 0; fi
echo "$@" >> "$(dirname "$0")/calls"
if [ -n "$FAKE_NVCC_FAIL" ]; then echo "error: no such header" >&2; exit 1; fi
while [ $# -gt 0 ]; do
  if [ "$1" = "-o" ]; then printf '#!/bin/sh\\n' > "$2"; chmod +x "$2"; fi
  shift
done
"""


@pytest.fixture
def fake_nvcc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    tool = tmp_path / "tools" / "nvcc"
    tool.parent.mkdir()
    tool.write_text(FAKE_NVCC)
    tool.chmod(0o755)
    monkeypatch.setenv("NVCC", str(tool))
    return tool


def _calls(nvcc: Path) -> list[str]:
    calls = nvcc.parent / "calls"
    return calls.read_text().splitlines() if calls.is_file() else []


def test_build_once_then_again_when_a_source_changes(tmp_path: Path, fake_nvcc: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    co = _fake_checkout(tmp_path / "co")
    root = tmp_path / "build"
    binary, built = blest.build(co, root, arch=90)
    assert built and binary.is_file() and binary.name == "blest_driver_sm90"
    assert binary.parent.parent == root and len(_calls(fake_nvcc)) == 1
    assert "-fopenmp" in _calls(fake_nvcc)[0]
    assert blest.build(co, root, arch=90) == (binary, False)  # up to date: no nvcc call
    assert len(_calls(fake_nvcc)) == 1
    (co / "BFS" / "BVSSBFSKernel.cuh").write_text("// changed\n")
    assert blest.build(co, root, arch=90) == (binary, True)
    (co / "extra.hpp").write_text("// a new header\n")  # any source of the checkout counts
    assert blest.build(co, root, arch=90)[1]
    other, built = blest.build(co, root, arch=80)  # another arch: its own binary
    assert built and other.name == "blest_driver_sm80" and binary.is_file()
    assert len(_calls(fake_nvcc)) == 4
    monkeypatch.setenv("FAKE_NVCC_FAIL", "1")
    (co / "Common.cuh").write_text("// broken\n")
    with pytest.raises(InvalidValue, match=r"nvcc exit 1\):\nerror: no such header"):
        blest.build(co, root, arch=90)
    assert not binary.with_suffix(".stamp").exists()  # the next call tries again
    assert (binary.parent / "build_sm90.log").read_text().startswith(str(fake_nvcc))


def test_build_without_nvcc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NVCC", str(tmp_path / "no-nvcc"))
    with pytest.raises(InvalidValue, match="no CUDA compiler"):
        blest.build(_fake_checkout(tmp_path / "co"), tmp_path / "build")


# ---------------------------------------------------------------------------- driver protocol
FAKE_DRIVER = """\
#!{python}
# a stand-in for blest_driver: the same protocol, levels = BFS levels by SciPy
import os, sys
import numpy as np
sys.path.insert(0, {bench!r})
import blest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path
a = dict(zip(sys.argv[1::2], sys.argv[2::2]))
if os.environ.get("FAKE_DIE"):
    print("GPUassert: out of memory", file=sys.stderr)
    sys.exit(3)
ip, ix, sym = blest.read_graph(a["--graph"])
n = ip.size - 1
order = a.get("--ordering-cache")
cached = int(bool(order) and os.path.isfile(order))
if order and not cached:
    open(order, "wb").write(np.arange(n, dtype="<u4").tobytes())
print("Reordering with RCM", file=sys.stderr)
print(f"ready n={{n}} nnz={{ix.size}} symmetric={{int(sym)}} social=0 full_padding=1 "
      f"ordering=rcm ordering_cached={{cached}} jaccard={{a['--jaccard']}} "
      f"window={{a['--window']}} slices=8 vsets=1 update_divergence=1 kernel=K read_s=0 "
      f"csc_s=0.1 reorder_s={{0.0 if cached else 2.5}} bvss_s=0.2 device=Fake_GPU cc=90",
      flush=True)
A = csr_matrix((np.ones(ix.size), ix, ip), shape=(n, n))
for tok in iter(sys.stdin.readline, ""):
    s = int(tok)
    d = shortest_path(A, indices=s, unweighted=True)
    lv = np.where(np.isinf(d), -1, d).astype("<i4")
    lv.tofile(a["--levels"])
    h = ",".join(map(str, np.bincount(lv[lv >= 0])))
    print(f"bfs source={{s}} ms=0.5 call_ms=3.0 levels={{lv.max() + 1}} "
          f"visited={{(lv >= 0).sum()}} blest_visited={{(lv >= 0).sum()}} hist={{h}}",
          flush=True)
"""


@pytest.fixture
def fake_blest(tmp_path: Path, fake_nvcc: Path, monkeypatch: pytest.MonkeyPatch
               ) -> blest.Blest:
    """A Blest whose 'built' driver is the stand-in above."""
    peer = blest.Blest(_fake_checkout(tmp_path / "co"), tmp_path / "build", arch=90)
    peer.bin.write_text(FAKE_DRIVER.format(python=sys.executable,
                                           bench=str(ROOT / "benchmarks")))
    return peer


def test_driver_protocol_levels_and_caches(fake_blest: blest.Blest) -> None:
    A = gb.generators.grid2d(6, 5)
    S = _canonical(A.to_scipy_sparse())
    g = fake_blest.graph("grid:6x5", S.indptr, S.indices, symmetric=True)
    assert g.path.parent == fake_blest.graphs and g.path.name.startswith("grid_6x5-")
    assert (g.n, g.nnz) == (30, S.nnz) and "j1-w65536" in g.ordering_cache.name
    stamp = g.path.stat().st_mtime_ns
    again = fake_blest.graph("grid:6x5", S.indptr, S.indices, symmetric=True)
    assert again.path == g.path and g.path.stat().st_mtime_ns == stamp  # reused
    other = fake_blest.graph("grid:6x5", S.indptr, S.indices, symmetric=False)
    assert other.path != g.path  # the content hash covers the symmetry flag
    with fake_blest.start(g) as run:
        assert run.ready.n == 30 and not run.ready.ordering_cached
        assert run.first_reorder_s == 2.5
        for s in (0, 17, 29):
            res = run.bfs(s)
            assert res.source == s and res.ms == 0.5 and res.call_ms == 3.0
            assert blest.check_levels(res, _levels(S, s)) == "ok"
        with pytest.raises(IndexOutOfBound, match="outside 0..29"):
            run.bfs(30)
    assert run.proc.returncode == 0
    assert "Reordering with RCM" in g.path.with_suffix(".log").read_text()
    assert json.loads(g.ordering_cache.with_suffix(".json").read_text()) == {"reorder_s": 2.5}
    run = fake_blest.start(g, wait=False, threads=3)  # the cached ordering, deferred wait
    try:
        assert not run.waited
        ready = blest.Blest.finish_start(run, g)
        assert run.waited and run.wait_s > 0
        assert ready.ordering_cached and ready.reorder_s == 0.0
        assert run.first_reorder_s == 2.5  # the time of the run that computed it
    finally:
        run.close()


def test_driver_dying_is_reported(fake_blest: blest.Blest, monkeypatch: pytest.MonkeyPatch
                                  ) -> None:
    S = _canonical(gb.generators.grid2d(3, 3).to_scipy_sparse())
    g = fake_blest.graph("grid:3x3", S.indptr, S.indices, symmetric=True)
    monkeypatch.setenv("FAKE_DIE", "1")
    with pytest.raises(InvalidValue, match=r"exited \(3\) before its 'ready' line(.|\n)*"
                                           r"out of memory"):
        fake_blest.start(g)


def test_line_reader_times_out() -> None:
    r, w = os.pipe()
    try:
        lines = blest._Lines(r)
        os.write(w, b"ready a=1\nbfs b")
        assert lines.readline(1.0) == "ready a=1"
        with pytest.raises(TimeoutError):
            lines.readline(0.05)  # half a line: no newline yet
        os.write(w, b"=2\n")
        assert lines.readline(1.0) == "bfs b=2"
        os.close(w)
        w = -1
        assert lines.readline(1.0) is None
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


# ---------------------------------------------------------------------------- bfs_gpu.py
def test_bfs_gpu_blest_column_without_checkout(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(blest.BLEST_ENV, raising=False)
    args = bfs_gpu.parse_args([])
    assert args.blest is None and args.blest_window == 65536 and args.blest_jaccard == 1
    peer, meta = bfs_gpu.start_blest(args, "90")
    assert peer is None and meta == {"note": blest.NOT_RUN_NOTE}
    assert "--blest PATH" in capsys.readouterr().err
    with pytest.raises(InvalidValue, match="not a Blest source checkout"):
        bfs_gpu.start_blest(bfs_gpu.parse_args(["--blest", "/nowhere/blest"]), "90")


def _result(graph: str, blest_ms: float | None) -> dict:
    m = {"ms": 2.0, "mean_ms": 3.0, "levels": 7, "gteps": 1.0, "us_per_level": 5.0, "host_syncs": 2,
         "sources_timed": 16}
    r = {"graph": graph, "n": 8, "nnz": 20, "symmetric": True, "mismatches": 0,
         "fused": dict(m), "levels": dict(m), "loop": dict(m), "naive": dict(m),
         "fused+par": dict(m), "floor": {"ms": 0.1}}
    if blest_ms is None:
        r["blest_note"] = blest.NOT_RUN_NOTE
    else:
        r["blest"] = {**m, "ms": blest_ms, "mean_ms": 0.75, "call_ms": 30.0,
                      "sources_timed": 12}
        r["blest_prep"] = {"csc_s": 0.5, "reorder_s": 0.0, "first_reorder_s": 40.0,
                           "bvss_s": 1.5}
    return r


def test_bfs_gpu_table_blest_columns() -> None:
    text = bfs_gpu.table([_result("kron:22", 0.5), _result("grid:8x8", None)])
    head, _, *rows = text.splitlines()
    cols = [c.strip() for c in head.strip("|").split("|")]
    for name in ("blest ms", "blest mean ms", "blest µs/lvl", "blest call ms", "blest prep s",
                 "fused/blest", "fused/blest mean"):
        assert name in cols
    kron = dict(zip(cols, (c.strip() for c in rows[0].strip("|").split("|"))))
    grid = dict(zip(cols, (c.strip() for c in rows[1].strip("|").split("|"))))
    assert kron["blest ms"] == "0.5" and kron["fused/blest"] == "4"
    assert kron["fused/blest mean"] == "4"  # 3.0 / 0.75: the means' ratio
    assert kron["blest mean ms"] == "0.75" and kron["blest call ms"] == "30"
    assert kron["blest prep s"] == "42"  # the cached ordering's first computation counts
    assert kron["src"] == "16/16/16/16/12" and grid["src"] == "16/16/16/16"
    assert grid["blest ms"] == blest.NOT_RUN_NOTE and grid["fused/blest"] == "-"
    assert grid["fused/blest mean"] == "-"


class _Dev:
    """A stand-in for a CuPy array: ``get()`` gives the host copy."""

    def __init__(self, a: np.ndarray) -> None:
        self.a = np.asarray(a)

    def get(self) -> np.ndarray:
        return self.a


@pytest.mark.parametrize("overlap", [False, True])
def test_bfs_gpu_times_blest_and_checks_levels(fake_blest: blest.Blest, overlap: bool,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    S = _canonical(gb.generators.grid2d(6, 5).to_scipy_sparse())
    csr = SimpleNamespace(indptr=_Dev(S.indptr), indices=_Dev(S.indices))
    run, g = bfs_gpu.blest_start(fake_blest, "grid:6x5", csr, True, overlap=overlap)
    try:
        assert run.waited is not overlap  # overlap: waited for at Blest's turn
        sources, deg = [0, 7, 29], np.diff(S.indptr)
        ref = {s: _Dev(_levels(S, s)) for s in sources}
        rows: list[dict] = []
        assert bfs_gpu.time_blest(run, g, sources, ref, deg, True, rows) == 0
        assert [r["source"] for r in rows] == sources and rows[0]["ms"] == 0.5
        assert rows[0]["edges"] == S.nnz / 2 and rows[0]["levels"] == 10  # 6x5: depth 9
        assert run.first_reorder_s == 2.5
        wrong = {**ref, 7: _Dev(np.roll(ref[7].get(), 1))}
        assert bfs_gpu.time_blest(run, g, sources, wrong, deg, True, []) == 1
        assert "MISMATCH blest vs fused levels, source 7" in capsys.readouterr().out
        summary = bfs_gpu.blest_summary(run, g)
        assert summary["ordering"] == "rcm" and summary["prep_s"] == pytest.approx(2.8)
    finally:
        run.close()


def test_bfs_gpu_keeps_going_when_blest_dies(fake_blest: blest.Blest,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    S = _canonical(gb.generators.grid2d(3, 3).to_scipy_sparse())
    csr = SimpleNamespace(indptr=_Dev(S.indptr), indices=_Dev(S.indices))
    monkeypatch.setenv("FAKE_DIE", "1")
    run, g = bfs_gpu.blest_start(fake_blest, "grid:3x3", csr, True, overlap=False)
    try:  # the failure waits for Blest's turn, so that gblas is timed all the same
        for _ in range(2):  # and it stays a failure
            with pytest.raises(InvalidValue, match="out of memory"):
                bfs_gpu.time_blest(run, g, [0], {}, np.diff(S.indptr), True, [])
    finally:
        run.close()


# ---------------------------------------------------------------------------- real nvcc
def _blest_checkout() -> Path | None:
    for cand in (os.environ.get(blest.BLEST_ENV), ROOT / "bench_out" / "blest"):
        if cand:
            try:
                found = blest.resolve_checkout(cand)
            except InvalidValue:
                continue
            if found is not None:
                return found
    return None


@pytest.fixture(scope="module")
def real_driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc")
    if not nvcc:
        pytest.skip("nvcc is not on PATH")
    co = _blest_checkout()
    if co is None:
        pytest.skip(f"no Blest checkout: set ${blest.BLEST_ENV} or export one to "
                    "bench_out/blest")
    binary, _ = blest.build(co, tmp_path_factory.mktemp("blest-build"), arch=90, nvcc=nvcc)
    return binary


@pytest.mark.nvcc
def test_driver_compiles_with_nvcc_and_checks_its_input(real_driver: Path, tmp_path: Path
                                                        ) -> None:
    def drv(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(real_driver), *args], input=stdin, capture_output=True,
                              text=True, timeout=120)

    out = drv()
    assert out.returncode == 2 and "--graph is required" in out.stderr
    assert "--jaccard takes 0 or 1" in drv("--graph", "g", "--jaccard", "2").stderr
    assert "multiple of 8" in drv("--graph", "g", "--window", "12").stderr
    assert "cannot open graph file" in drv("--graph", str(tmp_path / "none")).stderr
    (tmp_path / "bad.gbg").write_bytes(b"NOTAGRAPH" * 8)
    assert "bad magic" in drv("--graph", str(tmp_path / "bad.gbg")).stderr
    blest.write_graph(tmp_path / "g.gbg", np.array([0, 1, 2]), np.array([1, 0]),
                      symmetric=True)
    data = (tmp_path / "g.gbg").read_bytes()
    (tmp_path / "t.gbg").write_bytes(data[:-2])
    assert "truncated" in drv("--graph", str(tmp_path / "t.gbg")).stderr
    loop = bytearray(data)
    loop[-8:-4] = (0).to_bytes(4, "little")  # row 0's neighbour becomes 0: a self-loop
    (tmp_path / "l.gbg").write_bytes(bytes(loop))
    assert "self-loop" in drv("--graph", str(tmp_path / "l.gbg")).stderr


@pytest.mark.nvcc
@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["kron:12", "urand:11", "grid:40x50"])
def test_blest_levels_equal_scipys(real_driver: Path, tmp_path: Path, spec: str) -> None:
    from gblas._device import cuda_available  # noqa: PLC0415

    if not cuda_available():
        pytest.skip("no CUDA device answers")
    S = _canonical(gb.generators.parse_spec(spec).to_scipy_sparse())
    blest.write_graph(tmp_path / "g.gbg", S.indptr, S.indices, symmetric=True)
    deg = np.diff(S.indptr)
    sources = [int(v) for v in np.random.default_rng(1).choice(np.flatnonzero(deg), 4,
                                                                 replace=False)]
    with blest.BlestRun(real_driver, tmp_path / "g.gbg", ordering_cache=tmp_path / "o.bin",
                        levels_path=tmp_path / "lv.i32", timeout_s=300) as run:
        assert run.ready.n == S.shape[0] and run.ready.nnz == S.nnz
        expect = "rcm" if spec.startswith("grid") else "jaccard-windows"
        assert run.ready.ordering == expect, textwrap.shorten(str(run.ready), 300)
        for s in sources:
            res = run.bfs(s)
            assert res.ms > 0 and res.call_ms >= res.ms
            assert blest.check_levels(res, _levels(S, s)) == "ok"


@pytest.mark.nvcc
@pytest.mark.gpu
def test_bfs_gpu_with_the_blest_column(real_driver: Path, tmp_path: Path) -> None:
    from gblas._device import cuda_available  # noqa: PLC0415

    if not cuda_available():
        pytest.skip("no CUDA device answers")
    co = _blest_checkout()
    assert co is not None
    rc = bfs_gpu.main(["--graphs", "kron:10,grid:20x30", "--sources", "3", "--blest", str(co),
                       "--blest-build", str(real_driver.parent.parent), "--blest-arch", "90",
                       "--out", str(tmp_path)])
    assert rc == 0
    data = json.loads((tmp_path / "bfs_gpu.json").read_text())
    assert data["machine"]["blest"]["rebuilt"] is False  # the fixture's build is reused
    for r in data["results"]:
        assert r["mismatches"] == 0 and r["checked_against_fused"]["blest"] == 3
        assert r["blest"]["sources_timed"] == 3 and r["blest"]["ms"] > 0
        assert r["blest_prep"]["ordering"] == ("rcm" if r["graph"].startswith("grid")
                                               else "jaccard-windows")
    assert "blest mean ms" in (tmp_path / "bfs_gpu.md").read_text()
