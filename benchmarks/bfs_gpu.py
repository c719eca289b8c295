"""GPU BFS benchmark: the fused cooperative kernel, the level kernels, the level loop and a
naive SpMV BFS.

    PYTHONPATH=. python3 benchmarks/bfs_gpu.py [--graphs kron:22,kron:24,urand:22,urand:24,
        grid:2048x2048,grid:4096x4096,real] [--sources 16] [--out DIR]
        [--blest PATH_TO_BLEST_CHECKOUT]

On the same graphs and the same sources, in one process, on one CUDA device, it times

* ``fused``  gblas.algorithms.bfs with the default config: the whole search in one
             persistent cooperative kernel (gblas/formats/csr/bfs_fused.py); timed as a
             user calls it, without ``stats`` (nothing is read back: the events span the
             call's host work before the launch and the kernel), its step log taken from
             a second, untimed search,
* ``levels`` the same call under ``config.override(bfs_gpu="levels")``: the same phases as
             ordinary kernel launches, one level body replayed from a CUDA graph, the done
             flag read once per 8 levels (gblas/formats/csr/bfs_levels.py); ``syncs`` is
             its median number of host reads per search,
* ``loop``   the same call under ``config.override(bfs_gpu="ops")``: the push-pull level
             loop of masked mxv operations, with host reads every level,
* ``naive``  a plain cupyx.scipy.sparse BFS: the frontier as a float32 vector,
             y = Aᵀ·x with cuSPARSE, one fused update kernel (mask out visited, set levels,
             count), and one host read of the count per level,
* ``blest``  Blest (github.com/delbek/blest, the BVSS Tensor Core BFS) through our driver
             (benchmarks/blest.py), built from the checkout given by ``--blest PATH`` or
             ``$BLEST_DIR``, on the same graph (written from the Matrix gblas times) and
             sources; one driver process per graph runs Blest's preprocessing (reordering,
             BVSS build; ``blest prep s``) once, then its ``BVSSBFSKernel::run`` per source.
             ``blest ms`` is Blest's own timer (host wall clock around its cooperative
             kernel launch and the device synchronisation; the per-call upload is outside
             it), ``blest call ms`` the whole call. Its levels, mapped back from Blest's
             vertex order, are compared with the fused kernel's on every source. Without a
             checkout the column reads "not run (no --blest)",

levels only (``fused+par`` also times the fused kernel with parents). Each method runs once
per graph as a warm-up (compilation, transposes, degree vectors), then over the sources
back to back, each BFS timed with CUDA events; a time is the median over the sources
(``fused/blest mean``: the ratio of the means, issue 12's measure). A method that has spent
``--budget`` seconds on a graph takes no further sources (at least 3 are timed; the slow
baselines on high-diameter graphs; Blest runs every source), and the table says how many
were timed (fused/levels/loop/naive/blest). GTEPS = edges of the
reached component / time (undirected edges, i.e. stored entries / 2, for symmetric graphs;
directed edges leaving the reached set otherwise), median over sources. µs/level = time /
number of levels. ``floor`` is the bandwidth floor of the fused kernel's algorithm at
3.35 TB/s (docs/gpu_bfs_notes.md, :func:`floor_bytes`). ``lvk`` columns: the level kernels
(``levels``), ``lvk syncs`` their host reads per search. The levels of the level kernels,
the loop and the naive BFS are compared with the fused kernel's for every source they ran
(and the parents of fused vs loop and vs levels for the first source). Per graph it also
prints the fused kernel's own per-level device times (``profile``), the level kernels' call
time, device span and host reads (``profile_levels``), and the fused kernel's time with 1, 2
and 4 blocks per SM (``sweep``).

Graphs: ``kron:S``, ``urand:S`` and ``grid:RxC`` are generated on the GPU here
(:func:`gpu_kronecker`, :func:`gpu_urand`, :func:`gpu_grid2d`), bit-identical to
gblas.generators for the same arguments (the PCG64 stream is replayed on the device by
jump-ahead; tests/gpu/test_gpu_fused_bfs.py checks the identity), because the NumPy
generators need minutes for scale 24; ``real`` is every ``*.mtx.gz`` in ``$GBLAS_GRAPHS``
(default ``../shared/graphs``), read with gblas.io.mmread. Writes ``<out>/bfs_gpu.json``
and ``<out>/bfs_gpu.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import blest
import common  # first: puts the checkout on sys.path for gblas
import numpy as np

import gblas as gb
from gblas.algorithms.bfs import bfs
from gblas.backend.cuda import inline_includes
from gblas.core.matrix import Matrix
from gblas.cuda import bfs as cuda_bfs
from gblas.distributed.kron_device import jump_table, stream_words
from gblas.dtypes import BOOL
from gblas.exceptions import InvalidValue
from gblas.formats.csr.bfs_fused import fused_bfs
from gblas.formats.csr.container import CSR
from gblas.generators import _CHUNK, _LOOP, _TWO32, _check_scale, _level_probs, _rng

DEFAULT_GRAPHS = "kron:22,kron:24,urand:22,urand:24,grid:2048x2048,grid:4096x4096,real"
HBM_BYTES_PER_S = 3.35e12  # H100 SXM HBM3 datasheet
METHODS = ("fused", "levels", "loop", "naive")
CONFIG = {"fused": "fused", "levels": "levels", "loop": "ops"}  # method -> config bfs_gpu

_GEN_SOURCE = Path(__file__).with_name("bfs_gpu_kernels.cu")  # the device generators


def _cp() -> Any:
    import cupy  # noqa: PLC0415

    return cupy


_MODULE: dict[int, Any] = {}


def _kernel(name: str) -> Any:
    cp = _cp()
    dev = cp.cuda.Device().id
    if dev not in _MODULE:
        _MODULE[dev] = cp.RawModule(code=inline_includes(_GEN_SOURCE), options=("-std=c++17",))
    return _MODULE[dev].get_function(name)


def _launch(name: str, n: int, args: tuple[Any, ...]) -> None:
    blocks = int(min(max(1, (n + 255) // 256), 65536))
    _kernel(name)((blocks,), (256,), args)


# ---------------------------------------------------------------------------- generators
def _stream(rng: np.random.Generator) -> tuple[Any, ...]:
    """(state hi, lo, increment hi, lo, jump table on the device) of ``rng``'s PCG64 stream
    now (gblas/backend/pcg_kron.cuh)."""
    return (*(np.uint64(w) for w in stream_words(rng.bit_generator)),
            _cp().asarray(jump_table()))


def _keys_matrix(keys: Any, n: int, bits: int) -> Matrix:
    """gblas.generators._Keys.matrix on the device: sort, drop loops and duplicates, CSR."""
    cp = _cp()
    keys.sort()
    end = int(cp.searchsorted(keys, cp.asarray(np.array([_LOOP], dtype=np.uint64)))[0])
    keys = keys[:end]
    if end:
        first = cp.empty(end, dtype=bool)
        first[0] = True
        cp.not_equal(keys[1:], keys[:-1], out=first[1:])
        keys = keys[first]
    bounds = cp.left_shift(cp.arange(n + 1, dtype=np.uint64), np.uint64(bits))
    indptr = cp.searchsorted(keys, bounds).astype(np.int64)
    cp.bitwise_and(keys, np.uint64((1 << bits) - 1), out=keys)
    csr = CSR(n, n, indptr, keys.view(np.int64), None, BOOL, True)
    return Matrix._from_csr(csr, f"cuda:{cp.cuda.Device().id}")


def gpu_kronecker(scale: int, edge_factor: int = 16, seed: int = 0) -> Matrix:
    """gblas.generators.kronecker(scale, edge_factor, seed=seed) generated on the device
    (a=.57, b=.19, c=.19, no noise); identical CSR."""
    cp = _cp()
    scale, edge_factor = _check_scale(scale, edge_factor)
    if scale > 31:
        raise ValueError("gpu_kronecker handles scale <= 31 (uint32 vertex ids)")
    rng = _rng(seed)
    n, m = 1 << scale, edge_factor << scale
    thr = _level_probs(0.57, 0.19, 0.19, 0.0, scale, rng)
    t = np.minimum(np.floor(thr * _TWO32), _TWO32 - 1).astype(np.uint32)
    if t.size:
        t[np.isclose(thr, 1.0)] = np.uint32(2**32 - 1)
    perm = rng.permutation(n).astype(np.uint32)
    bits = max(1, (n - 1).bit_length())
    stream = _stream(rng)
    keys = cp.empty(2 * m, dtype=np.uint64)
    if m:
        _launch("kron_keys", m, (*stream, np.int64(m), np.int32(scale), np.int64(_CHUNK),
                                 cp.asarray(t.reshape(-1)), cp.asarray(perm), np.int32(bits),
                                 keys))
    return _keys_matrix(keys, n, bits)


def gpu_urand(scale: int, edge_factor: int = 16, seed: int = 0) -> Matrix:
    """gblas.generators.urand(scale, edge_factor, seed) generated on the device."""
    cp = _cp()
    scale, edge_factor = _check_scale(scale, edge_factor)
    if scale > 32:
        raise ValueError("gpu_urand handles scale <= 32")
    rng = _rng(seed)
    n, m = 1 << scale, edge_factor << scale
    bits = max(1, (n - 1).bit_length())
    stream = _stream(rng)
    keys = cp.empty(2 * m, dtype=np.uint64)
    if m:
        _launch("urand_keys", m, (*stream, np.int64(m), np.uint64(n - 1), np.int32(bits),
                                  keys))
    return _keys_matrix(keys, n, bits)


def gpu_grid2d(rows: int, cols: int) -> Matrix:
    """gblas.generators.grid2d(rows, cols) built on the device."""
    cp = _cp()
    n = rows * cols
    v = cp.arange(n, dtype=np.int64)
    h = v[(v % cols != cols - 1) & (v + 1 < n)]
    vert = v[v + cols < n]
    i = cp.concatenate([h, vert]).view(np.uint64)
    j = cp.concatenate([h + 1, vert + cols]).view(np.uint64)
    bits = max(1, (n - 1).bit_length())
    sh = np.uint64(bits)
    keys = cp.concatenate([(i << sh) | j, (j << sh) | i])
    return _keys_matrix(keys, n, bits)


def load(spec: str) -> tuple[Matrix, bool]:
    """(the graph on cuda:0, whether its pattern is symmetric)."""
    head, _, rest = spec.partition(":")
    if head in ("kron", "urand") and rest.isdigit():
        return (gpu_kronecker if head == "kron" else gpu_urand)(int(rest)), True
    if head == "grid" and rest:
        r, _, c = rest.partition("x")
        return gpu_grid2d(int(r), int(c or r)), True
    host = common.load_graph(spec)
    sym = common.is_symmetric_pattern(host.to_scipy_sparse())
    return host.to("cuda"), sym


# ---------------------------------------------------------------------------- methods
class NaiveBFS:
    """BFS by repeated SpMV with cupyx.scipy.sparse (float32, int32 indices)."""

    def __init__(self, A: Matrix) -> None:  # noqa: N803
        cp = _cp()
        import cupyx.scipy.sparse as csp  # noqa: PLC0415

        t = A._csr_T()
        self.n = A.nrows
        self.AT = csp.csr_matrix((cp.ones(t.nnz, dtype=np.float32),
                                  t.indices.astype(np.int32), t.indptr.astype(np.int32)),
                                 shape=(self.n, self.n))
        self.count = cp.zeros(1, dtype=np.uint64)

    def __call__(self, src: int) -> tuple[Any, int]:
        cp = _cp()
        n = self.n
        levels = cp.full(n, -1, dtype=np.int64)
        visited = cp.zeros(n, dtype=bool)
        x = cp.zeros(n, dtype=np.float32)
        levels[src], visited[src], x[src] = 0, True, 1.0
        k = 1
        while True:
            y = self.AT @ x
            self.count.fill(0)
            _launch("naive_update", n, (y, visited, levels, x, np.int64(n), np.int64(k),
                                        self.count))
            if int(self.count.get()[0]) == 0:  # the per-level host sync
                break
            k += 1
        return levels, k


def dense_levels(v: Any, n: int) -> Any:
    """A gblas Vector of levels as a dense device array (-1 where absent)."""
    cp = _cp()
    idx, vals = v._data.as_sparse()
    out = cp.full(n, -1, dtype=np.int64)
    out[idx] = vals
    return out


def timed(fn: Any) -> tuple[float, Any]:
    """(milliseconds between CUDA events around ``fn()``, its result)."""
    cp = _cp()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    cp.cuda.Device().synchronize()
    start.record()
    out = fn()
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end), out


def floor_bytes(levels: np.ndarray, deg: np.ndarray, directions: list[str]) -> float:
    """Bytes the fused kernel's algorithm moves at least (docs/gpu_bfs_notes.md): init and
    output 21 n; a push level 20 per frontier vertex + 12 per frontier edge + 24 per new
    vertex; a pull level n / 4 + 16 per unvisited vertex + 36 per new vertex (one
    in-neighbour read, its bitmap word, and the new vertex's writes)."""
    n = levels.shape[0]
    reached = levels >= 0
    nl = int(levels.max()) + 1 if reached.any() else 0
    cnt = np.bincount(levels[reached], minlength=nl + 1).astype(np.float64)
    edg = np.bincount(levels[reached], weights=deg[reached], minlength=nl + 1)
    total = 21.0 * n
    seen = cnt[0]
    for k, d in enumerate(directions, start=1):
        nf, ef = cnt[k - 1], edg[k - 1]
        new = cnt[k] if k < cnt.shape[0] else 0.0
        if d == "push":
            total += 20 * nf + 12 * ef + 24 * new
        else:
            total += n / 4 + 16 * (n - seen) + 36 * new
        seen += new
    return total


def profile(A: Matrix, sources: list[int]) -> dict[str, Any]:  # noqa: N803
    """One fused BFS per source through fused_bfs: device time of the kernel against the
    whole call, and the per-step device times (grid sync included) of the first source."""
    calls, kernel, first = [], [], None
    for s in sources:
        ms, (_, _, info) = timed(lambda s=s: fused_bfs(A, s))
        calls.append(ms)
        kernel.append(info["kernel_us"] / 1e3)
        if first is None:
            first = info
    st = np.array(first["step_us"])
    dirs = "".join(">" if d == "push" else "<" for d in first["directions"])
    by_dir = {d: float(st[[x == d for x in first["directions"][:st.shape[0]]]].sum())
              for d in ("push", "pull")}
    print(f"  profile source {sources[0]}: call {calls[0]:.3f} ms, kernel "
          f"{kernel[0]:.3f} ms, steps {len(first['directions'])} "
          f"{dirs if len(dirs) <= 40 else dirs[:40] + '...'}; step µs median "
          f"{np.median(st) if st.size else 0:.1f}, max {st.max() if st.size else 0:.1f}; "
          f"push {by_dir['push']:.0f} µs, pull {by_dir['pull']:.0f} µs", flush=True)
    if len(dirs) <= 40:
        print(f"    frontier {first['frontier']}\n    step µs "
              f"{[round(x, 1) for x in first['step_us']]}", flush=True)
    return {"call_ms": common.median(calls), "kernel_ms": common.median(kernel),
            "first": {"source": sources[0], "directions": dirs,
                      "frontier": first["frontier"][:400],
                      "step_us": first["step_us"][:400], "grid": first["grid"],
                      "push_us": by_dir["push"], "pull_us": by_dir["pull"]}}


def sweep(A: Matrix, sources: list[int]) -> dict[str, float]:  # noqa: N803
    """Median fused time (ms) with 1, 2 and 4 blocks per SM (4: all that fit)."""
    out = {}
    for per_sm in (1, 2, 4):
        ms = [timed(lambda s=s, b=per_sm: fused_bfs(A, s, blocks_per_sm=b))[0] for s in sources]
        out[str(per_sm)] = common.median(ms)
    print(f"  blocks/SM sweep (ms): {out}", flush=True)
    return out


def profile_levels(A: Matrix, sources: list[int]) -> dict[str, Any]:  # noqa: N803
    """The level kernels through gblas.cuda.bfs: call time against the device span, host
    reads, level bodies enqueued, and the per-level device time of the first source (the
    time between the ends of consecutive levels: launches and graph replay included)."""
    calls, kernel, first = [], [], None
    for s in sources:
        ms, (_, _, info) = timed(lambda s=s: cuda_bfs(A, s, method="levels"))
        calls.append(ms)
        kernel.append(info["kernel_us"] / 1e3)
        if first is None:
            first = info
    st = np.array(first["step_us"])
    med = float(np.median(st)) if st.size else 0.0
    print(f"  levels source {sources[0]}: call {calls[0]:.3f} ms, device span "
          f"{kernel[0]:.3f} ms, steps {len(first['directions'])}, bodies {first['bodies']}, "
          f"host reads {first['host_syncs']}, graph {first['graph']}; step µs median "
          f"{med:.1f}", flush=True)
    return {"call_ms": common.median(calls), "kernel_ms": common.median(kernel),
            "first": {"source": sources[0], "step_us": first["step_us"][:400],
                      "step_us_median": med, "host_syncs": first["host_syncs"],
                      "bodies": first["bodies"], "graph": first["graph"],
                      "grid": first["grid"]}}


# ---------------------------------------------------------------------------- driver
def blest_start(peer: blest.Blest, label: str, csr: CSR, sym: bool, *, overlap: bool
                ) -> tuple[blest.BlestRun, blest.BlestGraph]:
    """Write the graph for Blest and start its driver. With ``overlap`` the preprocessing
    runs on all host cores but one while gblas is timed (the GPU is left alone until it is
    done); otherwise this waits for it."""
    g = peer.graph(label, csr.indptr.get(), csr.indices.get(), symmetric=sym)
    threads = max(1, (os.cpu_count() or 2) - 1) if overlap else None
    run = peer.start(g, wait=False, threads=threads)
    if not overlap:
        try:
            report_blest_ready(run, g)
        except (InvalidValue, TimeoutError):
            pass  # kept by run and reported by time_blest; gblas is timed all the same
    return run, g


def report_blest_ready(run: blest.BlestRun, g: blest.BlestGraph) -> None:
    """Wait for Blest's preprocessing and print what it did."""
    r = blest.Blest.finish_start(run, g)
    cached = f" (cached; computed in {run.first_reorder_s:.1f} s)" if r.ordering_cached else ""
    print(f"  blest: {r.kernel}, {'social' if r.social else 'non-social'}, ordering "
          f"{r.ordering} {r.reorder_s:.1f} s{cached}, BVSS {r.bvss_s:.1f} s, {r.slices} "
          f"slices in {r.vsets} VSSs, waited {run.wait_s:.1f} s", flush=True)


def blest_summary(run: blest.BlestRun, g: blest.BlestGraph) -> dict[str, Any]:
    r = run.ready
    return {"prep_s": r.prep_s, "read_s": r.read_s, "csc_s": r.csc_s, "reorder_s": r.reorder_s,
            "first_reorder_s": run.first_reorder_s, "bvss_s": r.bvss_s,
            "ordering": r.ordering, "ordering_cached": r.ordering_cached, "kernel": r.kernel,
            "social": r.social, "full_padding": r.full_padding, "slices": r.slices,
            "vsets": r.vsets, "update_divergence": r.update_divergence, "device": r.device,
            "nnz": r.nnz, "write_s": g.write_s, "graph_file": str(g.path)}


def time_blest(bl: blest.BlestRun, bg: blest.BlestGraph, sources: list[int],
               ref: dict[int, Any], deg_host: np.ndarray, sym: bool,
               rows: list[dict[str, Any]]) -> int:
    """Blest over every source (after one warm-up call; no budget: the issue's targets are
    means over the sources, and a Blest search is never the slow baseline), its levels
    checked against the fused kernel's (``ref``); appends to ``rows``, returns the number
    of mismatches."""
    if not bl.waited:  # --blest-overlap: wait for the preprocessing now (or its failure)
        report_blest_ready(bl, bg)
    bl.bfs(sources[0])  # warm-up, as for the others
    bad = 0
    for s in sources:
        res = bl.bfs(s)
        edges = float(deg_host[res.level_array >= 0].sum()) / (2.0 if sym else 1.0)
        rows.append({"source": s, "ms": res.ms, "call_ms": res.call_ms, "levels": res.levels,
                     "edges": edges, "gteps": edges / (res.ms * 1e6)})
        verdict = blest.check_levels(res, ref[s].get())
        if verdict != "ok":
            bad += 1
            print(f"  MISMATCH blest vs fused levels, source {s}: {verdict}", flush=True)
    return bad


def run_graph(spec: str, nsrc: int, seed: int, budget_s: float,
              peer: blest.Blest | None = None, overlap: bool = False) -> dict[str, Any]:
    cp = _cp()
    t0 = time.perf_counter()
    A, sym = load(spec)  # noqa: N806
    cp.cuda.Device().synchronize()
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    A._csr_T()  # the pull step's transpose, cached on A (as the CLI prepares it)
    cp.cuda.Device().synchronize()
    t_transpose = time.perf_counter() - t0
    n, nnz = A.nrows, A.nvals
    csr = A._csr()
    deg = cp.diff(csr.indptr)
    deg_host = deg.get()
    sources = common.pick_sources(deg_host, nsrc, seed)
    naive = NaiveBFS(A)
    label = common.graph_label(spec)
    print(f"[{time.strftime('%H:%M:%S')}] {label}: n={n} nnz={nnz} sym={sym} load "
          f"{t_load:.1f}s transpose {t_transpose:.1f}s", flush=True)
    bl, bg = blest_start(peer, label, csr, sym, overlap=overlap) if peer else (None, None)
    try:
        return _run_graph(spec, A, sym, sources, deg, deg_host, naive, budget_s, bl, bg,
                          t_load, t_transpose)
    finally:
        if bl is not None:
            bl.close()


def _run_graph(spec: str, A: Matrix, sym: bool, sources: list[int], deg: Any,  # noqa: N803
               deg_host: np.ndarray, naive: NaiveBFS, budget_s: float,
               bl: blest.BlestRun | None, bg: blest.BlestGraph | None, t_load: float,
               t_transpose: float) -> dict[str, Any]:
    cp = _cp()
    n, nnz, label = A.nrows, A.nvals, common.graph_label(spec)

    def run(method: str, s: int, parents: bool = False) -> tuple[float, Any, dict[str, Any]]:
        st: dict[str, Any] = {}
        if method == "naive":
            ms, (lv, nlev) = timed(lambda: naive(s))
            return ms, lv, {"levels": nlev}
        with gb.config.override(bfs_gpu=CONFIG[method]):
            if method == "fused":  # the user's call reads nothing back without stats:
                # timed so, then the step log from an untimed second search
                ms, out = timed(lambda: bfs(A, s, parents=parents))
                bfs(A, s, parents=parents, stats=st)
            else:
                ms, out = timed(lambda: bfs(A, s, parents=parents, stats=st))
        return ms, out, st

    for method in METHODS:  # warm-up: compilation, transposes, degree vectors
        run(method, sources[0])
    run("fused", sources[0], parents=True)
    # each method over all sources back to back (its steady state), fused first: its
    # levels (int32, on the device) are the reference the others are compared with
    order = ("fused", "levels", "naive", *(("blest",) if bl else ()), "loop")
    rows: dict[str, list[dict[str, Any]]] = {m: [] for m in (*order, "fused+par")}
    ref: dict[int, Any] = {}
    mismatches, checked = 0, {m: 0 for m in order}
    blest_error = None
    for method in order:
        if method == "blest":
            try:
                mismatches += time_blest(bl, bg, sources, ref, deg_host, sym, rows["blest"])
            except (InvalidValue, TimeoutError) as e:  # keep gblas's results of the graph
                blest_error = f"failed: {str(e).splitlines()[0]}"
                mismatches += 1
                print(f"  blest {blest_error}", flush=True)
            checked["blest"] = len(rows["blest"])
            if not rows["blest"]:
                del rows["blest"]
            continue
        spent = 0.0
        for s in sources:
            if spent > budget_s and len(rows[method]) >= 3:
                break  # a slow baseline on a high-diameter graph: enough sources
            t0 = time.perf_counter()
            ms, out, st = run(method, s)
            spent += time.perf_counter() - t0
            lv = out if method == "naive" else dense_levels(out, n)
            reached = lv >= 0
            edges = float(deg[reached].sum()) / (2.0 if sym else 1.0)
            rows[method].append({"source": s, "ms": ms, "levels": int(st["levels"]),
                                 "edges": edges, "gteps": edges / (ms * 1e6),
                                 "directions": st.get("directions"),
                                 "host_syncs": st.get("host_syncs")})
            if method == "fused":
                ref[s] = lv.astype(np.int32)
            else:
                checked[method] += 1
                if not bool(cp.array_equal(lv.astype(np.int32), ref[s])):
                    mismatches += 1
                    print(f"  MISMATCH {method} vs fused levels, source {s}", flush=True)
    for s in sources:
        ms, (_, pip), st = run("fused", s, parents=True)
        rows["fused+par"].append({"source": s, "ms": ms, "levels": int(st["levels"])})
        if s == sources[0]:  # parents: fused against the level loop and the level kernels
            for other in ("loop", "levels"):
                with gb.config.override(bfs_gpu=CONFIG[other]):
                    _, pil = bfs(A, s, parents=True)
                if not (dense_levels(pip, n) == dense_levels(pil, n)).all():
                    mismatches += 1
                    print(f"  MISMATCH fused vs {other} parents, source {s}", flush=True)
    floors = [floor_bytes(ref[r["source"]].get().astype(np.int64), deg_host, r["directions"])
              for r in rows["fused"]]
    ref.clear()
    out: dict[str, Any] = {"graph": label, "spec": spec, "n": n, "nnz": nnz, "symmetric": sym,
                           "load_s": t_load, "transpose_s": t_transpose, "sources": sources,
                           "mismatches": mismatches, "checked_against_fused": checked,
                           "runs": rows}
    for method, rs in rows.items():
        ms = common.median(r["ms"] for r in rs)
        lev = common.median(r["levels"] for r in rs)
        out[method] = {"ms": ms, "mean_ms": float(np.mean([r["ms"] for r in rs])),
                       "levels": lev, "sources_timed": len(rs),
                       "gteps": common.median(r["gteps"] for r in rs) if "gteps" in rs[0]
                       else None,
                       "us_per_level": common.median(1e3 * r["ms"] / max(r["levels"], 1)
                                                     for r in rs),
                       "host_syncs": common.median(r["host_syncs"] for r in rs)
                       if rs[0].get("host_syncs") is not None else None}
    if "blest" in rows:
        out["blest"].update(call_ms=common.median(r["call_ms"] for r in rows["blest"]))
        out["blest_prep"] = blest_summary(bl, bg)
    if blest_error or bl is None:
        out["blest_note"] = blest_error or blest.NOT_RUN_NOTE
    fb = common.median(floors)
    out["floor"] = {"bytes": fb, "ms": 1e3 * fb / HBM_BYTES_PER_S}
    out["profile"] = profile(A, sources)
    out["profile_levels"] = profile_levels(A, sources)
    out["sweep"] = sweep(A, sources)
    blest_ms = (f"{out['blest']['ms']:.3f} ms (mean {out['blest']['mean_ms']:.3f})"
                if "blest" in out else out["blest_note"])
    print(f"  fused {out['fused']['ms']:.3f} ms (mean {out['fused']['mean_ms']:.3f}), "
          f"levels {out['levels']['ms']:.3f} ms "
          f"({out['levels']['host_syncs']} syncs), loop {out['loop']['ms']:.3f} ms, naive "
          f"{out['naive']['ms']:.3f} ms, blest {blest_ms}, levels {out['fused']['levels']}, "
          f"floor {out['floor']['ms']:.3f} ms, mismatches {mismatches}", flush=True)
    return out


def blest_cells(r: dict[str, Any]) -> list[Any]:
    """The blest columns of a graph's row: median ms, mean ms (what Blest's Benchmark
    reports), µs/level, call ms, preprocessing s (with the reordering's first computation
    when it came from the cache), fused / blest (medians), fused / blest (means: the
    issue's measure; both over every source)."""
    b = r.get("blest")
    if b is None:
        return [r.get("blest_note", blest.NOT_RUN_NOTE), "-", "-", "-", "-", "-", "-"]
    p = r["blest_prep"]
    first = p["first_reorder_s"] if p.get("first_reorder_s") is not None else p["reorder_s"]
    prep = p["csc_s"] + first + p["bvss_s"]
    return [b["ms"], b["mean_ms"], b["us_per_level"], b["call_ms"], prep,
            r["fused"]["ms"] / b["ms"], r["fused"]["mean_ms"] / b["mean_ms"]]


def table(results: list[dict[str, Any]]) -> str:
    headers = ["graph", "n", "edges", "levels", "fused ms", "fused GTEPS", "fused µs/lvl",
               "lvk ms", "lvk µs/lvl", "lvk syncs", "lvk/fused", "loop ms", "loop GTEPS",
               "loop µs/lvl", "naive ms", "naive GTEPS", "naive µs/lvl", "loop/fused",
               "blest ms", "blest mean ms", "blest µs/lvl", "blest call ms", "blest prep s",
               "fused/blest", "fused/blest mean",
               "floor ms", "fused+par ms", "src", "ok"]
    rows = []
    for r in results:
        edges = r["nnz"] / 2 if r["symmetric"] else r["nnz"]
        src = [r[m]["sources_timed"] for m in ("fused", "levels", "loop", "naive")]
        if r.get("blest") is not None:
            src.append(r["blest"]["sources_timed"])
        rows.append([r["graph"], r["n"], int(edges), r["fused"]["levels"],
                     r["fused"]["ms"], r["fused"]["gteps"], r["fused"]["us_per_level"],
                     r["levels"]["ms"], r["levels"]["us_per_level"], r["levels"]["host_syncs"],
                     r["levels"]["ms"] / r["fused"]["ms"], r["loop"]["ms"], r["loop"]["gteps"],
                     r["loop"]["us_per_level"],
                     r["naive"]["ms"], r["naive"]["gteps"], r["naive"]["us_per_level"],
                     r["loop"]["ms"] / r["fused"]["ms"], *blest_cells(r), r["floor"]["ms"],
                     r["fused+par"]["ms"], "/".join(str(x) for x in src),
                     "yes" if r["mismatches"] == 0 else "NO"])
    return common.markdown_table(headers, rows)


def start_blest(args: argparse.Namespace, device_arch: str
                ) -> tuple[blest.Blest | None, dict[str, Any]]:
    """Build Blest's driver when a checkout is given (``--blest`` or ``$BLEST_DIR``); the
    code is for ``--blest-arch``, else the device's compute capability. InvalidValue for a
    bad checkout or a failed build."""
    checkout = blest.resolve_checkout(args.blest)
    if checkout is None:
        print(f"note: blest {blest.NOT_RUN_NOTE}: give a Blest checkout with --blest PATH or "
              f"${blest.BLEST_ENV} to time it", file=sys.stderr)
        return None, {"note": blest.NOT_RUN_NOTE}
    peer = blest.Blest(checkout, Path(args.blest_build), arch=args.blest_arch or device_arch,
                       jaccard=bool(args.blest_jaccard), window=args.blest_window)
    print(f"blest: {'built' if peer.rebuilt else 'up to date'} {peer.bin} "
          f"({peer.build_s:.1f} s)", flush=True)
    return peer, {**peer.meta(), "overlap": bool(args.blest_overlap)}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graphs", default=DEFAULT_GRAPHS,
                    help="comma-separated specs (kron:S, urand:S, grid:RxC, a file, 'real')")
    ap.add_argument("--sources", type=int, default=16, help="sources per graph (16)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the source choice")
    ap.add_argument("--budget", type=float, default=20.0,
                    help="seconds per graph and method after which a method stops taking "
                         "new sources (at least 3 are timed; 20)")
    ap.add_argument("--out", default=str(common.ROOT / "bench_out"), help="output directory")
    ap.add_argument("--blest", metavar="PATH", default=None,
                    help=f"Blest source checkout (github.com/delbek/blest): build our driver "
                         f"against it and time Blest as the blest column (default "
                         f"${blest.BLEST_ENV}; without either: not run)")
    ap.add_argument("--blest-build", metavar="DIR", default=str(blest.BUILD_ROOT),
                    help="where the driver and the graph files go (default %(default)s, "
                         "git-ignored)")
    ap.add_argument("--blest-arch", default=None,
                    help="nvcc arch digits for the driver (default: the device's compute "
                         "capability, 90 on H100/H200)")
    ap.add_argument("--blest-jaccard", type=int, choices=(0, 1), default=1,
                    help="Blest's -j: Jaccard-with-windows ordering of social graphs (1)")
    ap.add_argument("--blest-window", type=int, default=blest.DEFAULT_WINDOW,
                    help="Blest's -w: the Jaccard window (%(default)s)")
    ap.add_argument("--blest-overlap", action="store_true",
                    help="run Blest's CPU preprocessing of a graph (all cores but one) while "
                         "gblas is timed on it, instead of before; saves wall time, but "
                         "perturbs every host-bound time, the fused call's included (kron:22 "
                         "0.72 -> 0.93 ms median): not for tables")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    cp = _cp()
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    info = common.machine_info()
    info.update(device=name, cupy=cp.__version__, sms=props["multiProcessorCount"],
                hbm_bytes_per_s=HBM_BYTES_PER_S)
    print(f"device {name}, CuPy {cp.__version__}, commit {info['commit']}"
          f"{' (dirty)' if info['dirty'] else ''}", flush=True)
    try:
        peer, info["blest"] = start_blest(args, f"{props['major']}{props['minor']}")
    except InvalidValue as e:  # a bad checkout or a failed build: say so, run nothing
        print(f"error: {e}", file=sys.stderr)
        return 2
    specs = common.expand_specs(args.graphs.split(","))
    results, t_start = [], time.perf_counter()
    for spec in specs:
        try:
            results.append(run_graph(spec, args.sources, args.seed, args.budget, peer,
                                     args.blest_overlap))
        except Exception as e:  # noqa: BLE001 - report and go on with the next graph
            print(f"  FAILED {spec}: {type(e).__name__}: {e}", flush=True)
        cp.get_default_memory_pool().free_all_blocks()  # the graph is gone: its memory too
    md = table(results)
    print(f"\ntotal {time.perf_counter() - t_start:.0f} s\n")
    print(md)
    out = Path(args.out)
    common.write_json(out / "bfs_gpu.json", {"machine": info, "results": results})
    common.write_text(out / "bfs_gpu.md", md + "\n")
    bad = sum(r["mismatches"] for r in results) + len(specs) - len(results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
