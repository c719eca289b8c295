"""GAPBS (the GAP Benchmark Suite's C++ BFS) as a measured peer of ``bfs_cpu.py``.

Given a GAPBS source checkout (``--gapbs PATH`` or ``$GAPBS_DIR``), this module

1. builds GAPBS's ``bfs`` and ``converter`` with GAPBS's own Makefile (``-O3 -fopenmp``) in a
   git-ignored folder of this repository (``build/gapbs/``), once; ``make`` rebuilds only
   when the checkout's sources change,
2. writes the very Matrix that gblas times as a text edge list (``u v`` per line, 0-based
   ids) and turns it into GAPBS's binary ``.sg`` with ``converter``. A symmetric pattern is
   written once per edge (``u < v``) and converted with ``-s``, so GAPBS stores it as an
   undirected graph (its ``-s`` adds the reverse of every edge, and ``converter`` then
   writes an undirected ``.sg``); any other pattern is written whole, without ``-s``, and
   GAPBS keeps its in-edges for the pull steps. GAPBS does not relabel vertices here (only
   its ``tc`` kernel does): a vertex id in the file is the gblas row index. Its vertex count
   is the largest id + 1, so trailing isolated vertices drop out, which changes no search
   from a vertex with edges. The ``.sg`` is cached under the matrix's content hash,
3. runs ``bfs -f g.sg -r SOURCE -n TRIALS -a`` per source with ``OMP_NUM_THREADS`` set,
   reads the per-trial times GAPBS prints (its timer covers the search only, not the graph
   load) and the size of the BFS tree (``-a``), and, with ``verify=True``, GAPBS's own
   verifier (``-v``: a serial BFS that checks the parent tree).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import common  # first: puts the checkout on sys.path for gblas
import numba
import numpy as np

from gblas.exceptions import IndexOutOfBound, InvalidValue

GAPBS_ENV = "GAPBS_DIR"
BUILD_ROOT = common.ROOT / "build" / "gapbs"
NOT_RUN_NOTE = "not run (no --gapbs)"
TOOLS = ("bfs", "converter")
# what a checkout must hold for the build (the Makefile includes the two .mk files)
CHECKOUT_FILES = ("Makefile", "src/bfs.cc", "src/converter.cc", "test/test.mk",
                  "benchmark/bench.mk")
EDGE_CHUNK = 1 << 22  # edges formatted per Numba call: bounds the text buffer (~90 MB)

_TRIAL = re.compile(r"^Trial Time:\s+([0-9.]+)\s*$", re.M)
_VERIFY = re.compile(r"^Verification:\s+(PASS|FAIL)\s*$", re.M)
_TREE = re.compile(r"^BFS Tree has (\d+) nodes and (\d+) edges\s*$", re.M)
_GRAPH = re.compile(r"^Graph has (\d+) nodes and (\d+) (un)?directed edges", re.M)


# ---------------------------------------------------------------------------- checkout, build
def resolve_checkout(path: str | os.PathLike[str] | None) -> Path | None:
    """The GAPBS checkout: ``path``, else ``$GAPBS_DIR``, else None (GAPBS not run).

    A path that is given but is not a GAPBS source tree raises InvalidValue.
    """
    return common.resolve_checkout(path, GAPBS_ENV, CHECKOUT_FILES, "GAPBS", "https://github.com/sbeamer/gapbs")


def build(checkout: Path, build_root: Path = BUILD_ROOT) -> Path:
    """Build ``bfs`` and ``converter`` with GAPBS's Makefile; returns their folder.

    The folder (one per checkout path) links the checkout's ``src``, ``test``, ``benchmark``
    and ``Makefile``, so the Makefile's rule and includes work unchanged while the binaries
    land outside the checkout. ``make`` skips the build when the binaries are up to date.
    """
    tag = hashlib.sha1(str(checkout).encode()).hexdigest()[:10]
    out = Path(build_root) / f"bin-{tag}"
    out.mkdir(parents=True, exist_ok=True)
    for name in ("Makefile", "src", "test", "benchmark"):
        link = out / name
        if link.is_symlink() or link.exists():
            if link.resolve() == (checkout / name).resolve():
                continue
            link.unlink()
        link.symlink_to(checkout / name)
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        raise InvalidValue(f"no C++ compiler: {os.environ.get('CXX', 'g++')} is not on PATH "
                           "(GAPBS needs g++ with OpenMP)")
    proc = subprocess.run(["make", "-C", str(out), *TOOLS], capture_output=True, text=True)
    if proc.returncode != 0:
        raise InvalidValue(f"building GAPBS in {out} failed (make exit {proc.returncode}):\n"
                           + (proc.stdout + proc.stderr)[-2000:])
    return out


# ---------------------------------------------------------------------------- edge lists
def edges_from_csr(indptr: np.ndarray, indices: np.ndarray, *, symmetric: bool
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(sources, targets) of a CSR pattern without self-loops; ``u < v`` only if symmetric.

    GAPBS drops self-loops and duplicates when it builds a graph, and so does a BFS's level
    sequence: leaving them out here keeps the edge counts of both sides comparable.
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    cols = np.asarray(indices, dtype=np.int64)
    rows = np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))
    keep = rows < cols if symmetric else rows != cols
    return rows[keep], cols[keep]


@numba.njit(cache=True, nogil=True)
def _put_int(buf: np.ndarray, pos: int, x: int, tmp: np.ndarray) -> int:
    k = 0
    while True:
        tmp[k] = 48 + x % 10
        x //= 10
        k += 1
        if x == 0:
            break
    for j in range(k - 1, -1, -1):
        buf[pos] = tmp[j]
        pos += 1
    return pos


@numba.njit(cache=True, nogil=True)
def _format_edges(u: np.ndarray, v: np.ndarray, width: int) -> np.ndarray:
    """The bytes of ``"u v\\n"`` lines; ``width`` = digits of the largest id."""
    buf = np.empty(u.size * (2 * width + 2), dtype=np.uint8)
    tmp = np.empty(20, dtype=np.uint8)
    pos = 0
    for k in range(u.size):
        pos = _put_int(buf, pos, u[k], tmp)
        buf[pos] = 32  # ' '
        pos = _put_int(buf, pos + 1, v[k], tmp)
        buf[pos] = 10  # '\n'
        pos += 1
    return buf[:pos]


def write_edge_list(path: str | os.PathLike[str], rows: np.ndarray, cols: np.ndarray) -> int:
    """Write ``rows[k] cols[k]`` lines (GAPBS's ``.el``: 0-based, one edge a line).

    Returns the number of edges written. Ids must be non-negative integers.
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    if rows.shape != cols.shape or rows.ndim != 1:
        raise InvalidValue(f"rows and cols must be 1-d arrays of one length; got shapes "
                           f"{rows.shape} and {cols.shape}")
    if rows.size and min(int(rows.min()), int(cols.min())) < 0:
        raise InvalidValue("vertex ids must be >= 0; got a negative id")
    width = len(str(max(int(rows.max()), int(cols.max())))) if rows.size else 1
    with open(path, "wb") as f:
        for lo in range(0, rows.size, EDGE_CHUNK):
            hi = min(lo + EDGE_CHUNK, rows.size)
            f.write(_format_edges(rows[lo:hi], cols[lo:hi], width).tobytes())
    return int(rows.size)


# ---------------------------------------------------------------------------- GAPBS output
@dataclass
class BfsOutput:
    """What one ``bfs`` run printed."""

    trial_s: list[float]
    verified: list[bool] = field(default_factory=list)  # one per trial with -v
    tree_nodes: int | None = None  # -a: vertices reached, source included
    tree_edges: int | None = None  # -a: out-degrees summed over the reached vertices
    graph_nodes: int | None = None
    graph_edges: int | None = None  # undirected edges, or directed if not symmetrised
    directed: bool | None = None

    @property
    def best_ms(self) -> float:
        return min(self.trial_s) * 1e3


def parse_graph_line(text: str) -> tuple[int, int, bool] | None:
    """(nodes, edges, directed) from GAPBS's ``Graph has N nodes and M ... edges`` line."""
    m = _GRAPH.search(text)
    return None if m is None else (int(m.group(1)), int(m.group(2)), m.group(3) is None)


def parse_bfs_output(text: str) -> BfsOutput:
    """Parse the standard output of GAPBS's ``bfs`` (``-n`` trials, optionally -a, -v)."""
    trials = [float(t) for t in _TRIAL.findall(text)]
    if not trials:
        raise InvalidValue("GAPBS bfs output has no 'Trial Time:' line; expected one per "
                           f"trial (-n), got:\n{text[-1000:]}")
    out = BfsOutput(trial_s=trials, verified=[v == "PASS" for v in _VERIFY.findall(text)])
    tree = _TREE.search(text)
    if tree:
        out.tree_nodes, out.tree_edges = int(tree.group(1)), int(tree.group(2))
    g = parse_graph_line(text)
    if g:
        out.graph_nodes, out.graph_edges, out.directed = g
    return out


# ---------------------------------------------------------------------------- graphs and runs
@dataclass
class GapbsGraph:
    """A gblas graph converted to GAPBS's ``.sg``."""

    path: Path
    nodes: int  # GAPBS's vertex count (largest id with an edge + 1)
    edges: int  # as GAPBS counts them: undirected edges if symmetric, else directed
    directed: bool
    convert_s: float  # writing the edge list and converting (0 when cached)


class Gapbs:
    """Built GAPBS tools plus a cache of converted graphs; runs ``bfs`` with ``threads``."""

    def __init__(self, checkout: Path, threads: int, build_root: Path = BUILD_ROOT,
                 timeout_s: float = 1800.0) -> None:
        self.checkout = checkout
        self.threads = int(threads)
        self.timeout_s = timeout_s
        t0 = time.perf_counter()
        self.bin = build(checkout, Path(build_root))
        self.build_s = time.perf_counter() - t0
        self.graphs = Path(build_root) / "graphs"
        self.graphs.mkdir(parents=True, exist_ok=True)
        self.commit = _git_head(checkout)

    def _env(self) -> dict[str, str]:
        return {**os.environ, "OMP_NUM_THREADS": str(self.threads)}

    def convert(self, label: str, indptr: np.ndarray, indices: np.ndarray, *,
                symmetric: bool) -> GapbsGraph:
        """The ``.sg`` of a CSR pattern (built once, then reused by content hash)."""
        h = hashlib.blake2b(digest_size=8)
        h.update(np.asarray(indptr, dtype=np.int64).tobytes())
        h.update(np.asarray(indices, dtype=np.int64).tobytes())
        h.update(b"sym" if symmetric else b"dir")
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", label) + "-" + h.hexdigest()
        sg, info = self.graphs / f"{stem}.sg", self.graphs / f"{stem}.txt"
        t0 = time.perf_counter()
        if not (sg.is_file() and info.is_file()):
            el = self.graphs / f"{stem}.el"
            rows, cols = edges_from_csr(indptr, indices, symmetric=symmetric)
            write_edge_list(el, rows, cols)
            del rows, cols
            cmd = [str(self.bin / "converter"), "-f", str(el), "-b", str(sg)]
            if symmetric:
                cmd.insert(3, "-s")
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, env=self._env(),
                                      timeout=self.timeout_s)
            finally:
                el.unlink(missing_ok=True)
            if proc.returncode != 0 or not sg.is_file():
                sg.unlink(missing_ok=True)
                raise InvalidValue(f"GAPBS converter failed on {label} (exit "
                                   f"{proc.returncode}): {(proc.stdout + proc.stderr)[-1000:]}")
            info.write_text(proc.stdout)
        parsed = parse_graph_line(info.read_text())
        if parsed is None:
            raise InvalidValue(f"{info} has no 'Graph has N nodes and M edges' line")
        nodes, edges, directed = parsed
        return GapbsGraph(sg, nodes, edges, directed, time.perf_counter() - t0)

    def run(self, g: GapbsGraph, source: int, trials: int = 1, *,
            verify: bool = False) -> BfsOutput:
        """``bfs -f g.sg -r source -n trials -a [-v]``, parsed."""
        check_run_args(g, source, trials)
        cmd = [str(self.bin / "bfs"), "-f", str(g.path), "-r", str(int(source)),
               "-n", str(int(trials)), "-a"] + (["-v"] if verify else [])
        proc = subprocess.run(cmd, capture_output=True, text=True, env=self._env(),
                              timeout=self.timeout_s)
        if proc.returncode != 0:
            raise InvalidValue(f"GAPBS bfs exited with {proc.returncode}: "
                               f"{' '.join(cmd)}\n{(proc.stdout + proc.stderr)[-1000:]}")
        return parse_bfs_output(proc.stdout)


def check_run_args(g: GapbsGraph, source: int, trials: int) -> None:
    """GAPBS reads ``-r`` unchecked (an id past its last vertex is undefined behaviour), so
    the source and trial count are checked here."""
    if not 0 <= int(source) < g.nodes:
        raise IndexOutOfBound(f"source {source} is outside GAPBS's graph {g.path.name}, "
                              f"which has vertices 0..{g.nodes - 1} (up to the largest id "
                              "with an edge); pick a source with out-degree > 0")
    if int(trials) < 1:
        raise InvalidValue(f"trials must be >= 1; got {trials}")


def _git_head(path: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(path), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def check_tree(out: BfsOutput, reached: int, edges: int) -> str:
    """'ok', or how GAPBS's BFS tree (``-a``) differs from gblas's reached set.

    ``reached``: vertices gblas reached; ``edges``: their out-degrees summed, self-loops
    left out (GAPBS drops them). Equal counts from the same source are what a relabelled or
    differently symmetrised graph would not give.
    """
    if out.tree_nodes is None:
        return "no 'BFS Tree' line (-a)"
    if out.tree_nodes != reached:
        return f"reached {out.tree_nodes} vertices, gblas {reached}"
    if out.tree_edges != edges:
        return f"reached edges {out.tree_edges}, gblas {edges}"
    if out.verified and not all(out.verified):
        return "GAPBS verifier: FAIL"
    return "ok"
