"""Where the time of one fused GPU BFS call goes, outside the kernel (not a test).

    PYTHONPATH=. python3 benchmarks/bfs_call_overhead.py [--graphs kron:16,kron:22] [--calls 50]

For each graph it runs the steps of ``gblas.formats.csr.bfs_fused.fused_bfs`` one by one
from the same source, synchronising only where the call itself waits, and reports the
median over ``--calls`` calls (µs) of:

* ``setup``   host time from the call's start to the launch: the scratch lookup
              (``Work.reused``) with its prepared launches, the outputs (made ahead by the
              search before, ``Work.after_search``, which also zeroes the counters);
* ``launch``  host time of the cooperative launch itself (of the three, on graphs whose
              pull levels run in a launch of their own: ``bfs_fused._launch_plan``);
* ``wait``    from the launch's return to the step log's arrival (kernel + copy);
* ``results`` building the result vectors and ``info`` from the log, and making the
              next search's outputs;
* ``kernel``  the kernel's own clock (``info["kernel_us"]``) and ``events`` the CUDA-event
              time around the launch (launch latency and ramp included);
* ``call``    ``fused_bfs(...)`` and ``bfs(...)`` (gblas.algorithms, the user's call) each
              timed whole, synchronised.

The difference ``call - kernel`` is what a kernel timer (Blest's) does not count.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bfs_gpu  # noqa: E402 - puts gblas on sys.path, loads graphs on the GPU
import common  # noqa: E402

from gblas.algorithms.bfs import bfs  # noqa: E402
from gblas.formats.csr import bfs_fused as bf  # noqa: E402


def stages(A, src: int) -> dict[str, float]:  # noqa: ANN001, N803
    """One call's stages, as fused_bfs runs them (auto direction, levels only), with the
    launches the warm-up's fused_bfs(A, src) prepared on the scratch."""
    cp = bfs_gpu._cp()
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    t0 = time.perf_counter()
    w = bf.Work.reused(A, "auto", bf._CTR_WORDS)
    prep = next(p for k, p in w.prepared.items() if k[0].step_log and not k[0].parents)
    w.take_outputs(False)
    t1 = time.perf_counter()
    ev0.record()
    values = (src, *w.out_ptrs, 0)
    for launch in prep.launches:  # one launch, or three (the pull levels' build)
        launch(values)
    ev1.record()
    t2 = time.perf_counter()
    head = w.meta[:8].get()  # the wait: kernel, then the copy
    t3 = time.perf_counter()
    _, _, info, _ = w.results(A, False, block_steps=True, async_search=prep.use_async)
    w.after_search(False)
    t4 = time.perf_counter()
    w.release()
    ev1.synchronize()
    assert int(head[1]) == info["reached"]
    return {"setup": (t1 - t0) * 1e6, "launch": (t2 - t1) * 1e6, "wait": (t3 - t2) * 1e6,
            "results": (t4 - t3) * 1e6, "kernel": info["kernel_us"],
            "events": cp.cuda.get_elapsed_time(ev0, ev1) * 1e3}


def timed(fn, calls: int) -> float:  # noqa: ANN001
    cp = bfs_gpu._cp()
    ts = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        ts.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(ts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", default="kron:16,kron:22")
    ap.add_argument("--calls", type=int, default=50)
    args = ap.parse_args()
    print(common.machine_info())
    cols = ("setup", "launch", "wait", "results", "kernel", "events")
    print(f"{'graph':>10} " + " ".join(f"{c:>8}" for c in cols)
          + f" {'fused_bfs':>10} {'bfs()':>8}   (µs, median of {args.calls})")
    for spec in common.expand_specs(args.graphs.split(",")):
        A, _ = bfs_gpu.load(spec)  # noqa: N806
        A._csr_T()
        deg = bfs_gpu._cp().diff(A._csr().indptr).get()
        src = int(common.pick_sources(deg, 1, 1)[0])
        for _ in range(3):  # compile, warm the scratch and the pinned log
            bf.fused_bfs(A, src)
            bfs(A, src)
            stages(A, src)
        rows = [stages(A, src) for _ in range(args.calls)]
        med = {c: statistics.median(r[c] for r in rows) for c in cols}
        call = timed(lambda: bf.fused_bfs(A, src), args.calls)  # noqa: B023
        user = timed(lambda: bfs(A, src), args.calls)  # noqa: B023
        print(f"{spec:>10} " + " ".join(f"{med[c]:8.1f}" for c in cols)
              + f" {call:10.1f} {user:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
