"""Storage of CSR, Sell-C-σ and SlimSell, and the SlimWork effect on BFS-SpMV, per BFS
iteration, on the CPU and the GPU (Besta et al., IPDPS'17, Fig. 5d).

    python3 benchmarks/formats.py [--graphs kron:16,kron:18,urand:16,urand:18,grid:512x512,real]
                                  [--C 8,32] [--out bench_out] [--tag ""] [--no-timing]
                                  [--device cpu|cuda|all] [--repeat 3] [--case-seconds 10]
                                  [--time-limit 0] [--max-rows 16]
                                  [--timing-graphs kron:16,urand:16,grid:256x256]
                                  [--gpu-graphs kron:20,urand:20,grid:1024x1024] [--gpu-C 32]

Storage: bytes of every array of each format (``nbytes()``), for σ ∈ {1, C, √n, n}. The
matrices are given FP64 values (8-byte values, like the 8-byte column indices), as in the
SlimSell paper's comparison; ``csr`` counts indptr + indices + values, ``csr-pattern``
indptr + indices only (an iso matrix). SlimSell stores no values, Sell-C-σ does.
``--graphs ""`` skips this part.

SlimWork per iteration (``--device cpu``, ``cuda`` or ``all``): ``bfs_semiring`` (four
families) from the vertex of largest out-degree, on Sell-C-σ and SlimSell (σ = n; C = 8 on
the CPU, ``--gpu-C`` on the GPU; on the CPU also SlimSell with slimchunk=64). Every Sell
SpMV of the BFS runs twice on the same operands, SlimWork on and SlimWork off (the kernel
variant that reads every row of every chunk and applies the mask on write), in alternating
order (iteration + repetition even: on first); the two results must be equal, and the off
run must have skipped nothing and read every row (checked from the kernels' LAST_RUN
counters). The BFS goes on with the "on" result. Times per iteration k are the best of
the ``--repeat`` BFS runs (fewer when a case has spent ``--case-seconds``), after a warm-up
BFS stopped after two SpMVs (compilation). CPU: wall time of the Numba kernel call
(``sellcs.cpu.mxv_pull``). GPU: CUDA events around the whole SpMV call (launch, counter
read that sizes the result, host set-up) and, apart, around the kernel launches only
(``sellcs.cuda.KERNEL_EVENTS``). "chunks skipped" at k: share of pieces SlimWork skipped
(CPU) / of warps that read no row (GPU; for C = 32 a warp is a chunk or SlimChunk piece);
"rows read": share of the rows the "on" variant read. Whole BFS: ``bfs_semiring`` without
the paired calls, SlimWork on, as many runs, best; on the CPU also on CSR; and the
push-pull BFS (gblas.algorithms.bfs) on the same source.

Iteration tables are binned to at most ``--max-rows`` rows (median ms per SpMV in a bin,
robust to the scheduler's stalls on a shared machine; the plot bins long BFSs to 64).
``--time-limit`` (seconds, 0 = none) skips the remaining cases once the next could end
past it (the tables say which). Writes ``<out>/formats<tag>.json`` and ``.md``,
``formats<tag>.png`` (bytes per edge) and ``formats<tag>_iters_<device>.png`` (time per
iteration, on and off, and the share of chunks skipped).
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import common  # noqa: I001 - puts the checkout on sys.path
import numpy as np

from gblas import FP64, unary
from gblas.algorithms import bfs, bfs_semiring
from gblas.formats.csr.container import CSR
from gblas.formats.sellcs import cpu as sell_cpu
from gblas.formats.sellcs.container import build

DEFAULT_GRAPHS = "kron:16,kron:18,urand:16,urand:18,grid:512x512,real"
FAMILIES = ("boolean", "real", "tropical", "selmax")


def sigmas(n: int, C: int) -> dict[str, int]:  # noqa: N803
    return {"1": 1, "C": C, "sqrt(n)": max(1, math.isqrt(n)), "n": max(n, 1)}


def storage(spec: str, Cs: list[int]) -> dict[str, Any]:  # noqa: N803
    A = common.load_graph(spec)
    csr0 = A._csr()
    csr = CSR(csr0.nrows, csr0.ncols, csr0.indptr, csr0.indices,
              np.ones(csr0.nnz, dtype=np.float64), FP64)
    row: dict[str, Any] = {"graph": common.graph_label(spec), "n": csr.nrows, "nnz": csr.nnz,
                           "csr": csr.nbytes(),
                           "csr-pattern": csr0.indptr.nbytes + csr0.indices.nbytes,
                           "formats": []}
    for C in Cs:  # noqa: N806
        for label, s in sigmas(csr.nrows, C).items():
            for fmt in ("sellcs", "slimsell"):
                st = build(csr, fmt, C=C, sigma=s).stats()
                row["formats"].append({"format": fmt, "C": C, "sigma": label,
                                       "sigma_value": s, "nbytes": st["nbytes"],
                                       "padding": st["padding"],
                                       "bytes_per_edge": st["bytes_per_edge"]})
    return row


# ------------------------------------------------------------------ SlimWork per iteration
class _Stop(Exception):
    """Ends a warm-up BFS after its first SpMVs (everything it uses is compiled by then)."""


class PairedSpMV:
    """Stands in for a device's Sell mxv: each call runs SlimWork on and off on the same
    operands, times both, checks that they agree and returns the "on" result."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.records: list[dict[str, Any]] = []
        self.rep = 0  # repetition: flips the on/off order
        self.stop_after: int | None = None
        if device == "cuda":
            import cupy as cp  # noqa: PLC0415

            from gblas.formats.sellcs import cuda as sell_cuda  # noqa: PLC0415

            self.cp, self.mod = cp, sell_cuda
        else:
            self.cp, self.mod = None, sell_cpu
        self.orig = self.mod.mxv_pull

    def _order(self, k: int) -> tuple[bool, bool]:
        return (True, False) if (k + self.rep) % 2 == 0 else (False, True)

    def _begin(self) -> int:
        k = len(self.records)
        if self.stop_after is not None and k >= self.stop_after:
            raise _Stop
        return k

    def cpu_call(self, *args: Any) -> Any:
        k = self._begin()
        outs, rec = {}, {}
        for on in self._order(k):
            t0 = time.perf_counter()
            outs[on] = self.orig(*args, slimwork=on)
            rec[on] = time.perf_counter() - t0
            run = dict(sell_cpu.LAST_RUN)
            if on:
                rec["skipped"] = run["skipped"] / max(run["pieces"], 1)
                rec["read"] = run["rows_read"] / max(run["rows"], 1)
            elif run["skipped"] or run["rows_read"] != run["rows"]:
                raise AssertionError(f"SlimWork off skipped work: {run}")
        (pa, va), (pb, vb) = outs[True], outs[False]
        if not (np.array_equal(pa, pb) and np.array_equal(va[pa], vb[pb])):
            raise AssertionError(f"SlimWork on and off differ at SpMV {k + 1}")
        self.records.append({"on": rec[True], "off": rec[False], "k_on": rec[True],
                             "k_off": rec[False], "skipped": rec["skipped"],
                             "read": rec["read"]})
        return outs[True]

    def cuda_call(self, call: Any) -> Any:
        cp, mod = self.cp, self.mod
        k = self._begin()
        outs, ev, work = {}, {}, {}
        mod.KERNEL_EVENTS = kev = []
        try:
            for on in self._order(k):
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record()
                outs[on] = self.orig(call, slimwork=on)
                e1.record()
                ev[on] = (e0, e1, kev[-1])
                work[on] = dict(mod.LAST_RUN)
        finally:
            mod.KERNEL_EVENTS = None
        if work[False]["warps_idle"] and int(call.rep.C) <= 32:
            raise AssertionError(f"SlimWork off left warps idle: {work[False]}")
        (pa, va), (pb, vb) = (outs[on].as_bitmap() for on in (True, False))
        if not bool(((pa == pb) & (~pa | (va == vb))).all()):  # one host read
            raise AssertionError(f"SlimWork on and off differ at SpMV {k + 1}")
        on = work[True]
        self.records.append({"ev": ev, "skipped": on["warps_idle"] / max(on["warps"], 1),
                             "read": on["rows_read"] / max(work[False]["rows_read"], 1)})
        return outs[True]

    def resolve(self) -> list[dict[str, Any]]:
        """The records of the run just finished, event pairs turned into seconds."""
        if self.device != "cuda":
            return self.records
        ms = self.cp.cuda.get_elapsed_time
        out = []
        for r in self.records:
            d = {"skipped": r["skipped"], "read": r["read"]}
            for on, key in ((True, "on"), (False, "off")):
                e0, e1, (k0, k1) = r["ev"][on]
                d[key], d["k_" + key] = ms(e0, e1) / 1e3, ms(k0, k1) / 1e3
            out.append(d)
        return out

    @contextmanager
    def installed(self) -> Iterator[None]:
        if self.device == "cuda":
            _register_gpu(self.cuda_call)
        else:
            sell_cpu.mxv_pull = self.cpu_call  # kernels.mxv calls it through the module
        try:
            yield
        finally:
            if self.device == "cuda":
                _register_gpu(self.orig)
            else:
                sell_cpu.mxv_pull = self.orig


def _register_gpu(func: Callable[..., Any]) -> None:
    from gblas.ops.dispatch import register_kernel  # noqa: PLC0415

    for fmt in ("sellcs", "slimsell"):
        register_kernel("mxv", f"cuda_{fmt}_pull_structural", device="cuda", format=fmt,
                        traits="structural", fuses_mask=True)(func)
        register_kernel("mxv", f"cuda_{fmt}_pull_spmv", device="cuda", format=fmt,
                        traits="builtin", fuses_mask=True)(func)


def _timed(fn: Callable[[], Any], device: str) -> float:
    """Seconds of one call: perf_counter on the CPU, CUDA events on the GPU."""
    gc.collect()
    gc.disable()
    try:
        if device == "cuda":
            import cupy as cp  # noqa: PLC0415

            b0, b1 = cp.cuda.Event(), cp.cuda.Event()
            b0.record()
            fn()
            b1.record()
            b1.synchronize()
            return cp.cuda.get_elapsed_time(b0, b1) / 1e3
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    finally:
        gc.enable()


def per_iteration(A: Any, src: int, family: str, paired: PairedSpMV, repeat: int,  # noqa: N803
                  case_seconds: float) -> dict[str, Any]:
    """Per-iteration SpMV times of one bfs_semiring case (best over runs), and the whole
    BFS time with SlimWork on (as many runs, best)."""
    run_bfs = lambda: bfs_semiring(A, src, family)  # noqa: E731
    with paired.installed():
        paired.records, paired.stop_after = [], 2
        try:
            run_bfs()
        except _Stop:
            pass
        paired.stop_after = None
        runs: list[list[dict[str, Any]]] = []
        t0 = time.perf_counter()
        for rep in range(max(1, repeat)):
            paired.rep, paired.records = rep, []
            _timed(run_bfs, paired.device)
            runs.append(paired.resolve())
            if time.perf_counter() - t0 > case_seconds:
                break
    if len({len(r) for r in runs}) != 1:
        raise AssertionError("the BFS ran a different number of SpMVs across runs")
    it = {key: [min(r[k][key] for r in runs) for k in range(len(runs[0]))]
          for key in ("on", "off", "k_on", "k_off")}
    it["skipped"] = [x["skipped"] for x in runs[0]]
    it["read"] = [x["read"] for x in runs[0]]
    with sell_cpu.slimwork(True):
        t_bfs = min(_timed(run_bfs, paired.device) for _ in runs)
    return {"runs": len(runs), "spmv": len(runs[0]), "bfs_s": t_bfs, "iters": it}


def _source(A: Any) -> int:  # noqa: N803
    return int(np.argmax(np.diff(A._csr().indptr)))


def _device_name(device: str) -> str:
    if device != "cuda":
        return common.cpu_model()
    import cupy as cp  # noqa: PLC0415

    name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def timing(spec: str, device: str, C: int, repeat: int, case_seconds: float,  # noqa: N803
           deadline: float | None) -> list[dict[str, Any]]:
    """Every case of one graph on one device: Sell formats per iteration, CSR whole BFS
    (CPU), push-pull BFS. Cases that could end past ``deadline`` are marked skipped."""
    A0 = common.load_graph(spec)
    n = A0.nrows
    src = _source(A0)
    label = common.graph_label(spec)
    base = {"graph": label, "device": device, "device_name": _device_name(device), "C": C}
    on_dev = (lambda M: M.to("cuda")) if device == "cuda" else (lambda M: M)  # noqa: E731
    G = on_dev(A0)  # noqa: N806
    bfs(G, src)  # warm-up: compilation, transposes
    t_pp = min(_timed(lambda: bfs(G, src), device) for _ in range(max(1, repeat)))
    rows: list[dict[str, Any]] = []
    # SlimSell first: under --time-limit the cases left out are Sell-C-σ's
    cases: list[tuple[str, dict[str, Any]]] = [("slimsell", {"C": C, "sigma": n}),
                                               ("sellcs", {"C": C, "sigma": n})]
    if device == "cpu":
        cases = [("csr", {}), *cases, ("slimsell", {"C": C, "sigma": n, "slimchunk": 64})]
    paired = PairedSpMV(device)
    longest = 0.0
    for fmt, params in cases:
        A = on_dev(A0.apply(unary.one[FP64]).new() if fmt == "sellcs" else A0.dup())  # noqa: N806
        if fmt != "csr":
            A.to_format(fmt, **params)
        name = fmt + (f" chunk{params['slimchunk']}" if params.get("slimchunk") else "")
        for family in FAMILIES:
            row = {**base, "format": name, "family": family, "pushpull_s": t_pp}
            if deadline is not None and time.perf_counter() + longest > deadline:
                rows.append({**row, "skipped_for_time": True})
                continue
            t0 = time.perf_counter()
            if fmt == "csr":
                run_bfs = lambda A=A, f=family: bfs_semiring(A, src, f)  # noqa: E731
                run_bfs()
                row["bfs_s"] = min(_timed(run_bfs, device) for _ in range(max(1, repeat)))
            else:
                row.update(per_iteration(A, src, family, paired, repeat, case_seconds))
            longest = max(longest, time.perf_counter() - t0)
            rows.append(row)
            print(f"  {label} {device} {name} {family}: {time.perf_counter() - t0:.1f}s",
                  file=sys.stderr)
    return rows


def _bins(n: int, max_rows: int) -> list[tuple[int, int]]:
    """Iterations 1..n in at most ``max_rows`` consecutive ranges (1-based, inclusive)."""
    if n <= max_rows:
        return [(k, k) for k in range(1, n + 1)]
    edges = np.linspace(0, n, max_rows + 1).round().astype(int)
    return [(int(a) + 1, int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def iteration_tables(rows: list[dict[str, Any]], max_rows: int, kernel: bool,
                     what: str) -> list[str]:
    """Per graph and format: k, chunks skipped, then ms per SpMV on/off for each family."""
    md: list[str] = []
    keys = ("k_on", "k_off") if kernel else ("on", "off")
    groups: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for r in rows:
        if "iters" in r:
            groups.setdefault((r["graph"], r["format"]), {})[r["family"]] = r
    for (graph, fmt), fams in groups.items():
        first = next(iter(fams.values()))
        nmax = max(f["spmv"] for f in fams.values())
        headers = ["k", "chunks skipped", "rows read"]
        for fam in fams:
            headers += [f"{fam} on", "off"]
        table = []
        for lo, hi in _bins(nmax, max_rows):
            sl = slice(lo - 1, hi)
            line: list[Any] = [str(lo) if lo == hi else f"{lo}–{hi}",
                               f"{100 * float(np.mean(first['iters']['skipped'][sl])):.0f}%",
                               f"{100 * float(np.mean(first['iters']['read'][sl])):.0f}%"]
            for f in fams.values():
                for key in keys:
                    vals = f["iters"][key][sl]
                    line.append(1e3 * float(np.median(vals)) if vals else None)
            table.append(line)
        md += [f"### {graph}, {fmt}: ms per SpMV ({what}), SlimWork on / off", "",
               common.markdown_table(headers, table), ""]
    return md


def summary_table(rows: list[dict[str, Any]], device: str) -> list[str]:
    headers = ["graph", "format", "family", "SpMVs", "runs", "Σ SpMV on ms", "Σ SpMV off ms",
               "off/on"]
    if device == "cuda":
        headers += ["Σ kernel on ms", "Σ kernel off ms"]
    headers += ["BFS ms (on)", "push-pull BFS ms"]
    table = []
    for r in rows:
        line: list[Any] = [r["graph"], r["format"], r["family"]]
        if r.get("skipped_for_time"):
            table.append(line + ["skipped (time limit)"] + [None] * (len(headers) - 4))
            continue
        it = r.get("iters")
        s = {k: 1e3 * sum(it[k]) for k in ("on", "off", "k_on", "k_off")} if it else {}
        line += [r.get("spmv"), r.get("runs"), s.get("on"), s.get("off"),
                 s["off"] / s["on"] if it and s["on"] else None]
        if device == "cuda":
            line += [s.get("k_on"), s.get("k_off")]
        line += [r["bfs_s"] * 1e3, r["pushpull_s"] * 1e3]
        table.append(line)
    return [common.markdown_table(headers, table), ""]


def iteration_plot(path: Any, rows: list[dict[str, Any]], kernel: bool) -> None:
    """Time per iteration, SlimWork on (solid) and off (dashed), per family; the share of
    chunks skipped in grey on the right axis. One panel per graph × format."""
    try:
        import matplotlib  # noqa: PLC0415

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        print("note: matplotlib is not installed; no iteration plot", file=sys.stderr)
        return
    panels: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        if "iters" in r:
            panels.setdefault((r["graph"], r["format"]), []).append(r)
    if not panels:
        return
    graphs = list(dict.fromkeys(g for g, _ in panels))
    fmts = list(dict.fromkeys(f for _, f in panels))
    fig, axes = plt.subplots(len(graphs), len(fmts), squeeze=False,
                             figsize=(4.2 * len(fmts), 3.2 * len(graphs)))
    on_key, off_key = ("k_on", "k_off") if kernel else ("on", "off")
    for (g, f), rs in panels.items():
        ax = axes[graphs.index(g)][fmts.index(f)]
        for i, r in enumerate(rs):
            # long BFSs (grids): the median of each of 64 bins, spikes of a shared machine out
            bins = _bins(r["spmv"], 64)
            k = [(lo + hi) / 2 for lo, hi in bins]
            for key, ls, lw in ((on_key, "-", 1.2), (off_key, "--", 1.0)):
                y = [1e3 * float(np.median(r["iters"][key][lo - 1:hi])) for lo, hi in bins]
                ax.plot(k, y, color=f"C{i}", lw=lw, ls=ls,
                        label=f"{r['family']} {'on' if key == on_key else 'off'}")
        ax.set_yscale("log")
        ax.set_title(f"{g}, {f}", fontsize=9)
        ax.set_xlabel("BFS iteration", fontsize=8)
        ax.set_ylabel("ms per SpMV", fontsize=8)
        ax2 = ax.twinx()
        ax2.fill_between(np.arange(1, rs[0]["spmv"] + 1), rs[0]["iters"]["skipped"],
                         color="grey", alpha=0.15, step="mid")
        ax2.set_ylim(0, 1)
        ax2.set_ylabel("chunks skipped", fontsize=8)
    axes[0][0].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    path = common.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _gpu_available() -> bool:
    try:
        import cupy as cp  # noqa: PLC0415

        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device
        return False


def timing_pass(device: str, specs: list[str], C: int, args: Any,  # noqa: N803
                t_start: float) -> tuple[list[dict[str, Any]], list[str]]:
    deadline = t_start + args.time_limit if args.time_limit > 0 else None
    rows: list[dict[str, Any]] = []
    for spec in specs:
        t0 = time.perf_counter()
        rows += timing(spec, device, C, args.repeat, args.case_seconds, deadline)
        print(f"{spec}: {device} timed in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    if not rows:
        return rows, []
    where = "GPU" if device == "cuda" else "CPU"
    md = [f"## BFS-SpMV with SlimWork on and off ({where}: {rows[0]['device_name']}, C={C}, "
          "σ=n)", "", *summary_table(rows, device)]
    if device == "cuda":
        md += iteration_tables(rows, args.max_rows, False, "CUDA events around the call")
        md += iteration_tables(rows, args.max_rows, True, "CUDA events around the kernels")
    else:
        md += iteration_tables(rows, args.max_rows, False, "Numba kernel call")
    iteration_plot(common.Path(args.out) / f"formats{args.tag}_iters_{device}.png", rows,
                   kernel=device == "cuda")
    return rows, md


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default=DEFAULT_GRAPHS)
    ap.add_argument("--C", default="8,32")
    ap.add_argument("--out", default="bench_out")
    ap.add_argument("--tag", default="")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--timing-graphs", default="kron:16,urand:16,grid:256x256")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--case-seconds", type=float, default=10.0,
                    help="no further repetition of a case once it has run this long")
    ap.add_argument("--time-limit", type=float, default=0.0,
                    help="seconds; skip the cases of a timing pass that could end later")
    ap.add_argument("--max-rows", type=int, default=16, help="rows per iteration table")
    ap.add_argument("--device", choices=("cpu", "cuda", "all"), default="cpu",
                    help="which SlimWork timing pass to run: CPU (Numba), GPU (CuPy), both")
    ap.add_argument("--gpu-graphs", default="kron:20,urand:20,grid:1024x1024")
    ap.add_argument("--gpu-C", type=int, default=32)
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    Cs = [int(c) for c in args.C.split(",")]  # noqa: N806
    info = common.machine_info()
    results: dict[str, Any] = {"machine": info, "storage": [], "timing": []}
    table = []
    specs = [g for g in args.graphs.split(",") if g]
    for spec in common.expand_specs(specs):
        row = storage(spec, Cs)
        results["storage"].append(row)
        for C in Cs:  # noqa: N806
            f = {(r["format"], r["sigma"]): r for r in row["formats"] if r["C"] == C}
            table.append([row["graph"], row["n"], row["nnz"], C, row["csr"] / row["nnz"]]
                         + [f[("sellcs", s)]["bytes_per_edge"] for s in ("1", "n")]
                         + [f[("slimsell", s)]["bytes_per_edge"]
                            for s in ("1", "C", "sqrt(n)", "n")]
                         + [f[("slimsell", "n")]["nbytes"] / f[("sellcs", "n")]["nbytes"],
                            f[("slimsell", "n")]["nbytes"] / row["csr"]])
        print(f"{row['graph']}: done", file=sys.stderr)
    headers = ["graph", "n", "nnz", "C", "CSR B/e", "Sell σ=1", "Sell σ=n", "Slim σ=1",
               "Slim σ=C", "Slim σ=√n", "Slim σ=n", "Slim/Sell (σ=n)", "Slim/CSR (σ=n)"]
    md = (["## Storage (bytes per edge; FP64 values, int64 indices)", "",
           common.markdown_table(headers, table), ""] if table else [])
    passes = []
    if not args.no_timing and args.device in ("cpu", "all"):
        passes.append(("cpu", [g for g in args.timing_graphs.split(",") if g], 8))
    if not args.no_timing and args.device in ("cuda", "all"):
        if _gpu_available():
            passes.append(("cuda", [g for g in args.gpu_graphs.split(",") if g], args.gpu_C))
        else:
            print("no CUDA device (or no CuPy): GPU pass skipped", file=sys.stderr)
    for device, tspecs, C in passes:  # noqa: N806
        rows, tmd = timing_pass(device, tspecs, C, args, t_start)
        results["timing"].extend(rows)
        md += tmd
    text = "\n".join(md)
    print(text)
    out = common.Path(args.out)
    common.write_json(out / f"formats{args.tag}.json", results)
    common.write_text(out / f"formats{args.tag}.md", text)
    if table:
        common.bar_plot(out / f"formats{args.tag}.png", [f"{r[0]} C={r[3]}" for r in table],
                        {"CSR": [r[4] for r in table], "Sell-C-σ σ=n": [r[6] for r in table],
                         "SlimSell σ=1": [r[7] for r in table],
                         "SlimSell σ=n": [r[10] for r in table]},
                        ylabel="bytes per edge", title="Storage of CSR, Sell-C-σ, SlimSell",
                        log=False)
    print(f"total {time.perf_counter() - t_start:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
