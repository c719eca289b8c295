"""Host time per GraphBLAS operation on small operands: gblas on the CPU and on a GPU,
python-graphblas (SuiteSparse) on the CPU, and a raw CuPy launch for scale.

A matrix of n = 4096 rows with 32 K entries and full vectors (PageRank-like); a mask with
a quarter of the positions; a sparse vector of 64 entries for the masked vxm. Each
operation runs in batches (after a warm-up); the table prints the median over batches of
the host µs per call. On the GPU nothing waits for the device inside a batch (the
operations queue kernels; the device runs them while the host issues the next), and a
``sync`` column adds one device synchronisation per call. The GPU columns also say how
many host synchronisations the operation made (CUDA stream/device synchronize and
device-to-host copies counted through CuPy's hooks where they are available).

    python3 benchmarks/ops_overhead.py [--n 4096] [--nnz 32768] [--batches 15]
                                       [--per-batch 40] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import gblas as gb  # noqa: E402
from gblas import Matrix, Vector, binary, monoid, semiring, unary  # noqa: E402


def _time(fn: Callable[[], Any], batches: int, per_batch: int,
          sync: Callable[[], None] | None = None) -> float:
    """Median over batches of the host µs per call (``sync`` after each call if given)."""
    for _ in range(3):
        fn()
    if sync is not None:
        sync()
    res = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(per_batch):
            fn()
            if sync is not None:
                sync()
        res.append((time.perf_counter() - t0) / per_batch * 1e6)
    if sync is None and sync_of_last is not None:
        sync_of_last()
    return statistics.median(res)


sync_of_last: Callable[[], None] | None = None


def inputs(n: int, nnz: int, seed: int = 1) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
    vals = rng.random(nnz)
    return {
        "n": n, "r": r, "c": c, "vals": vals,
        "u": rng.random(n), "v": rng.random(n),
        "mask": np.sort(rng.choice(n, n // 4, replace=False)),
        "sparse": np.sort(rng.choice(n, 64, replace=False)),
        "index": rng.permutation(n),
    }


def gblas_ops(d: dict[str, Any], device: str) -> dict[str, Callable[[], Any]]:
    n = d["n"]
    A = Matrix.from_coo(d["r"], d["c"], d["vals"], nrows=n, ncols=n, dup_op=binary.plus,  # noqa: N806
                        device=device)
    u = Vector.from_dense(d["u"], device=device)
    v = Vector.from_dense(d["v"], device=device)
    m = Vector.from_coo(d["mask"], True, size=n, device=device)
    s = Vector.from_coo(d["sparse"], 1.0, size=n, device=device)
    w = Vector(float, n, device=device)
    w2 = Vector.from_dense(d["u"], device=device)
    idx: Any = d["index"]
    if device != "cpu":
        import cupy  # noqa: PLC0415

        idx = cupy.asarray(idx)
    ops: dict[str, Callable[[], Any]] = {
        "ewise_add": lambda: w.update(u.ewise_add(v, binary.plus)),
        "ewise_mult": lambda: w.update(u.ewise_mult(v, binary.times)),
        "apply": lambda: w.update(u.apply(unary.abs)),
        "apply(bind)": lambda: w.update(u.apply(binary.times, right=0.5)),
        "select": lambda: w.update(u.select(">", 0.5)),
        "reduce.new()": lambda: u.reduce(monoid.plus).new(),
        "reduce.value": lambda: u.reduce(monoid.plus).new().value,
        "assign s (mask)": lambda: w2(m.S).update(1.0),
        "assign v (mask,accum)": lambda: w2(m.S, binary.plus)[:].update(u),
        "mxv": lambda: w.update(A.mxv(u, semiring.plus_times)),
        "vxm (~mask,replace)": lambda: w(~m.S, replace=True).update(
            s.vxm(A, semiring.min_plus)),
        "extract v[I]": lambda: w.update(u[idx]),
        "nvals": lambda: w.nvals,
    }
    return ops


def graphblas_ops(d: dict[str, Any]) -> dict[str, Callable[[], Any]] | None:
    try:
        import graphblas as g2  # noqa: PLC0415
    except ImportError:
        return None
    n = d["n"]
    A = g2.Matrix.from_coo(d["r"], d["c"], d["vals"], nrows=n, ncols=n,  # noqa: N806
                           dup_op=g2.binary.plus)
    u = g2.Vector.from_dense(d["u"])
    v = g2.Vector.from_dense(d["v"])
    m = g2.Vector.from_coo(d["mask"], True, size=n)
    s = g2.Vector.from_coo(d["sparse"], 1.0, size=n)
    w = g2.Vector(float, n)
    w2 = g2.Vector.from_dense(d["u"])
    idx = d["index"]

    def assign_v() -> None:
        w2(m.S, g2.binary.plus)[:] << u

    def vxm() -> None:
        w(~m.S, replace=True) << s.vxm(A, g2.semiring.min_plus)

    return {
        "ewise_add": lambda: w.update(u.ewise_add(v, g2.binary.plus)),
        "ewise_mult": lambda: w.update(u.ewise_mult(v, g2.binary.times)),
        "apply": lambda: w.update(u.apply(g2.unary.abs)),
        "apply(bind)": lambda: w.update(u.apply(g2.binary.times, right=0.5)),
        "select": lambda: w.update(u.select(">", 0.5)),
        "reduce.new()": lambda: u.reduce(g2.monoid.plus).new(),
        "reduce.value": lambda: u.reduce(g2.monoid.plus).new().value,
        "assign s (mask)": lambda: w2(m.S).update(1.0),
        "assign v (mask,accum)": assign_v,
        "mxv": lambda: w.update(A.mxv(u, g2.semiring.plus_times)),
        "vxm (~mask,replace)": vxm,
        "extract v[I]": lambda: w.update(u[idx]),
        "nvals": lambda: w.nvals,
    }


def cupy_baselines() -> dict[str, Callable[[], Any]]:
    import cupy  # noqa: PLC0415

    x = cupy.zeros(4096)
    k = cupy.RawKernel(r'extern "C" __global__ void inc(double* x, int n) {'
                       r' int i = blockIdx.x * blockDim.x + threadIdx.x;'
                       r' if (i < n) x[i] += 1.0; }', "inc")
    ew = cupy.ElementwiseKernel("float64 x", "float64 y", "y = x + 1", "gb_bench_inc")
    y = cupy.empty_like(x)
    return {
        "RawKernel launch": lambda: k((16,), (256,), (x, np.int32(4096))),
        "ElementwiseKernel": lambda: ew(x, y),
        "launch + read 1 value": lambda: (k((16,), (256,), (x, np.int32(4096))),
                                          float(x[0])),
    }


class SyncCounter:
    """Counts device synchronisations and device-to-host copies made while active, through
    CuPy's memory and stream hooks where this CuPy has them (else: not counted)."""

    def __init__(self) -> None:
        self.count = 0
        self._saved: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> SyncCounter:
        import cupy  # noqa: PLC0415

        def wrap(owner: Any, name: str) -> None:
            orig = getattr(owner, name, None)
            if orig is None:
                return

            def counted(*a: Any, **k: Any) -> Any:
                self.count += 1
                return orig(*a, **k)

            try:
                setattr(owner, name, counted)
            except (AttributeError, TypeError):
                return
            self._saved.append((owner, name, orig))

        wrap(cupy.ndarray, "get")
        wrap(cupy.cuda.Stream, "synchronize")
        wrap(cupy.cuda.Device, "synchronize")
        wrap(cupy, "asnumpy")
        wrap(cupy.cuda.runtime, "memcpy")
        wrap(cupy.cuda.runtime, "deviceSynchronize")
        wrap(cupy.cuda.runtime, "streamSynchronize")
        return self

    def __exit__(self, *exc: Any) -> None:
        for owner, name, orig in reversed(self._saved):
            setattr(owner, name, orig)


def _cupyx_pagerank(S: Any, damping: float, tol: float, max_iters: int) -> tuple[Any, int]:  # noqa: N803
    """The naive loop of benchmarks/algorithms.py: cuSPARSE SpMV on Aᵀ, one read per
    iteration."""
    import cupy as cp  # noqa: PLC0415
    import cupyx.scipy.sparse as csp  # noqa: PLC0415

    n = S.shape[0]
    AT = csp.csr_matrix(S.T.tocsr().astype(np.float64))  # noqa: N806
    deg = S.indptr[1:] - S.indptr[:-1]
    scale = cp.asarray(np.where(deg > 0, 1.0 / np.maximum(deg, 1), 0.0))
    dangling = cp.asarray((deg == 0).astype(np.float64))

    def run() -> tuple[Any, int]:
        r, dscale = cp.full(n, 1.0 / n), damping * scale
        it = 0
        for it in range(1, max_iters + 1):  # noqa: B007
            new = AT @ (r * dscale)
            new += (damping * (r @ dangling) + (1.0 - damping)) / n
            err = float(cp.abs(new - r).sum())
            r = new
            if err < n * tol:
                break
        return r, it

    return run  # type: ignore[return-value]


def _algorithms(spec: str) -> dict[str, Any]:
    """gblas PageRank and CC on the GPU against the naive cupyx PageRank (ms, median of 3)."""
    import cupy as cp  # noqa: PLC0415

    from gblas.algorithms import connected_components, pagerank  # noqa: PLC0415

    t0 = time.perf_counter()
    A = common.load_graph(spec)  # noqa: N806
    S = A.to_scipy_sparse()  # noqa: N806
    G = A.to("cuda:0")  # noqa: N806
    print(f"{spec}: n={A.nrows} nnz={A.nvals} (built in {time.perf_counter() - t0:.1f} s)")

    def timed(f: Callable[[], Any]) -> tuple[float, Any]:
        f()
        cp.cuda.get_current_stream().synchronize()
        ts, out = [], None
        for _ in range(3):
            t = time.perf_counter()
            out = f()
            cp.cuda.get_current_stream().synchronize()
            ts.append((time.perf_counter() - t) * 1e3)
        return statistics.median(ts), out

    res: dict[str, Any] = {}
    st: dict[str, Any] = {}
    res["gblas_pagerank_ms"], r = timed(lambda: pagerank(G, tol=1e-9, stats=st))
    res["gblas_pagerank_iterations"] = st["iterations"]
    naive = _cupyx_pagerank(S, 0.85, 1e-9, 100)
    res["cupyx_pagerank_ms"], (rx, its) = timed(naive)
    res["cupyx_pagerank_iterations"] = its
    res["pagerank_max_diff"] = float(np.abs(r.to_dense() - cp.asnumpy(rx)).max())
    # where PageRank's time goes: its products alone (8 of them, as many as its iterations
    # at kron:20) against cuSPARSE's, and the rest of an iteration by difference
    import cupyx.scipy.sparse as csp  # noqa: PLC0415

    n = A.nrows
    w = Vector.from_dense(np.full(n, 1.0 / n)).to("cuda:0")
    rank = Vector(gb.FP64, n, device="cuda:0")
    AT = csp.csr_matrix(S.T.tocsr().astype(np.float64))  # noqa: N806
    x = cp.full(n, 1.0 / n)

    def gblas_products() -> None:
        for _ in range(8):
            rank << w.vxm(G, semiring.plus_first)

    def cusparse_products() -> None:
        for _ in range(8):
            AT @ x

    res["gblas_8_products_ms"], _ = timed(gblas_products)
    res["cusparse_8_products_ms"], _ = timed(cusparse_products)
    res["gblas_cc_ms"], f = timed(lambda: connected_components(G))
    res["cc_components"] = int(np.unique(f.to_dense()).size)
    for k, v in res.items():
        print(f"  {k}: {v:.4g}" if isinstance(v, float) else f"  {k}: {v}")
    return res


def _profile(d: dict[str, Any], device: str, names: list[str]) -> None:
    """Where the host time of each named operation goes (cProfile, 200 calls)."""
    import cProfile  # noqa: PLC0415
    import pstats  # noqa: PLC0415

    ops = gblas_ops(d, device)
    for name in names:
        f = ops[name]
        for _ in range(3):
            f()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(200):
            f()
        prof.disable()
        print(f"--- profile of {name} on {device} (200 calls)")
        pstats.Stats(prof).sort_stats("tottime").print_stats(22)


def main() -> None:
    global sync_of_last
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--nnz", type=int, default=32768)
    ap.add_argument("--batches", type=int, default=15)
    ap.add_argument("--per-batch", type=int, default=40)
    ap.add_argument("--threads", type=int, default=None, help="Numba/BLAS/SuiteSparse threads")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--algorithms", default="", help="also time gblas PageRank and "
                    "connected components on this graph spec (kron:20) on the GPU, and a naive "
                    "cupyx PageRank loop")
    ap.add_argument("--profile", default="", help="';'-separated operations to profile "
                    "(cProfile, host side) on the GPU (else the CPU), e.g. 'ewise_add;mxv'")
    args = ap.parse_args()
    info = common.machine_info()
    d = inputs(args.n, args.nnz)
    g2 = None
    try:
        import graphblas as g2  # noqa: PLC0415
    except ImportError:
        pass
    if args.threads:
        info["threads"] = common.set_threads(args.threads, g2)
    cols: dict[str, dict[str, float]] = {}
    syncs: dict[str, int] = {}
    B, P = args.batches, args.per_batch  # noqa: N806
    cols["gblas cpu"] = {k: _time(f, B, P) for k, f in gblas_ops(d, "cpu").items()}
    peer = graphblas_ops(d)
    if peer is not None:
        cols["graphblas cpu"] = {k: _time(f, B, P) for k, f in peer.items()}
    gpu = gb._device.cuda_available()
    if gpu:
        import cupy  # noqa: PLC0415

        def sync() -> None:
            cupy.cuda.get_current_stream().synchronize()

        sync_of_last = sync
        ops = gblas_ops(d, "cuda:0")
        cols["gblas cuda"] = {k: _time(f, B, P) for k, f in ops.items()}
        cols["gblas cuda+sync"] = {k: _time(f, B, P, sync) for k, f in ops.items()}
        for k, f in ops.items():
            f()
            sync()
            with SyncCounter() as sc:
                f()
            syncs[k] = sc.count
        sync()
        info["gpu"] = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        base = {k: _time(f, B, P) for k, f in cupy_baselines().items()}
    if args.profile:
        _profile(d, "cuda:0" if gpu else "cpu", args.profile.split(";"))
    if args.algorithms and gpu:
        info["algorithms"] = _algorithms(args.algorithms)
    names = list(cols["gblas cpu"])
    heads = list(cols)
    print(f"host µs per call, n={args.n}, nnz={args.nnz} ({info['date']}, {info['cpu']}"
          + (f", {info['gpu']}" if gpu else "") + ")")
    line = f"{'operation':24s}" + "".join(f"{h:>17s}" for h in heads)
    if gpu:
        line += f"{'host syncs':>12s}"
    print(line)
    for k in names:
        row = f"{k:24s}" + "".join(f"{cols[h].get(k, float('nan')):17.1f}" for h in heads)
        if gpu:
            row += f"{syncs.get(k, -1):12d}"
        print(row)
    if gpu:
        print("CuPy alone: " + ", ".join(f"{k} {v:.1f} µs" for k, v in base.items()))
        cols["cupy"] = base
    if args.json:
        args.json.write_text(json.dumps({"info": info, "us_per_call": cols, "syncs": syncs},
                                        indent=1))


if __name__ == "__main__":
    main()
