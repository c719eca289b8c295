"""SSSP on the GPU with the atomic push's density threshold swept, against the naive cupyx
Bellman-Ford of benchmarks/algorithms.py (same graph, integer weights 1..255 and source).

``gblas.ops.mxv._DEVICE_ATOMIC_PUSH`` is the density of x under which a product whose
monoid folds in any order (min, max, integer plus) pushes on the device with one atomic a
frontier edge; 0 pulls every round (the behaviour before the push). Each threshold is
timed in the same process (median and best of ``--reps`` synchronised calls after one
untimed call), and every result is compared with the first.

    python3 benchmarks/sssp_push_gpu.py [--graphs kron:22,urand:22]
                                        [--thresholds 0,0.01,0.05,0.1,0.2] [--reps 5]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import gblas.ops.mxv as mxv  # noqa: E402
from gblas.algorithms import sssp  # noqa: E402


def _timed(fn: Callable[[], Any], reps: int, sync: Callable[[], None]) -> tuple[float, float]:
    """(median, best) ms of ``reps`` synchronised calls after one untimed call."""
    ts = common.synced_times(fn, sync, reps)
    return float(np.median(ts)) * 1e3, min(ts) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graphs", default="kron:22,urand:22")
    ap.add_argument("--thresholds", default="0,0.01,0.05,0.1,0.2")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    import cupy as cp  # noqa: PLC0415

    bench = common.algorithms_module()
    sync = cp.cuda.Device().synchronize
    kept = mxv._DEVICE_ATOMIC_PUSH
    for spec in common.expand_specs(args.graphs.split(",")):
        g = bench.Graph(spec, 1)
        src = common.pick_sources(g.deg, 1, 1)[0]
        W = g.W.to("cuda")  # noqa: N806
        naive = bench.NaiveCupy(g)
        nt = _timed(lambda: naive.sssp(src), args.reps, sync)  # noqa: B023
        first = None
        rows = []
        try:
            for th in (float(t) for t in args.thresholds.split(",")):
                mxv._DEVICE_ATOMIC_PUSH = th
                d = sssp(W, src).to("cpu").to_dense(fill_value=np.inf)
                first = d if first is None else first
                t = _timed(lambda: sssp(W, src), args.reps, sync)  # noqa: B023
                rows.append((th, t, bool(np.array_equal(d, first))))
        finally:
            mxv._DEVICE_ATOMIC_PUSH = kept
        same = bool(np.array_equal(cp.asnumpy(naive.sssp(src)), first))
        print(f"{spec}: n={g.n} m={g.m} source {src}; cupyx {nt[0]:.2f} ms (best {nt[1]:.2f}), "
              f"same distances as gblas: {same}")
        for th, (med, best), ok in rows:
            print(f"  threshold {th:<5}: gblas {med:.2f} ms (best {best:.2f}), "
                  f"/cupyx {med / nt[0]:.2f}, same as the first: {ok}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
