"""The ``gblas`` command: BFS and other algorithms on files or generated graphs.

    gblas bfs [GRAPH] [--source N|random] [--sources K] [--device auto|cpu|cuda] ...
    gblas info GRAPH
    gblas convert IN OUT
    gblas algo NAME GRAPH

User mistakes print one line on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import numpy as np

DEFAULT_GRAPH = "kron:18"
ALGORITHMS = ("sssp", "cc", "pagerank", "tc", "bc", "bfs")


class UsageError(Exception):
    """A mistake of the user's (bad file, bad option): reported in one line, exit 2."""


def _progress(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


def load_graph(spec: str, *, quiet: bool = True) -> Any:
    """A file (.mtx, .mtx.gz, .el, .txt, .npz, ...) or a generator spec (kron:18, grid:8x8)."""
    from pathlib import Path  # noqa: PLC0415

    from . import generators, io  # noqa: PLC0415

    if ":" in spec and not Path(spec).exists():
        return generators.parse_spec(spec, progress=_progress(quiet))
    if not Path(spec).exists():
        raise UsageError(
            f"graph {spec!r} is neither a file nor a generator spec "
            "(kron:SCALE, urand:SCALE, grid:ROWSxCOLS, road:N)"
        )
    return io.read(spec, progress=_progress(quiet))


def _pick_device(name: str) -> str:
    from ._device import cuda_available, normalize_device  # noqa: PLC0415

    if name == "auto":
        return "cuda:0" if cuda_available() else "cpu"
    if name.startswith("cuda") and not cuda_available():
        raise UsageError("--device cuda asked for, but no CUDA GPU is usable here "
                         "(install the 'gpu' extra on a machine with an NVIDIA GPU)")
    return normalize_device(name)


def _sources(A: Any, how: str, count: int, seed: int) -> list[int]:  # noqa: N803
    n = A.nrows
    if count < 1:
        raise UsageError(f"--sources must be at least 1, got {count}")
    if how != "random":
        try:
            s = int(how)
        except ValueError:
            raise UsageError(f"--source must be a vertex id or 'random', got {how!r}") from None
        if not 0 <= s < n:
            raise UsageError(f"--source {s} is out of range for a graph of {n} vertices")
        return [s]
    indptr, _, _ = A.to_csr()
    candidates = np.flatnonzero(np.diff(indptr) > 0)
    if candidates.size == 0:
        candidates = np.arange(n)
    if candidates.size == 0:
        raise UsageError("the graph has no vertices")
    rng = np.random.default_rng(seed)
    return [int(x) for x in rng.choice(candidates, size=min(count, candidates.size),
                                       replace=False)]


def _component_edges(A: Any, levels: Any) -> float:
    """Edges of the reached component (undirected graphs count each edge once)."""
    rows, _, _ = A.to_coo(values=False)
    idx, _ = levels.to_coo(values=False)
    reached = np.zeros(A.nrows, dtype=bool)
    reached[idx] = True
    m = int(reached[rows].sum())
    return m / 2 if _is_symmetric(A) else float(m)


def _is_symmetric(A: Any) -> bool:
    return A.nrows == A.ncols and A.is_symmetric(structure=False)


def _prepare(host: Any, device: str, fmt: str | None, direction: str, quiet: bool,
             reorder: str | None = None) -> Any:
    """The graph on ``device`` in format ``fmt`` (with ``reorder=`` for bvss) and the
    transpose the pull step reads, built before the timed runs (a progress bar when that
    takes a while)."""
    from ._progress import Progress  # noqa: PLC0415

    with Progress(_progress(quiet), 3, "preparing the graph", unit="step") as bar:
        bar.stage(f"copy to {device}")
        A = host.to(device)  # noqa: N806 - a copy holds CSR: the format is built there
        bar.update(1)
        if fmt:
            bar.stage(f"format {fmt}")
            try:
                A.to_format(fmt, **({} if reorder is None else {"reorder": reorder}))
            except Exception as e:  # noqa: BLE001
                raise UsageError(f"--format {fmt}: {e}") from None
        elif reorder is not None:
            raise UsageError("--reorder needs --format bvss")
        bar.update(1)
        if direction != "push":
            bar.stage("transpose for the pull step")
            A._csr_T()  # cached on A; bfs's pull reads it
    return A


def cmd_bfs(args: argparse.Namespace) -> dict[str, Any]:
    from .algorithms import bfs, validate_bfs  # noqa: PLC0415

    device = _pick_device(args.device)
    host = load_graph(args.graph or DEFAULT_GRAPH, quiet=args.quiet)
    A = _prepare(host, device, args.format, args.direction, args.quiet,  # noqa: N806
                 args.reorder)
    sources = _sources(host, args.source, args.sources, args.seed)
    from ._device import synchronize  # noqa: PLC0415

    bfs(A, sources[0], parents=args.parents, direction=args.direction)  # warm-up (JIT)
    times, stats_all, valid = [], [], True
    for s in sources:
        st: dict[str, Any] = {}
        synchronize(device)
        t0 = time.perf_counter()
        res = bfs(A, s, parents=args.parents, direction=args.direction, stats=st)
        synchronize(device)
        times.append(time.perf_counter() - t0)
        levels, parents = (res if args.parents else (res, None))
        st["edges"] = _component_edges(host, levels.to("cpu"))
        stats_all.append(st)
        if args.validate:
            try:
                validate_bfs(host, s, levels.to("cpu"),
                             parents.to("cpu") if parents is not None else None)
            except Exception as e:  # noqa: BLE001 - reported, not raised
                valid = False
                print(f"validation failed for source {s}: {e}", file=sys.stderr)
    t = statistics.median(times)
    edges = statistics.median(st["edges"] for st in stats_all)
    return {
        "n": host.nrows, "m": host.nvals, "device": device, "format": A.format,
        "sources": sources, "levels": max(st["levels"] for st in stats_all),
        "reached": int(statistics.median(st["reached"] for st in stats_all)),
        "time_s": t, "gteps": edges / t / 1e9 if t > 0 else 0.0,
        "kernels": sorted({k for st in stats_all for k in st["kernels"]}),
        "valid": valid if args.validate else None,
        **({"format_auto": A.format_info("auto")["auto"]} if args.format == "auto" else {}),
    }


def cmd_info(args: argparse.Namespace) -> dict[str, Any]:
    import scipy.sparse.csgraph as csg  # noqa: PLC0415

    A = load_graph(args.graph, quiet=args.quiet)  # noqa: N806
    S = A.to_scipy_sparse()  # noqa: N806
    deg = np.diff(S.indptr)
    sym = _is_symmetric(A)
    ncomp, labels = csg.connected_components(S, directed=not sym, connection="weak")
    # double-sweep lower bound on the diameter from the highest-degree vertex
    diameter = 0
    if A.nrows:
        start = int(np.argmax(deg))
        for _ in range(2):
            d = csg.shortest_path(S, unweighted=True, indices=start, directed=not sym)
            finite = np.isfinite(d)
            diameter = max(diameter, int(d[finite].max()))
            start = int(np.flatnonzero(finite)[np.argmax(d[finite])])
    out = {"n": A.nrows, "m": A.nvals, "directed": not sym, "dtype": str(A.dtype),
           "degree_min": int(deg.min()) if deg.size else 0,
           "degree_max": int(deg.max()) if deg.size else 0,
           "degree_mean": float(deg.mean()) if deg.size else 0.0,
           "components": int(ncomp), "diameter_estimate": diameter}
    if args.format:
        params = {} if args.reorder is None else {"reorder": args.reorder}
        try:
            info = A.format_info(args.format, **params)
        except Exception as e:  # noqa: BLE001 - a bad format or parameter: a usage error
            raise UsageError(f"--format {args.format}: {e}") from None
        out.update({f"{args.format}.{k}": v for k, v in info.items()
                    if k not in ("format", "device")})
    elif args.reorder is not None:
        raise UsageError("--reorder needs --format bvss")
    return out


def cmd_convert(args: argparse.Namespace) -> dict[str, Any]:
    from . import io  # noqa: PLC0415

    A = load_graph(args.input, quiet=args.quiet)  # noqa: N806
    io.write(args.output, A)
    return {"input": args.input, "output": args.output, "n": A.nrows, "m": A.nvals}


def cmd_algo(args: argparse.Namespace) -> dict[str, Any]:
    from . import algorithms  # noqa: PLC0415

    A = load_graph(args.graph, quiet=args.quiet).to(_pick_device(args.device))  # noqa: N806
    name = args.name
    t0 = time.perf_counter()
    if name == "bfs":
        res = algorithms.bfs(A, int(args.source))
        summary = {"reached": res.nvals}
    elif name == "sssp":
        res = algorithms.sssp(A, int(args.source))
        summary = {"reached": res.nvals}
    elif name == "cc":
        res = algorithms.connected_components(A)
        summary = {"components": int(np.unique(res.to_coo()[1]).size)}
    elif name == "pagerank":
        res = algorithms.pagerank(A)
        idx, vals = res.to_coo()
        top = np.argsort(vals)[::-1][:5]
        summary = {"top": [[int(idx[i]), float(vals[i])] for i in top]}
    elif name == "tc":
        summary = {"triangles": int(algorithms.triangle_count(A))}
    elif name == "bc":
        res = algorithms.betweenness_centrality(A, samples=min(A.nrows, 32), seed=args.seed)
        idx, vals = res.to_coo()
        top = np.argsort(vals)[::-1][:5]
        summary = {"top": [[int(idx[i]), float(vals[i])] for i in top]}
    else:  # argparse restricts the choices
        raise UsageError(f"unknown algorithm {name!r}")
    return {"algorithm": name, "n": A.nrows, "m": A.nvals,
            "time_s": time.perf_counter() - t0, **summary}


def _print(result: dict[str, Any], as_json: bool, command: str) -> None:
    if as_json:
        print(json.dumps(result))
        return
    if command == "bfs":
        print(f"graph        n={result['n']:,}  m={result['m']:,}  format={result['format']}")
        if result.get("format_auto"):
            print(f"format auto  {result['format_auto']['reason']}")
        print(f"device       {result['device']}")
        print(f"sources      {len(result['sources'])} ({', '.join(map(str, result['sources'][:8]))}"
              f"{', ...' if len(result['sources']) > 8 else ''})")
        print(f"levels       {result['levels']}")
        print(f"reached      {result['reached']:,} vertices")
        print(f"time/BFS     {result['time_s'] * 1e3:.3f} ms (median)")
        print(f"GTEPS        {result['gteps']:.4f}")
        print(f"kernels      {', '.join(result['kernels'])}")
        if result["valid"] is not None:
            print(f"valid        {result['valid']}")
        return
    for k, v in result.items():
        print(f"{k:<18} {v}")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gblas", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON object")
    common.add_argument("--quiet", action="store_true", help="no progress bars")
    common.add_argument("--seed", type=int, default=0, help="seed for random choices")

    b = sub.add_parser("bfs", parents=[common], help="breadth-first search")
    b.add_argument("graph", nargs="?", default=None,
                   help=f"file or generator spec (default {DEFAULT_GRAPH})")
    b.add_argument("--source", default="random", help="vertex id or 'random'")
    b.add_argument("--sources", type=int, default=16, help="number of random sources")
    b.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    b.add_argument("--format", default=None,
                   help="matrix format (csr, coo, sellcs, slimsell, bvss, ...; auto: picked "
                        "from the graph's statistics)")
    b.add_argument("--reorder", default=None,
                   choices=["none", "rcm", "degree", "jaccard", "auto"],
                   help="vertex reordering of the bvss format (results keep your ids)")
    b.add_argument("--direction", default="auto", choices=["auto", "push", "pull"])
    b.add_argument("--parents", action="store_true", help="also compute the BFS tree")
    b.add_argument("--validate", action="store_true", help="Graph500 validation")

    i = sub.add_parser("info", parents=[common], help="graph statistics")
    i.add_argument("graph")
    i.add_argument("--format", default=None, help="also the storage statistics of this "
                   "format (csr, coo, sellcs, slimsell, bvss, ...): A.format_info()")
    i.add_argument("--reorder", default=None,
                   choices=["none", "rcm", "degree", "jaccard", "auto"],
                   help="vertex reordering of the bvss format")

    c = sub.add_parser("convert", parents=[common], help="convert between graph files")
    c.add_argument("input")
    c.add_argument("output")

    a = sub.add_parser("algo", parents=[common], help="run another algorithm")
    a.add_argument("name", choices=ALGORITHMS)
    a.add_argument("graph")
    a.add_argument("--source", default="0")
    a.add_argument("--device", default="auto")
    return p


def main(argv: list[str] | None = None) -> int:
    from .exceptions import GraphblasException  # noqa: PLC0415

    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {"bfs": cmd_bfs, "info": cmd_info, "convert": cmd_convert, "algo": cmd_algo}
    try:
        result = handlers[args.command](args)
    except (UsageError, GraphblasException, OSError, ValueError) as e:
        print(f"gblas {args.command}: error: {e}", file=sys.stderr)
        return 2
    _print(result, args.json, args.command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
