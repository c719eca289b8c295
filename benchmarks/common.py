"""Shared helpers of the benchmark scripts: environment, timing, graphs, tables, output.

Importing this module makes ``import gblas`` work from a source checkout (it puts the
repository root on ``sys.path`` when gblas is not installed), so a script can run as
``python3 benchmarks/<script>.py`` without ``PYTHONPATH``.
"""

from __future__ import annotations

import datetime as _dt
import gc
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if importlib.util.find_spec("gblas") is None:  # a source checkout: serve ./gblas
    sys.path.insert(0, str(ROOT))

GRAPH_SUFFIXES = (".mtx", ".mtx.gz", ".mtx.bz2", ".mtx.xz", ".npz", ".txt", ".txt.gz",
                  ".el", ".edges", ".csv")


# ---------------------------------------------------------------------------- environment
def _run(cmd: Sequence[str]) -> str:
    try:
        out = subprocess.run(list(cmd), cwd=ROOT, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or platform.processor())."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine_info() -> dict[str, Any]:
    """Date, host, CPU, core count, commit and library versions, for a report header."""
    named = os.environ.get("GBLAS_COMMIT")
    info: dict[str, Any] = {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "nproc": os.cpu_count(),
        "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        # GBLAS_COMMIT names the tree where git cannot: the GPU machine's copy of the working
        # tree is fresh, but its git metadata may be an earlier call's
        "commit": named or _run(["git", "rev-parse", "--short", "HEAD"]) or "unknown",
        "dirty": (not named
                  and bool(_run(["git", "status", "--porcelain", "--untracked-files=no"]))),
        "loadavg": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }
    for mod in ("numpy", "scipy", "numba", "graphblas", "suitesparse_graphblas"):
        try:
            m = __import__(mod)
            info[mod] = getattr(m, "__version__", "?")
        except ImportError:
            info[mod] = None
    return info


def set_threads(n: int, gb2: Any = None) -> dict[str, Any]:
    """Use ``n`` threads in Numba, in BLAS/OpenMP pools (threadpoolctl) and in
    SuiteSparse:GraphBLAS (``gb2`` = the imported python-graphblas module, or None).
    Returns what each runtime reports afterwards (see :func:`thread_info`)."""
    import numba  # noqa: PLC0415

    numba.set_num_threads(max(1, min(n, numba.config.NUMBA_NUM_THREADS)))
    try:
        from threadpoolctl import threadpool_limits  # noqa: PLC0415

        threadpool_limits(n)
    except ImportError:
        pass
    if gb2 is not None:
        try:
            gb2.ss.config["nthreads"] = n
        except (AttributeError, KeyError, TypeError):
            pass
    return thread_info(gb2)


def thread_info(gb2: Any = None) -> dict[str, Any]:
    """Thread counts: Numba, threadpoolctl pools (name: threads), SuiteSparse:GraphBLAS."""
    import numba  # noqa: PLC0415

    out: dict[str, Any] = {"numba": numba.get_num_threads(),
                           "numba_max": numba.config.NUMBA_NUM_THREADS,
                           "numba_layer": numba.threading_layer() if _numba_layer_set()
                           else None}
    try:
        from threadpoolctl import threadpool_info  # noqa: PLC0415

        out["threadpoolctl"] = {f"{p.get('internal_api')}:{Path(p.get('filepath', '')).name}":
                                p.get("num_threads") for p in threadpool_info()}
    except ImportError:
        out["threadpoolctl"] = "not installed"
    if gb2 is not None:
        try:
            out["graphblas"] = int(gb2.ss.config["nthreads"])
        except (AttributeError, KeyError, TypeError):
            out["graphblas"] = None
    for var in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                "OPENBLAS_CORETYPE"):
        if var in os.environ:
            out[var] = os.environ[var]
    return out


def _numba_layer_set() -> bool:
    import numba  # noqa: PLC0415

    try:
        numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return False
    return True


# ---------------------------------------------------------------------------- timing
def time_call(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """Best wall time (seconds) of ``repeat`` calls of ``fn`` and the last result.

    The garbage collector is run before and disabled during each call.
    """
    best, result = float("inf"), None
    for _ in range(max(1, repeat)):
        result = None
        gc.collect()
        gc.disable()
        try:
            t0 = time.perf_counter()
            result = fn()
            dt = time.perf_counter() - t0
        finally:
            gc.enable()
        best = min(best, dt)
    return best, result


def median(xs: Iterable[float]) -> float:
    xs = [x for x in xs if x == x]  # drop NaN
    return statistics.median(xs) if xs else float("nan")


# ---------------------------------------------------------------------------- graphs
def graph_dirs() -> list[Path]:
    """The real-graph locations: ``$GBLAS_GRAPHS`` (dirs/files, os.pathsep-separated),
    else ``../shared/graphs`` next to the checkout."""
    env = os.environ.get("GBLAS_GRAPHS")
    if env:
        return [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    return [ROOT.parent / "shared" / "graphs"]


def real_graph_files() -> list[Path]:
    """Every graph file found in :func:`graph_dirs`, sorted by name."""
    files: list[Path] = []
    for d in graph_dirs():
        if d.is_file():
            files.append(d)
        elif d.is_dir():
            files.extend(p for p in sorted(d.iterdir())
                         if p.is_file() and p.name.lower().endswith(GRAPH_SUFFIXES))
    return files


def expand_specs(specs: Iterable[str]) -> list[str]:
    """Graph specs with ``real`` replaced by the paths of the real graphs; a ``key=value``
    piece (from splitting ``urand:20,ef=2`` at its comma) joined back to the generator spec
    before it (never to a file's path)."""
    out: list[str] = []
    joinable = False  # whether out[-1] is a generator spec
    for s in specs:
        s = s.strip()
        if not s:
            continue
        if joinable and "=" in s and ":" not in s and os.sep not in s:
            out[-1] += "," + s
            continue
        joinable = False
        if s.lower() == "real":
            found = real_graph_files()
            if not found:
                print(f"note: 'real' found no graphs in {[str(d) for d in graph_dirs()]}",
                      file=sys.stderr)
            out.extend(str(p) for p in found)
        else:
            out.append(s)
            joinable = ":" in s and os.sep not in s and not Path(s).is_file()
    return out


def graph_label(spec: str) -> str:
    """A short name: the generator spec, or a file's name without its suffixes."""
    p = Path(spec)
    if p.suffix or os.sep in spec:
        name = p.name
        for suf in sorted(GRAPH_SUFFIXES, key=len, reverse=True):
            if name.lower().endswith(suf):
                return name[: -len(suf)]
        return name
    return spec


def load_graph(spec: str) -> Any:
    """A gblas Matrix: a generator spec (``kron:20``, ``grid:1024x1024``, ...) or a file
    (Matrix Market, edge list, ``.npz``; read with ``gblas.io.read``)."""
    import gblas as gb  # noqa: PLC0415

    if Path(spec).is_file():
        if spec.lower().endswith((".mtx", ".mtx.gz", ".mtx.bz2", ".mtx.xz")):
            return gb.io.mmread(spec)
        return gb.io.read(spec)
    return gb.generators.parse_spec(spec)


def is_symmetric_pattern(S: Any) -> bool:  # noqa: N803
    """Whether a SciPy sparse matrix's pattern equals its transpose's."""
    if S.shape[0] != S.shape[1]:
        return False
    T = S.T.tocsr()  # noqa: N806
    if T.nnz != S.nnz:
        return False
    T.sort_indices()
    Sc = S.tocsr()  # noqa: N806
    Sc.sort_indices()
    import numpy as np  # noqa: PLC0415

    return bool(np.array_equal(Sc.indptr, T.indptr) and np.array_equal(Sc.indices, T.indices))


def pick_sources(out_degree: Any, k: int, seed: int = 1) -> list[int]:
    """``k`` distinct vertices with out-degree > 0 drawn at random (Graph500 style)."""
    import numpy as np  # noqa: PLC0415

    cand = np.flatnonzero(np.asarray(out_degree) > 0)
    if cand.size == 0:
        return [0]
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.choice(cand, size=min(k, cand.size), replace=False)]


# ---------------------------------------------------------------------------- output
def fmt(x: Any, digits: int = 3) -> str:
    """A number with ``digits`` significant digits (integers as such); '-' for missing."""
    if x is None or (isinstance(x, float) and x != x):
        return "-"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if x == 0:
            return "0"
        if abs(x) >= 10 ** digits:
            return f"{x:.0f}"
        return f"{x:.{digits}g}"
    return str(x)


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table, columns padded for reading in a terminal."""
    cells = [[str(h) for h in headers]] + [[fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r: Sequence[str]) -> str:
        return "| " + " | ".join(c.rjust(w) for c, w in zip(r, widths)) + " |"

    sep = "|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|"
    return "\n".join([line(cells[0]), sep] + [line(r) for r in cells[1:]])


def _jsonable(o: Any) -> Any:
    try:
        import numpy as np  # noqa: PLC0415

        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
    except ImportError:
        pass
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, float) and o != o:
        return None
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def write_json(path: Path | str, obj: Any) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, default=_jsonable, allow_nan=False)
        f.write("\n")
    return path


def write_text(path: Path | str, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def bar_plot(path: Path | str, groups: Sequence[str], series: dict[str, Sequence[float]], *,
             ylabel: str, title: str = "", log: bool = True) -> Path | None:
    """Grouped bar plot (one group per graph, one bar per series) written as PNG.

    Returns None (after printing why) when matplotlib is not installed.
    """
    try:
        import matplotlib  # noqa: PLC0415

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        print("note: matplotlib is not installed; skipping the plot "
              "(pip install matplotlib)", file=sys.stderr)
        return None
    import numpy as np  # noqa: PLC0415

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    k = max(1, len(series))
    x = np.arange(len(groups))
    width = 0.8 / k
    fig, ax = plt.subplots(figsize=(min(18.0, max(7.0, 0.18 * len(groups) * k + 2)), 5.0))
    for i, (name, vals) in enumerate(series.items()):
        v = np.array([np.nan if (y is None or y != y or y <= 0) else y for y in vals],
                     dtype=float)
        ax.bar(x + (i - (k - 1) / 2) * width, v, width, label=name)
    ax.set_xticks(x)
    ax.set_xticklabels(groups, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def resolve_checkout(path: str | os.PathLike[str] | None, env: str, files: tuple[str, ...],
                     name: str, url: str) -> Path | None:
    """A peer's source checkout: ``path``, else ``$env``, else None (the peer is not run).

    A path that is given but lacks one of ``files`` raises InvalidValue (naming what is
    missing and where to clone ``name`` from)."""
    from gblas.exceptions import InvalidValue  # noqa: PLC0415

    given = path if path else os.environ.get(env)
    if not given:
        return None
    root = Path(given).expanduser().resolve()
    missing = [f for f in files if not (root / f).is_file()]
    if missing:
        raise InvalidValue(f"{given!s} is not a {name} source checkout: expected "
                           f"{', '.join(files)} in it, missing {', '.join(missing)} "
                           f"(git clone {url})")
    return root


def algorithms_module() -> Any:
    """benchmarks/algorithms.py as a module (imported by path: its name would shadow the
    algorithms package): its Graph, weights and naive CuPy baselines for other scripts."""
    name = "gblas_bench_algorithms"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("algorithms.py"))
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = mod  # its dataclasses look it up
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def synced_times(fn: Callable[[], Any], sync: Callable[[], None], reps: int) -> list[float]:
    """Seconds of ``reps`` calls of ``fn``, each followed by ``sync`` (a device
    synchronisation, or nothing on the CPU), after one untimed call."""
    fn()
    sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return ts
