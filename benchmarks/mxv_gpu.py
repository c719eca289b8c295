"""One GPU product y = A ⊕.⊗ x (full x) against cuSPARSE, and PageRank against the naive
cupyx loop, with the pull's variants side by side in one process (interleaved rounds).

Variants: ``segments`` (tiles, then hub rows by segments: the default), ``block`` (tiles,
then a block per hub row: ``PULL_SEGMENTS = False``), ``warp`` (a warp per row, then a
block per hub row: ``PULL_TILES = False``). Products are issued ``--batch`` at a time
between two CUDA events (the host runs ahead: device time per product); PageRank is timed
whole, synchronised.

    python3 benchmarks/mxv_gpu.py [--graphs kron:22,urand:22] [--rounds 5] [--batch 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import ops_overhead  # noqa: E402

from gblas import FP64, Vector, semiring  # noqa: E402
from gblas.algorithms import pagerank  # noqa: E402
from gblas.formats.csr import cuda as csr_cuda  # noqa: E402

VARIANTS = {"segments": (True, True), "block": (True, False), "warp": (False, False)}


def _set(variant: str) -> None:
    csr_cuda.PULL_TILES, csr_cuda.PULL_SEGMENTS = VARIANTS[variant]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graphs", default="kron:22,urand:22")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batch", type=int, default=10)
    args = ap.parse_args()
    import cupy as cp  # noqa: PLC0415
    import cupyx.scipy.sparse as csp  # noqa: PLC0415

    info = common.machine_info()
    print(f"{info['date']} {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()} "
          f"commit {info.get('commit', '?')}")
    for spec in common.expand_specs(args.graphs.split(",")):
        _graph(spec, args, cp, csp)


def _graph(spec: str, args: argparse.Namespace, cp: Any, csp: Any) -> None:
    A = common.load_graph(spec)  # noqa: N806
    S = A.to_scipy_sparse().tocsr()  # noqa: N806
    n = A.nrows
    x = cp.asarray(np.random.default_rng(1).random(n))
    # one device matrix per variant: each keeps its own plans and representations
    mats = {v: A.to("cuda:0") for v in VARIANTS}
    xs = Vector.from_dense(x, dtype=FP64, device="cuda:0")
    y = Vector(FP64, n, device="cuda:0")
    St = csp.csr_matrix(S.T.tocsr().astype(np.float64))  # noqa: N806 - pull = Aᵀ x

    def product(v: str) -> Callable[[], Any]:
        G = mats[v]  # noqa: N806
        return lambda: y.update(xs.vxm(G, semiring.plus_first))  # as PageRank

    def events(f: Callable[[], Any], variant: str | None) -> float:
        if variant is not None:
            _set(variant)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        f()
        start.record()
        for _ in range(args.batch):
            f()
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop) / args.batch * 1e3

    def whole(f: Callable[[], Any], variant: str | None) -> float:
        if variant is not None:
            _set(variant)
        f()
        cp.cuda.get_current_stream().synchronize()
        t0 = time.perf_counter()
        f()
        cp.cuda.get_current_stream().synchronize()
        return (time.perf_counter() - t0) * 1e3

    naive = ops_overhead._cupyx_pagerank(S, 0.85, 1e-9, 100)
    prod: dict[str, list[float]] = {k: [] for k in [*VARIANTS, "cusparse"]}
    pr: dict[str, list[float]] = {k: [] for k in [*VARIANTS, "cupyx"]}
    for _ in range(args.rounds):
        for v in VARIANTS:
            prod[v].append(events(product(v), v))
            pr[v].append(whole(lambda v=v: pagerank(mats[v], tol=1e-9), v))
        prod["cusparse"].append(events(lambda: St @ x, None))
        pr["cupyx"].append(whole(naive, None))
    _set("segments")
    ref = pagerank(mats["segments"], tol=1e-9).to_dense()
    for v in ("block", "warp"):
        _set(v)
        other = pagerank(mats[v], tol=1e-9).to_dense()
        assert np.allclose(ref, other, rtol=1e-9, atol=1e-15), v
    _set("segments")
    print(f"{spec}: n={n} nnz={A.nvals}; µs per product (median of {args.rounds}), "
          "PageRank ms (median)")
    for k, ts in prod.items():
        print(f"  product {k:9s} {statistics.median(ts):8.1f} µs  "
              f"({min(ts):.1f}-{max(ts):.1f})")
    for k, ts in pr.items():
        print(f"  pagerank {k:8s} {statistics.median(ts):8.2f} ms  "
              f"({min(ts):.2f}-{max(ts):.2f})")


if __name__ == "__main__":
    main()
