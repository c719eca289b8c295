"""The ``gblas`` command line, run as a subprocess from the source tree.

``python -m gblas.cli`` with PYTHONPATH set to the repository root (so it works without
installing), from a temporary working directory. Expected values come from SciPy.

Each subprocess spends about a second importing NumPy/SciPy/Numba, so the commands the
selected tests need are started together at the beginning (a few at a time, one thread
each) and every test then checks its own command's output.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

from gblas import cuda_available, generators, io

ROOT = Path(__file__).resolve().parents[1]
BFS_KEYS = {"n", "m", "device", "format", "sources", "levels", "reached", "time_s", "gteps",
            "kernels", "valid"}


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    return e


def gblas(cwd: Path, *args, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gblas.cli", *map(str, args)], cwd=cwd,
                          env=env(), capture_output=True, text=True, timeout=timeout)


def parse_json(p: subprocess.CompletedProcess) -> dict:
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 1, f"--json prints one JSON object, got {p.stdout!r}"
    return json.loads(lines[0])


def parse_text(p: subprocess.CompletedProcess) -> dict[str, str]:
    """``key   value`` lines (the default output of info/convert/algo)."""
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    return {ln.split()[0]: ln.split(None, 1)[1] for ln in p.stdout.strip().splitlines()}


# ---------------------------------------------------------------- the commands
def write_inputs(w: Path) -> None:
    # directed: 0 -> 1 -> 2 -> 3, 4 -> 0
    S = sp.coo_matrix((np.ones(4), ([0, 1, 2, 4], [1, 2, 3, 0])), shape=(5, 5))
    scipy.io.mmwrite(str(w / "directed.mtx"), S, field="pattern")
    # two directed triangles and a self loop
    (w / "two.el").write_text("0 1\n1 2\n2 0\n3 4\n4 5\n5 3\n6 6\n")
    # K4, a pendant vertex 4 on 3, and a separate edge 5-6 (both directions stored)
    und = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3, 4), (5, 6)]
    (w / "k4.el").write_text("".join(f"{u} {v}\n{v} {u}\n" for u, v in und))
    # a random directed graph for convert
    r, c = random_directed()
    S = sp.coo_matrix((np.ones(r.size), (r, c)), shape=(30, 30))
    scipy.io.mmwrite(str(w / "dir.mtx"), S, field="pattern")
    # a truncated Matrix Market file
    (w / "bad.mtx").write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n")


def random_directed() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    mask = rng.random((30, 30)) < 0.1
    np.fill_diagonal(mask, False)
    return np.nonzero(mask)


ERRORS = {
    "missing-file-bfs": ["bfs", "{w}/no_such_graph.mtx"],
    "missing-file-convert": ["convert", "{w}/no_such.mtx", "{w}/out.npz"],
    "bad-spec": ["bfs", "kron:x"],
    "source-999": ["bfs", "grid:4x4", "--source", "999"],
    "source-not-a-number": ["bfs", "grid:4x4", "--source", "abc"],
    "algo-source-999": ["algo", "sssp", "grid:3x3", "--source", "999"],
    "bad-format": ["bfs", "grid:4x4", "--format", "bogus"],
    "bad-file-content": ["info", "{w}/bad.mtx"],
    "bad-output-extension": ["convert", "grid:3x3", "{w}/out.unknownext"],
    "zero-sources": ["bfs", "grid:4x4", "--sources", "0"],
    "info-bad-format": ["info", "grid:4x4", "--format", "bogus"],
    "info-bad-format-parameter": ["info", "grid:4x4", "--format", "csr", "--reorder", "rcm"],
    "info-reorder-without-format": ["info", "grid:4x4", "--reorder", "rcm"],
}
ALGOS = ("cc", "pagerank", "tc", "sssp", "bc")

# (test function, key, commands run one after the other)
JOBS: list[tuple[str, str, list[list[str]]]] = [
    ("test_bfs_json_grid", "bfs-grid",
     [["bfs", "grid:8x8", "--sources", "3", "--validate", "--json"]]),
    ("test_bfs_corner_source_text_output", "bfs-text",
     [["bfs", "grid:8x8", "--source", "0", "--validate"]]),
    *[("test_bfs_directions_and_parents", f"bfs-{d}",
       [["bfs", "grid:8x8", "--source", "0", "--direction", d, "--parents", "--validate",
         "--json"]]) for d in ("push", "pull", "auto")],
    ("test_bfs_kron10_instead_of_default", "bfs-kron10",
     [["bfs", "kron:10", "--sources", "4", "--validate", "--parents", "--device", "cpu",
       "--seed", "7", "--json"]]),
    ("test_bfs_same_seed_same_sources_coo_format", "bfs-seed-coo",
     [["bfs", "grid:6x5", "--sources", "5", "--seed", "3", "--format", "coo", "--validate",
       "--json"]]),
    ("test_bfs_same_seed_same_sources_coo_format", "bfs-seed-csr",
     [["bfs", "grid:6x5", "--sources", "5", "--seed", "3", "--validate", "--json"]]),
    ("test_bfs_directed_file", "bfs-directed-2",
     [["bfs", "{w}/directed.mtx", "--source", "2", "--validate", "--json"]]),
    ("test_bfs_directed_file", "bfs-directed-4",
     [["bfs", "{w}/directed.mtx", "--source", "4", "--validate", "--parents", "--json"]]),
    ("test_info_grid", "info-json", [["info", "grid:4x4", "--json"]]),
    ("test_info_grid", "info-text", [["info", "grid:4x4"]]),
    ("test_info_disconnected", "info-two", [["info", "{w}/two.el", "--json"]]),
    ("test_info_format", "info-sellcs", [["info", "grid:4x4", "--format", "sellcs", "--json"]]),
    ("test_info_format", "info-bvss",
     [["info", "grid:4x4", "--format", "bvss", "--reorder", "rcm"]]),
    ("test_convert_round_trip", "info-road", [["info", "road:60", "--json"]]),
    ("test_convert_round_trip", "convert-chain",
     [["convert", "road:60", "{w}/g.mtx", "--json"],
      ["convert", "{w}/g.mtx", "{w}/g.npz", "--json"],
      ["convert", "{w}/g.npz", "{w}/g2.mtx.gz"],
      ["info", "{w}/g2.mtx.gz", "--json"]]),
    ("test_convert_directed", "convert-directed",
     [["convert", "{w}/dir.mtx", "{w}/dir.npz", "--json"],
      ["convert", "{w}/dir.npz", "{w}/dir2.mtx", "--json"]]),
    *[("test_algo_on_grid", f"algo-{a}", [["algo", a, "grid:4x4", "--json"]]) for a in ALGOS],
    ("test_algo_on_file_with_triangles", "algo-tc-file",
     [["algo", "tc", "{w}/k4.el", "--json"]]),
    ("test_algo_on_file_with_triangles", "algo-bfs-file-text",
     [["algo", "bfs", "{w}/k4.el", "--source", "5"]]),
    *[("test_user_errors_one_line_exit_2", f"error-{k}", [v]) for k, v in ERRORS.items()],
    ("test_cuda_device_without_gpu", "cuda", [["bfs", "grid:3x3", "--device", "cuda"]]),
    ("test_usage_error_exit_2", "usage",
     [["bfs", "grid:3x3", "--direction", "sideways"], []]),
]


class Runner:
    """Runs the commands of the selected tests concurrently; ``get(key)`` waits for one."""

    def __init__(self, workdir: Path, wanted: set[str]) -> None:
        self.workdir = workdir
        try:
            cores = len(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            cores = os.cpu_count() or 2
        self.pool = ThreadPoolExecutor(max_workers=max(2, min(8, cores + 1)))
        self.futures: dict[str, Future] = {}
        for test, key, cmds in JOBS:
            if test in wanted:
                self.futures[key] = self.pool.submit(self._run, cmds)

    def _run(self, cmds: list[list[str]]) -> list[subprocess.CompletedProcess]:
        w = str(self.workdir)
        return [gblas(self.workdir, *(a.replace("{w}", w) for a in cmd)) for cmd in cmds]

    def get(self, key: str) -> list[subprocess.CompletedProcess]:
        return self.futures[key].result()

    def one(self, key: str) -> subprocess.CompletedProcess:
        (p,) = self.get(key)
        return p


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    w = tmp_path_factory.mktemp("cli")
    write_inputs(w)
    return w


@pytest.fixture(scope="module")
def cli(request, workdir):
    here = Path(str(request.node.path))
    wanted = {getattr(item, "originalname", item.name) for item in request.session.items
              if Path(str(item.path)) == here}
    runner = Runner(workdir, wanted)
    yield runner
    runner.pool.shutdown(wait=True, cancel_futures=True)


# ---------------------------------------------------------------- expectations (SciPy)
def scipy_of(A) -> sp.csr_matrix:
    r, c, _ = A.to_coo()
    return sp.csr_matrix((np.ones(r.size), (r, c)), shape=A.shape)


def distances(A, source: int) -> np.ndarray:
    return csgraph.shortest_path(scipy_of(A), unweighted=True, directed=True, indices=source)


def n_levels(A, source: int) -> int:
    d = distances(A, source)
    return int(d[np.isfinite(d)].max()) + 1


def n_reached(A, source: int) -> int:
    return int(np.isfinite(distances(A, source)).sum())


def check_bfs_result(res: dict, A, *, n_sources: int, validate: bool = True) -> None:
    assert set(res) == BFS_KEYS
    assert res["n"] == A.nrows and res["m"] == A.nvals
    assert res["device"] == "cpu" or res["device"].startswith("cuda")
    assert res["format"] in ("csr", "coo")
    src = res["sources"]
    assert len(src) == n_sources and len(set(src)) == n_sources
    deg = np.diff(scipy_of(A).indptr)
    assert all(isinstance(s, int) and 0 <= s < A.nrows and deg[s] > 0 for s in src)
    assert res["levels"] == max(n_levels(A, s) for s in src)
    assert res["reached"] == int(statistics.median(n_reached(A, s) for s in src))
    assert isinstance(res["time_s"], float) and res["time_s"] > 0
    assert isinstance(res["gteps"], float) and res["gteps"] > 0
    assert isinstance(res["kernels"], list) and res["kernels"]
    assert all(isinstance(k, str) and k for k in res["kernels"])
    assert res["valid"] is (True if validate else None)


def structure(A) -> set[tuple[int, int]]:
    r, c, _ = A.to_coo()
    return set(zip(r.tolist(), c.tolist(), strict=True))


# ---------------------------------------------------------------- bfs
@pytest.fixture(scope="module")
def grid8():
    return generators.grid2d(8, 8)


def test_bfs_json_grid(cli, grid8):
    res = parse_json(cli.one("bfs-grid"))
    check_bfs_result(res, grid8, n_sources=3)
    assert res["n"] == 64 and res["m"] == 224 and res["reached"] == 64
    # undirected graph, everything reached: 112 edges per BFS
    assert res["gteps"] == pytest.approx(112 / res["time_s"] / 1e9, rel=1e-9)


def test_bfs_corner_source_text_output(cli, grid8):
    p = cli.one("bfs-text")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    lines = {ln.split()[0]: ln for ln in p.stdout.strip().splitlines()}
    assert list(lines) == ["graph", "device", "sources", "levels", "reached", "time/BFS",
                           "GTEPS", "kernels", "valid"]
    assert "n=64" in lines["graph"] and "m=224" in lines["graph"]
    assert "format=csr" in lines["graph"]
    assert lines["sources"].split()[1:] == ["1", "(0)"]
    assert lines["levels"].split()[1] == str(n_levels(grid8, 0)) == "15"
    assert lines["reached"].split()[1:] == ["64", "vertices"]
    assert lines["time/BFS"].endswith("ms (median)")
    assert float(lines["time/BFS"].split()[1]) > 0
    assert float(lines["GTEPS"].split()[1]) >= 0
    assert lines["valid"].split()[1] == "True"


def test_bfs_directions_and_parents(cli):
    kernels = {}
    for d in ("push", "pull", "auto"):
        res = parse_json(cli.one(f"bfs-{d}"))
        assert res["sources"] == [0]
        assert res["levels"] == 15 and res["reached"] == 64
        assert res["valid"] is True
        kernels[d] = set(res["kernels"])
    assert kernels["push"] != kernels["pull"], "forcing a direction changes the kernels"
    assert kernels["auto"] <= kernels["push"] | kernels["pull"]


def test_bfs_kron10_instead_of_default(cli):
    A = generators.parse_spec("kron:10")
    res = parse_json(cli.one("bfs-kron10"))
    check_bfs_result(res, A, n_sources=4)
    assert res["device"] == "cpu" and res["n"] == 1024


def test_bfs_same_seed_same_sources_coo_format(cli):
    A = generators.parse_spec("grid:6x5")
    a = parse_json(cli.one("bfs-seed-coo"))
    b = parse_json(cli.one("bfs-seed-csr"))
    assert a["sources"] == b["sources"]
    assert a["format"] == "coo" and b["format"] == "csr"
    check_bfs_result(a, A, n_sources=5)
    check_bfs_result(b, A, n_sources=5)


def test_bfs_directed_file(cli):
    res = parse_json(cli.one("bfs-directed-2"))  # from 2 only {2, 3} are reached
    assert res["n"] == 5 and res["m"] == 4
    assert res["levels"] == 2 and res["reached"] == 2 and res["valid"] is True
    res = parse_json(cli.one("bfs-directed-4"))  # 4 -> 0 -> 1 -> 2 -> 3
    assert res["levels"] == 5 and res["reached"] == 5 and res["valid"] is True


def test_bfs_real_graph_file(workdir, graphs_path):
    path = graphs_path / "snap_ego-Facebook.mtx.gz"
    if not path.exists():
        pytest.skip("snap_ego-Facebook.mtx.gz missing")
    A = io.mmread(path)
    res = parse_json(gblas(workdir, "bfs", path, "--sources", "2", "--validate", "--parents",
                           "--json"))
    check_bfs_result(res, A, n_sources=2)
    assert res["n"] == 4039 and res["m"] == 176468


# ---------------------------------------------------------------- info / convert
def test_info_grid(cli):
    res = parse_json(cli.one("info-json"))
    assert res["n"] == 16 and res["m"] == 48
    assert res["components"] == 1 and res["diameter_estimate"] == 6
    assert res["directed"] is False
    assert (res["degree_min"], res["degree_max"], res["degree_mean"]) == (2, 4, 3.0)
    text = parse_text(cli.one("info-text"))
    assert text["n"] == "16" and text["m"] == "48"
    assert text["components"] == "1" and text["diameter_estimate"] == "6"


def test_info_format(cli):
    """``--format F`` adds the format's statistics (A.format_info) as ``F.key``."""
    res = parse_json(cli.one("info-sellcs"))
    want = generators.grid2d(4, 4).format_info("sellcs")
    assert res["n"] == 16
    for k in ("C", "sigma", "chunks", "cells", "padding", "nnz", "nbytes", "bytes_per_edge"):
        assert res[f"sellcs.{k}"] == want[k], k
    text = parse_text(cli.one("info-bvss"))
    assert text["bvss.reorder"] == "rcm" and text["bvss.nnz"] == "48"
    assert 0 < float(text["bvss.compression_ratio"]) <= 1


def test_info_disconnected(cli, workdir):
    A = io.read(workdir / "two.el")
    res = parse_json(cli.one("info-two"))
    ncomp, _ = csgraph.connected_components(scipy_of(A), directed=True, connection="weak")
    assert ncomp == 3
    assert res["n"] == A.nrows == 7 and res["m"] == A.nvals
    assert res["components"] == ncomp


def test_convert_round_trip(cli, workdir):
    A = generators.parse_spec("road:60")
    base = parse_json(cli.one("info-road"))
    assert base["n"] == 60 and base["m"] == A.nvals
    to_mtx, to_npz, to_gz, info = cli.get("convert-chain")
    for p in (to_mtx, to_npz):
        res = parse_json(p)
        assert res["n"] == 60 and res["m"] == A.nvals
    text = parse_text(to_gz)
    assert text["n"] == "60" and text["m"] == str(A.nvals)
    got = parse_json(info)
    assert (got["n"], got["m"]) == (base["n"], base["m"])
    assert got["components"] == base["components"]
    assert got["diameter_estimate"] == base["diameter_estimate"]
    for f in ("g.mtx", "g.npz", "g2.mtx.gz"):
        B = io.read(workdir / f)
        assert B.shape == A.shape and structure(B) == structure(A), f


def test_convert_directed(cli, workdir):
    r, c = random_directed()
    to_npz, to_mtx = cli.get("convert-directed")
    for p in (to_npz, to_mtx):
        res = parse_json(p)
        assert res["n"] == 30 and res["m"] == r.size
    assert not io.read(workdir / "dir.npz").T.new().isequal(io.read(workdir / "dir.npz"))
    assert structure(io.read(workdir / "dir2.mtx")) == set(zip(r.tolist(), c.tolist(),
                                                               strict=True))


# ---------------------------------------------------------------- algo
def center(res) -> bool:
    top = res["top"]
    assert isinstance(top, list) and len(top) == 5
    assert all(len(t) == 2 and 0 <= t[0] < 16 and t[1] > 0 for t in top)
    vals = [t[1] for t in top]
    assert vals == sorted(vals, reverse=True)
    assert top[0][0] in (5, 6, 9, 10)  # the centre of the 4x4 grid
    return True


ALGO_CHECKS = {
    "cc": lambda r: r["components"] == 1,
    "pagerank": lambda r: center(r) and all(t[1] < 1 for t in r["top"]),
    "tc": lambda r: r["triangles"] == 0,
    "sssp": lambda r: r["reached"] == 16,
    "bc": center,
}


@pytest.mark.parametrize("name", ALGOS)
def test_algo_on_grid(cli, name):
    res = parse_json(cli.one(f"algo-{name}"))
    assert res["algorithm"] == name and res["n"] == 16 and res["m"] == 48
    assert isinstance(res["time_s"], float) and res["time_s"] >= 0
    assert ALGO_CHECKS[name](res)


def test_algo_on_file_with_triangles(cli):
    assert parse_json(cli.one("algo-tc-file"))["triangles"] == 4
    text = parse_text(cli.one("algo-bfs-file-text"))
    assert text["algorithm"] == "bfs" and text["reached"] == "2"
    assert text["n"] == "7" and text["m"] == "16"


# ---------------------------------------------------------------- user errors
@pytest.mark.parametrize("key", list(ERRORS))
def test_user_errors_one_line_exit_2(cli, key):
    p = cli.one(f"error-{key}")
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("gblas"), lines[0]
    assert p.stdout == ""


def test_cuda_device_without_gpu(cli):
    if cuda_available():
        pytest.skip("a CUDA GPU is usable here")
    p = cli.one("cuda")
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gblas") and "Traceback" not in p.stderr


def test_usage_error_exit_2(cli):
    for p in cli.get("usage"):  # bad --direction choice; no command at all
        assert p.returncode == 2 and "Traceback" not in p.stderr
        assert p.stdout == ""


# ---------------------------------------------------------------- in-process / installed
def test_default_graph_is_kron18():
    from gblas import cli

    assert cli.DEFAULT_GRAPH == "kron:18"
    args = cli.build_parser().parse_args(["bfs"])
    assert args.graph is None and args.source == "random" and args.direction == "auto"


def test_main_in_process(capsys):
    from gblas import cli

    assert cli.main(["info", "grid:3x3", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["n"] == 9 and res["diameter_estimate"] == 4
    assert cli.main(["bfs", "grid:3x3", "--source", "9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gblas bfs")


def test_console_script_installed(tmp_path):
    exe = shutil.which("gblas")
    if exe is None:
        pytest.skip("the gblas console script is not installed")
    p = subprocess.run([exe, "info", "grid:4x4", "--json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert res["n"] == 16 and res["components"] == 1 and res["diameter_estimate"] == 6
    p = subprocess.run([exe, "bfs", "grid:4x4", "--source", "999"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1


def test_bfs_bvss_format_with_reorder_in_process(capsys):
    """--format bvss --reorder: the levels-only BFS runs the BVSS kernel (its name reported),
    validated in the caller's ids; --reorder without bvss is a one-line usage error."""
    from gblas import cli

    assert cli.main(["bfs", "kron:9", "--device", "cpu", "--format", "bvss", "--reorder",
                     "degree", "--sources", "2", "--validate", "--json", "--quiet"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["format"] == "bvss(reorder=degree)" and res["valid"] is True
    assert res["kernels"] == ["bvss_pull_emulated"]
    assert cli.main(["bfs", "kron:9", "--device", "cpu", "--reorder", "rcm"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--reorder needs --format bvss" in err[0]


def test_bfs_format_auto_in_process(capsys):
    """--format auto: the format the graph's statistics pick, and why, in the output."""
    from gblas import cli

    assert cli.main(["bfs", "grid:6x6", "--source", "0", "--format", "auto", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["format"] == "csr" and res["reached"] == 36
    auto = res["format_auto"]
    assert auto["chosen"] == "csr" and auto["reason"].startswith("CPU")
    assert 0 < auto["compression"] <= 1
    assert cli.main(["bfs", "grid:6x6", "--source", "0", "--format", "auto"]) == 0
    lines = {ln.split()[0] + " " + ln.split()[1]: ln for ln in
             capsys.readouterr().out.strip().splitlines()}
    assert "format auto" in lines and "CPU" in lines["format auto"]
    assert cli.main(["bfs", "grid:6x6", "--format", "auto", "--reorder", "rcm"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "takes no parameters" in err[0]
