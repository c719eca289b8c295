"""Device time per GraphBLAS operation on large operands, against the bytes it must move.

ops_overhead.py measures the host's fixed cost per call on small operands; this measures
the other end: one operation on a graph-sized matrix (default: a random n × n matrix of
16·n FP64 entries, n = 2²²) and 4 M-element vectors, timed with a device synchronisation
around each call (median of ``--reps``). Each row also gives the fewest bytes the operation
must read and write (each input read once, each output written once, 8-byte values and
indices) and the time those bytes take at ``--bandwidth`` GB/s (default: a 256 MB copy
measured on the device at the start), so an operation that does
far more work than its data needs (a reduction folded by one thread, a sort where a scan
would do, a host round trip) stands out in the ``x floor`` column. A naive CuPy equivalent
runs beside the GraphBLAS call where there is one.

    python3 benchmarks/ops_scale.py [--scale 22] [--degree 16] [--reps 5]
                                    [--device cuda|cpu] [--bandwidth GB/s] [--json out.json]
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

from gblas import (  # noqa: E402
    FP64,
    Matrix,
    Vector,
    binary,
    monoid,
    select,
    semiring,
    unary,
)


def _timer(device: str) -> tuple[Callable[[], None], Any]:
    if device == "cpu":
        return (lambda: None), np
    import cupy as cp  # noqa: PLC0415

    return cp.cuda.Device().synchronize, cp


def _median_ms(fn: Callable[[], Any], sync: Callable[[], None], reps: int) -> float:
    return statistics.median(common.synced_times(fn, sync, reps)) * 1e3


def cases(n: int, nnz: int, device: str, seed: int) -> list[tuple[str, float, Callable, Any]]:
    """(name, bytes it must move, the gblas call, a naive xp call or None)."""
    _, xp = _timer(device)
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
    A = Matrix.from_coo(r, c, rng.random(nnz), nrows=n, ncols=n, dup_op=binary.plus,  # noqa: N806
                        device=device)
    B = Matrix.from_coo(rng.integers(0, n, nnz), rng.integers(0, n, nnz),  # noqa: N806
                        rng.random(nnz), nrows=n, ncols=n, dup_op=binary.plus, device=device)
    e = A.nvals  # after duplicates folded
    u = Vector.from_dense(rng.random(n), device=device)
    v = Vector.from_dense(rng.random(n), device=device)
    half = Vector.from_coo(np.sort(rng.choice(n, n // 2, replace=False)), 1.0, size=n,
                           device=device)
    m = Vector.from_coo(np.sort(rng.choice(n, n // 4, replace=False)), True, size=n,
                        device=device)
    front = Vector.from_coo(np.sort(rng.choice(n, n // 100, replace=False)), 1.0, size=n,
                            device=device)
    w = Vector(FP64, n, device=device)
    perm = rng.permutation(n)
    perm_x = xp.asarray(perm)
    x_vals = xp.asarray(A.to_coo()[2])
    x_rows, x_cols = (xp.asarray(a) for a in A.to_coo()[:2])
    x_u = xp.asarray(u.to_dense())
    vec = 8.0 * n
    mat = 16.0 * e  # a column index and a value an entry
    return [
        ("A.reduce_scalar(plus)", 8 * e, lambda: A.reduce_scalar(monoid.plus).new(),
         lambda: x_vals.sum()),
        ("A.reduce_rowwise(plus)", mat + 2 * vec, lambda: A.reduce_rowwise(monoid.plus).new(),
         None),
        ("A.reduce_columnwise(plus)", mat + 2 * vec,
         lambda: A.reduce_columnwise(monoid.plus).new(), None),
        ("A.apply(abs)", 2 * mat, lambda: A.apply(unary.abs).new(), lambda: xp.abs(x_vals)),
        ("A.apply(times, 2)", 2 * mat, lambda: A.apply(binary.times, right=2.0).new(),
         lambda: x_vals * 2.0),
        ("A.select(tril)", 2 * mat, lambda: A.select(select.tril).new(),
         lambda: x_vals[x_cols <= x_rows]),
        ("A.select(> 0.5)", 1.5 * mat, lambda: A.select(">", 0.5).new(),
         lambda: x_vals[x_vals > 0.5]),
        ("A.ewise_add(B)", 4 * mat, lambda: A.ewise_add(B, binary.plus).new(), None),
        ("A.ewise_mult(B)", 2 * mat, lambda: A.ewise_mult(B, binary.times).new(), None),
        ("A.T.new()", 2 * mat, lambda: A.T.new(), None),
        ("A[p, p]", 2 * mat, lambda: A[perm, perm].new(), None),
        ("A.mxv(u) plus_times", mat + 2 * vec, lambda: w.update(A.mxv(u, semiring.plus_times)),
         None),
        ("u.vxm(A) plus_times", mat + 2 * vec, lambda: w.update(u.vxm(A, semiring.plus_times)),
         None),
        ("front.vxm(A) min_plus (1 %)", 0.01 * mat + 2 * vec,
         lambda: w.update(front.vxm(A, semiring.min_plus)), None),
        ("A.nvals of a new A.T", 2 * mat, lambda: A.T.new().nvals, None),
        ("u.ewise_add(half)", 3.5 * vec, lambda: w.update(u.ewise_add(half, binary.plus)),
         None),
        ("u.ewise_mult(v)", 3 * vec, lambda: w.update(u.ewise_mult(v, binary.times)),
         lambda: x_u * x_u),
        ("u.apply(abs)", 2 * vec, lambda: w.update(u.apply(unary.abs)), lambda: xp.abs(x_u)),
        ("u.select(> 0.5)", 2 * vec, lambda: w.update(u.select(">", 0.5)), None),
        ("u.reduce(plus).value", vec, lambda: u.reduce(monoid.plus).new().value,
         lambda: float(x_u.sum())),
        ("w(m.S) << 1.0", vec, lambda: w(m.S).update(1.0), None),
        ("w(m.S, plus)[:] << u", 3 * vec, lambda: w(m.S, binary.plus)[:].update(u), None),
        ("u[perm]", 3 * vec, lambda: w.update(u[perm_x]), lambda: x_u[perm_x]),
        ("u.isequal(v)", 2 * vec, lambda: u.isequal(v), None),
        ("u.dup()", 2 * vec, lambda: u.dup(), lambda: x_u.copy()),
    ]


def copy_bandwidth(xp: Any, sync: Callable[[], None], nbytes: int = 1 << 28) -> float:
    """GB/s of a large copy on the device (bytes read plus bytes written), the best of 5."""
    a = xp.ones(nbytes // 8, dtype=np.float64)
    b = xp.empty_like(a)
    best = float("inf")
    for _ in range(5):
        sync()
        t0 = time.perf_counter()
        b[...] = a
        sync()
        best = min(best, time.perf_counter() - t0)
    return 2 * nbytes / best / 1e9


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--degree", type=int, default=16)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--bandwidth", type=float, default=None,
                    help="GB/s for the floor (default: a large copy measured on the device)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    n = 1 << args.scale
    sync, xp = _timer(args.device)
    if args.bandwidth is None:
        args.bandwidth = copy_bandwidth(xp, sync)
    rows = []
    print(f"n = {n}, {args.degree * n} entries drawn, {args.device}, "
          f"{common.machine_info().get('gpu') or common.cpu_model()}, floor at "
          f"{args.bandwidth:.0f} GB/s")
    print(f"{'operation':32s} {'gblas ms':>10s} {'naive ms':>10s} {'floor ms':>9s} "
          f"{'x floor':>8s}")
    for name, nbytes, fn, naive in cases(n, args.degree * n, args.device, args.seed):
        ms = _median_ms(fn, sync, args.reps)
        nv = _median_ms(naive, sync, args.reps) if naive is not None else float("nan")
        floor = nbytes / (args.bandwidth * 1e9) * 1e3
        rows.append({"op": name, "ms": ms, "naive_ms": None if naive is None else nv,
                     "floor_ms": floor, "bytes": nbytes})
        print(f"{name:32s} {ms:10.3f} {nv:10.3f} {floor:9.3f} {ms / floor:8.1f}", flush=True)
    if args.json:
        common.write_json(args.json, {"machine": common.machine_info(), "args": vars(args),
                                      "rows": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
