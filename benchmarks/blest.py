"""Blest (github.com/delbek/blest: BFS on BVSS bitmaps with 1-bit Tensor Core MMAs) as a
measured peer of ``bfs_gpu.py``.

Given a Blest source checkout (``--blest PATH`` or ``$BLEST_DIR``), this module

1. compiles our driver ``benchmarks/blest/blest_driver.cu`` against the checkout with nvcc,
   with the flags of Blest's CMakeLists (``-O3 --generate-line-info --std=c++20
   -Xptxas=-v``, OpenMP, ``sm_<arch>``, 90 by default), into a git-ignored folder of this
   repository (``build/blest/``); it rebuilds when the driver, a checkout source, the
   command line or nvcc changes (a stamp holds their digest). Blest's own ``main.cu`` is
   not built: it downloads SuiteSparse graphs with libcurl, which a GPU machine here lacks,
   and the driver needs none of that,
2. writes the very Matrix that gblas times as a small binary CSR (see :func:`write_graph`:
   header + uint32 ``indptr`` and ``indices``, self-loops dropped as Blest's reader drops
   them; a symmetric pattern holds both directions, as Blest's reader stores an undirected
   graph), cached under the matrix's content hash,
3. starts one driver process per graph, which runs Blest's preprocessing (the social-graph
   test, the reordering: Jaccard-with-windows for social graphs, RCM otherwise; the BVSS
   build) once, then ``BVSSBFSKernel::run`` for each source sent on its stdin, and reads
   back per source Blest's own kernel time (host wall clock around the cooperative launch
   and ``cudaDeviceSynchronize``; the per-call upload of the graph is outside it), the whole
   call's time, the level histogram and the levels in original vertex ids (the driver maps
   Blest's reordered ids back). The ordering is cached beside the graph, as Blest caches
   its ``_ordering.bin``; the time of the run that computed it is kept in a sidecar.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import selectors
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import common  # first: puts the checkout on sys.path for gblas
import numba
import numpy as np

from gblas.exceptions import IndexOutOfBound, InvalidValue

BLEST_ENV = "BLEST_DIR"
BUILD_ROOT = common.ROOT / "build" / "blest"
DRIVER = Path(__file__).resolve().parent / "blest" / "blest_driver.cu"
NOT_RUN_NOTE = "not run (no --blest)"
DEFAULT_ARCH = "90"  # H100 / H200; Blest's CMakeLists sets CMAKE_CUDA_ARCHITECTURES 90
DEFAULT_WINDOW = 65536  # Blest's README: "-w ... at least 65536", with "-j 1"
# what a checkout must hold: the headers the driver includes and the Gorder sources CSC.cuh
# links against (CSC::gorder* call it)
CHECKOUT_FILES = ("Common.cuh", "BFS/BFSKernel.cuh", "BFS/BVSSBFSKernel.cuh",
                  "DataStructures/BitMatrix.cuh", "DataStructures/BVSS.cuh",
                  "DataStructures/CSC.cuh", "Gorder/Graph.h", "Gorder/Graph.cpp",
                  "Gorder/Util.cpp", "Gorder/UnitHeap.cpp")
HOST_SOURCES = ("Gorder/Graph.cpp", "Gorder/Util.cpp", "Gorder/UnitHeap.cpp")
INCLUDE_DIRS = (".", "DataStructures", "BFS", "Gorder")  # as Blest's include_directories
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp")
MAGIC = b"GBBLEST1"
HEADER = np.dtype([("magic", "S8"), ("n", "<u8"), ("nnz", "<u8"), ("flags", "<u8")])
MAX_ID = 2**32 - 2  # Blest's ids and offsets are 32-bit, 2^32 - 1 marks "unvisited"

_KV = re.compile(r"(\w+)=(\S*)")


# ---------------------------------------------------------------------------- checkout, build
def resolve_checkout(path: str | os.PathLike[str] | None) -> Path | None:
    """The Blest checkout: ``path``, else ``$BLEST_DIR``, else None (Blest not run).

    A path that is given but is not a Blest source tree raises InvalidValue.
    """
    return common.resolve_checkout(path, BLEST_ENV, CHECKOUT_FILES, "Blest", "https://github.com/delbek/blest")


def check_arch(arch: str | int) -> str:
    """``arch`` as nvcc's digits ("90"); Blest's 1-bit MMA needs sm_80 or newer."""
    a = str(arch).strip().removeprefix("sm_")
    if not a.isdigit() or int(a) < 80:
        raise InvalidValue(f"arch must be a compute capability >= 80 written as digits "
                           f"(e.g. 90 for H100), got {arch!r}: Blest's mma.b1 needs sm_80+")
    return a


def build_command(checkout: Path, out: Path, *, nvcc: str = "nvcc",
                  arch: str | int = DEFAULT_ARCH) -> list[str]:
    """The nvcc command line that builds the driver at ``out`` against ``checkout``.

    Flags as Blest's CMakeLists: CUDA ``-O3 --generate-line-info --std=c++20 -Xptxas=-v``
    and ``-Xcompiler -fopenmp``, code for ``sm_<arch>`` plus its PTX (what CMake emits for
    CMAKE_CUDA_ARCHITECTURES); the Gorder ``.cpp`` files go through nvcc to g++ with -O3.
    The CUDA runtime is linked statically (nvcc's default); OpenMP is libgomp.
    """
    a = check_arch(arch)
    return [nvcc, "-O3", "--generate-line-info", "--std=c++20", "-Xptxas=-v",
            f"-gencode=arch=compute_{a},code=[sm_{a},compute_{a}]",
            "-Xcompiler", "-fopenmp",
            *(f"-I{checkout / d}" for d in INCLUDE_DIRS),
            str(DRIVER), *(str(checkout / s) for s in HOST_SOURCES),
            "-o", str(out), "-lgomp"]


def source_digest(checkout: Path, command: list[str], nvcc_version: str = "") -> str:
    """Digest of what the build depends on: the driver, every source of the checkout, the
    command line and nvcc's version."""
    h = hashlib.sha256()
    h.update("\0".join(command).encode())
    h.update(nvcc_version.encode())
    h.update(DRIVER.read_bytes())
    for p in sorted(checkout.rglob("*")):
        if p.is_file() and p.name.endswith(SOURCE_SUFFIXES):
            h.update(str(p.relative_to(checkout)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def build(checkout: Path, build_root: Path = BUILD_ROOT, *, arch: str | int = DEFAULT_ARCH,
          nvcc: str | None = None) -> tuple[Path, bool]:
    """Compile the driver (when its inputs changed); returns (binary, whether it was built)."""
    nvcc = nvcc or os.environ.get("NVCC") or shutil.which("nvcc") or "nvcc"
    if shutil.which(nvcc) is None:
        raise InvalidValue(f"no CUDA compiler: {nvcc} is not on PATH (Blest's driver is built "
                           "with nvcc from the CUDA toolkit; set $NVCC to its path)")
    a = check_arch(arch)
    tag = hashlib.sha1(str(checkout).encode()).hexdigest()[:10]
    out_dir = Path(build_root) / f"bin-{tag}"
    out_dir.mkdir(parents=True, exist_ok=True)
    binary = out_dir / f"blest_driver_sm{a}"
    cmd = build_command(checkout, binary, nvcc=nvcc, arch=a)
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    digest = source_digest(checkout, cmd, version)
    stamp = binary.with_suffix(".stamp")
    if binary.is_file() and stamp.is_file() and stamp.read_text().strip() == digest:
        return binary, False
    stamp.unlink(missing_ok=True)
    binary.unlink(missing_ok=True)  # so that a failed build leaves no stale binary
    proc = subprocess.run(cmd, capture_output=True, text=True)
    (out_dir / f"build_sm{a}.log").write_text(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode != 0 or not binary.is_file():
        errors = [ln for ln in (proc.stdout + proc.stderr).splitlines()
                  if "ptxas info" not in ln and "bytes stack frame" not in ln
                  and "Used " not in ln and "Compiling entry" not in ln]
        raise InvalidValue(f"building Blest's driver in {out_dir} failed (nvcc exit "
                           f"{proc.returncode}):\n" + "\n".join(errors)[-2000:])
    stamp.write_text(digest + "\n")
    return binary, True


# ---------------------------------------------------------------------------- graph files
@numba.njit(cache=True, nogil=True)
def _strip_loops(indptr: np.ndarray, indices: np.ndarray, out_ptr: np.ndarray,
                 out_idx: np.ndarray) -> tuple[int, int]:
    """Copy a CSR pattern without its diagonal; (0, nnz) or (error code, row)."""
    n = indptr.size - 1
    k = 0
    out_ptr[0] = 0
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        if hi < lo or hi > indices.size:
            return 1, i
        for p in range(lo, hi):
            j = indices[p]
            if j < 0 or j >= n:
                return 2, i
            if p > lo and j <= indices[p - 1]:
                return 3, i
            if j != i:
                out_idx[k] = j
                k += 1
        out_ptr[i + 1] = k
    return 0, k


_STRIP_ERRORS = {1: "indptr decreases or runs past the indices",
                 2: "a column index is outside 0..n-1",
                 3: "column indices are not sorted and unique"}


def write_graph(path: str | os.PathLike[str], indptr: np.ndarray, indices: np.ndarray, *,
                symmetric: bool) -> tuple[int, int]:
    """Write a square CSR pattern (A[i, j]: edge i -> j) as the driver reads it.

    Little-endian: ``b"GBBLEST1"``, u64 n, u64 nnz, u64 flags (bit 0: symmetric), u32
    indptr[n + 1], u32 indices[nnz]. Self-loops are dropped (Blest's Matrix Market reader
    drops them too; they change no BFS). Returns (n, nnz written).
    """
    indptr = np.ascontiguousarray(indptr)
    indices = np.ascontiguousarray(indices)
    if indptr.ndim != 1 or indices.ndim != 1 or indptr.size < 2:
        raise InvalidValue(f"indptr and indices must be 1-d with n >= 1 (indptr of n + 1 "
                           f"entries); got shapes {indptr.shape} and {indices.shape}")
    if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu":
        raise InvalidValue(f"indptr and indices must be integers; got {indptr.dtype} and "
                           f"{indices.dtype}")
    n = indptr.size - 1
    if int(indptr[0]) != 0 or int(indptr[-1]) != indices.size:
        raise InvalidValue(f"indptr must run from 0 to len(indices) = {indices.size}; got "
                           f"{int(indptr[0])}..{int(indptr[-1])}")
    if n > MAX_ID or indices.size > MAX_ID:
        raise InvalidValue(f"Blest holds vertex ids and edge offsets in 32 bits: n = {n} and "
                           f"nnz = {indices.size} must be at most {MAX_ID}")
    out_ptr = np.empty(n + 1, dtype="<u4")
    out_idx = np.empty(indices.size, dtype="<u4")
    code, k = _strip_loops(indptr.astype(np.int64, copy=False),
                           indices.astype(np.int64, copy=False), out_ptr, out_idx)
    if code:
        raise InvalidValue(f"not a canonical CSR pattern at row {k}: {_STRIP_ERRORS[code]}")
    head = np.zeros(1, dtype=HEADER)
    head[0] = (MAGIC, n, k, 1 if symmetric else 0)
    tmp = Path(f"{path}.tmp")
    with open(tmp, "wb") as f:
        f.write(head.tobytes())
        f.write(out_ptr.tobytes())
        f.write(out_idx[:k].tobytes())
    tmp.replace(path)
    return n, int(k)


def read_graph(path: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray, bool]:
    """(indptr, indices, symmetric) of a file written by :func:`write_graph`."""
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size < HEADER.itemsize:
        raise InvalidValue(f"{path}: {raw.size} bytes, shorter than the header")
    head = raw[:HEADER.itemsize].view(HEADER)[0]
    if head["magic"] != MAGIC:
        raise InvalidValue(f"{path} is not a Blest graph of gblas (magic {head['magic']!r})")
    n, nnz = int(head["n"]), int(head["nnz"])
    if raw.size != HEADER.itemsize + 4 * (n + 1 + nnz):
        raise InvalidValue(f"{path}: {raw.size} bytes, expected "
                           f"{HEADER.itemsize + 4 * (n + 1 + nnz)} for n={n}, nnz={nnz}")
    body = raw[HEADER.itemsize:].view("<u4")
    return body[:n + 1], body[n + 1:], bool(int(head["flags"]) & 1)


# ---------------------------------------------------------------------------- driver output
@dataclass
class Ready:
    """The driver's ``ready`` line: the graph as Blest sees it and its preprocessing."""

    n: int
    nnz: int
    social: bool
    full_padding: bool
    ordering: str  # jaccard-windows / natural (social graphs) or rcm
    ordering_cached: bool
    kernel: str  # the BVSSBFSKernel variant hostCode picks
    slices: int
    vsets: int
    update_divergence: float
    read_s: float
    csc_s: float  # the social-graph test (what Blest's CSC constructor adds to the read)
    reorder_s: float  # reading the cached ordering when ordering_cached
    bvss_s: float
    device: str
    raw: dict[str, str] = field(default_factory=dict)

    @property
    def prep_s(self) -> float:
        """Blest's preprocessing: the social test, the reordering and the BVSS build."""
        return self.csc_s + self.reorder_s + self.bvss_s


@dataclass
class BfsResult:
    """One ``bfs`` line of the driver (and the levels it wrote, when asked)."""

    source: int
    ms: float  # Blest's timer: cooperative launch + cudaDeviceSynchronize
    call_ms: float  # the whole BVSSBFSKernel::run call: uploads, allocations, copies back
    levels: int  # Blest's totalLevels: the deepest level + 1
    visited: int
    hist: list[int]  # vertices per level, 0 = the source
    level_array: np.ndarray | None = None  # int32, original ids, -1 where unreached


def _fields(line: str, kind: str, keys: tuple[str, ...]) -> dict[str, str]:
    if not line.startswith(kind + " "):
        raise InvalidValue(f"expected a '{kind} ...' line from Blest's driver, got "
                           f"{line[:200]!r}")
    kv = dict(_KV.findall(line))
    missing = [k for k in keys if k not in kv]
    if missing:
        raise InvalidValue(f"the driver's '{kind}' line lacks {', '.join(missing)}: "
                           f"{line[:200]!r}")
    return kv


_READY_KEYS = ("n", "nnz", "social", "full_padding", "ordering", "ordering_cached", "kernel",
               "slices", "vsets", "update_divergence", "read_s", "csc_s", "reorder_s",
               "bvss_s", "device")
_BFS_KEYS = ("source", "ms", "call_ms", "levels", "visited", "hist")


def parse_ready(line: str) -> Ready:
    kv = _fields(line.strip(), "ready", _READY_KEYS)
    try:
        return Ready(n=int(kv["n"]), nnz=int(kv["nnz"]), social=kv["social"] == "1",
                     full_padding=kv["full_padding"] == "1", ordering=kv["ordering"],
                     ordering_cached=kv["ordering_cached"] == "1", kernel=kv["kernel"],
                     slices=int(kv["slices"]), vsets=int(kv["vsets"]),
                     update_divergence=float(kv["update_divergence"]),
                     read_s=float(kv["read_s"]), csc_s=float(kv["csc_s"]),
                     reorder_s=float(kv["reorder_s"]), bvss_s=float(kv["bvss_s"]),
                     device=kv["device"].replace("_", " "), raw=kv)
    except ValueError as e:
        raise InvalidValue(f"a bad number in the driver's 'ready' line ({e}): "
                           f"{line[:200]!r}") from e


def parse_bfs(line: str) -> BfsResult:
    kv = _fields(line.strip(), "bfs", _BFS_KEYS)
    try:
        hist = [int(x) for x in kv["hist"].split(",")] if kv["hist"] else []
        return BfsResult(source=int(kv["source"]), ms=float(kv["ms"]),
                         call_ms=float(kv["call_ms"]), levels=int(kv["levels"]),
                         visited=int(kv["visited"]), hist=hist)
    except ValueError as e:
        raise InvalidValue(f"a bad number in the driver's 'bfs' line ({e}): "
                           f"{line[:200]!r}") from e


def level_hist(levels: np.ndarray) -> list[int]:
    """Vertices per level of a dense level array (negative = unreached)."""
    lv = np.asarray(levels)
    reached = lv[lv >= 0]
    return np.bincount(reached).tolist() if reached.size else []


def check_levels(res: BfsResult, ref: np.ndarray) -> str:
    """'ok', or how Blest's levels differ from ``ref`` (gblas's, -1 where unreached)."""
    ref = np.asarray(ref)
    want = level_hist(ref)
    if sum(res.hist) != res.visited:
        return f"Blest's histogram sums to {sum(res.hist)}, not its {res.visited} visited"
    if res.visited != int((ref >= 0).sum()):
        return f"reached {res.visited} vertices, gblas {int((ref >= 0).sum())}"
    if res.hist != want:
        return f"level sizes {res.hist[:8]}..., gblas {want[:8]}..."
    if res.level_array is not None:
        if res.level_array.shape != ref.shape:
            return f"{res.level_array.size} levels, gblas {ref.size}"
        bad = np.flatnonzero(res.level_array != ref)
        if bad.size:
            v = int(bad[0])
            return (f"{bad.size} vertices differ, e.g. {v}: Blest {int(res.level_array[v])}, "
                    f"gblas {int(ref[v])}")
    return "ok"


# ---------------------------------------------------------------------------- the driver process
class _Lines:
    """Lines of a pipe, read with a timeout (no thread, no partial-line loss)."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buf = fd, bytearray()
        self.sel = selectors.DefaultSelector()
        self.sel.register(fd, selectors.EVENT_READ)

    def readline(self, timeout_s: float) -> str | None:
        """The next line without its newline; None at end of file; TimeoutError."""
        deadline = time.monotonic() + timeout_s
        while (cut := self.buf.find(b"\n")) < 0:
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                raise TimeoutError(f"no line from Blest's driver in {timeout_s:.0f} s")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk
        line = bytes(self.buf[:cut])
        del self.buf[:cut + 1]
        return line.decode()


class BlestRun:
    """One driver process on one graph: preprocessing at start, then one BFS per call."""

    def __init__(self, binary: Path, graph: Path, *, jaccard: bool = True,
                 window: int = DEFAULT_WINDOW, ordering_cache: Path | None = None,
                 levels_path: Path | None = None, log_path: Path | None = None,
                 threads: int | None = None, timeout_s: float = 1800.0) -> None:
        self.levels_path, self.timeout_s = levels_path, timeout_s
        self.log_path = log_path or graph.with_suffix(".log")
        cmd = [str(binary), "--graph", str(graph), "--jaccard", "1" if jaccard else "0",
               "--window", str(int(window))]
        if ordering_cache is not None:
            cmd += ["--ordering-cache", str(ordering_cache)]
        if levels_path is not None:
            cmd += ["--levels", str(levels_path)]
        self.cmd = cmd
        self._log = open(self.log_path, "w")  # Blest's own messages (stderr)
        env = {**os.environ, "OMP_NUM_THREADS": str(int(threads))} if threads else None
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._log, env=env)
        assert self.proc.stdout is not None
        self._lines = _Lines(self.proc.stdout.fileno())
        self._ready: Ready | None = None
        self._error: Exception | None = None  # why the ready line never came
        self.first_reorder_s: float | None = None  # Blest.start: of the run that computed it
        self.wait_s = 0.0  # time spent waiting for the preprocessing

    @property
    def waited(self) -> bool:
        """Whether the ``ready`` line has been read."""
        return self._ready is not None

    @property
    def ready(self) -> Ready:
        """The ``ready`` line: waits until Blest's preprocessing is done. A failure (the
        driver exited, or timed out) is raised again on every later access."""
        if self._ready is None:
            if self._error is not None:
                raise self._error
            t0 = time.perf_counter()
            try:
                self._ready = parse_ready(self._expect("ready"))
            except (InvalidValue, TimeoutError) as e:
                self._error = e
                raise
            self.wait_s = time.perf_counter() - t0
        return self._ready

    def _expect(self, kind: str) -> str:
        try:
            line = self._lines.readline(self.timeout_s)
        except TimeoutError:
            self.close()
            raise
        if line is None:
            rc = self.proc.wait(timeout=60)
            self._log.flush()
            tail = self.log_path.read_text(errors="replace")[-1500:]
            self.close()
            raise InvalidValue(f"Blest's driver exited ({rc}) before its '{kind}' line: "
                               f"{' '.join(self.cmd)}\n{tail}")
        return line

    def bfs(self, source: int) -> BfsResult:
        """Blest's BFS from ``source`` (an original vertex id)."""
        if not 0 <= int(source) < self.ready.n:
            raise IndexOutOfBound(f"source {source} is outside 0..{self.ready.n - 1}")
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{int(source)}\n".encode())
        self.proc.stdin.flush()
        res = parse_bfs(self._expect("bfs"))
        if res.source != int(source):
            raise InvalidValue(f"asked Blest for source {source}, it answered {res.source}")
        if self.levels_path is not None:
            res.level_array = np.fromfile(self.levels_path, dtype="<i4")
        return res

    def close(self) -> None:
        if self.proc.stdin and not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        self._lines.sel.close()
        self._log.close()

    def __enter__(self) -> BlestRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---------------------------------------------------------------------------- built Blest
@dataclass
class BlestGraph:
    path: Path
    n: int
    nnz: int  # stored entries without self-loops (both directions of an undirected edge)
    write_s: float  # 0 when cached
    ordering_cache: Path


class Blest:
    """The built driver plus a cache of graph files and orderings."""

    def __init__(self, checkout: Path, build_root: Path = BUILD_ROOT, *,
                 arch: str | int = DEFAULT_ARCH, jaccard: bool = True,
                 window: int = DEFAULT_WINDOW, timeout_s: float = 1800.0) -> None:
        if int(window) <= 0 or int(window) % 8:
            raise InvalidValue(f"window must be a positive multiple of 8; got {window}")
        self.checkout, self.jaccard, self.window = checkout, bool(jaccard), int(window)
        self.timeout_s = timeout_s
        t0 = time.perf_counter()
        self.bin, self.rebuilt = build(checkout, Path(build_root), arch=arch)
        self.build_s = time.perf_counter() - t0
        self.graphs = Path(build_root) / "graphs"
        self.graphs.mkdir(parents=True, exist_ok=True)
        self.commit = _git_head(checkout)

    def meta(self) -> dict[str, Any]:
        return {"checkout": str(self.checkout), "commit": self.commit, "bin": str(self.bin),
                "build_s": round(self.build_s, 1), "rebuilt": self.rebuilt,
                "jaccard": self.jaccard, "window": self.window}

    def graph(self, label: str, indptr: np.ndarray, indices: np.ndarray, *,
              symmetric: bool) -> BlestGraph:
        """The driver's file of a CSR pattern (written once, then reused by content hash)."""
        indptr, indices = np.ascontiguousarray(indptr), np.ascontiguousarray(indices)
        h = hashlib.blake2b(digest_size=8)
        for a in (indptr, indices):
            h.update(a.dtype.str.encode())
            h.update(a.tobytes())
        h.update(b"sym" if symmetric else b"dir")
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", label) + "-" + h.hexdigest()
        path = self.graphs / f"{stem}.gbg"
        order = self.graphs / f"{stem}.order-j{int(self.jaccard)}-w{self.window}.bin"
        t0 = time.perf_counter()
        if not path.is_file():
            write_graph(path, indptr, indices, symmetric=symmetric)
        write_s = time.perf_counter() - t0
        n, nnz, _ = read_graph_header(path)
        return BlestGraph(path, n, nnz, write_s, order)

    def start(self, g: BlestGraph, *, levels: bool = True, wait: bool = True,
              threads: int | None = None) -> BlestRun:
        """A driver process on ``g`` (``threads``: its OpenMP threads; default all); with
        ``wait``, returns once Blest's preprocessing is done (else see
        :meth:`finish_start`)."""
        run = BlestRun(self.bin, g.path, jaccard=self.jaccard, window=self.window,
                       ordering_cache=g.ordering_cache,
                       levels_path=g.path.with_suffix(".levels") if levels else None,
                       log_path=g.path.with_suffix(".log"), threads=threads,
                       timeout_s=self.timeout_s)
        if wait:
            self.finish_start(run, g)
        return run

    @staticmethod
    def finish_start(run: BlestRun, g: BlestGraph) -> Ready:
        """Wait for ``run``'s preprocessing; set ``run.first_reorder_s``, the reordering
        time of the run that computed the (possibly cached) ordering."""
        sidecar = g.ordering_cache.with_suffix(".json")
        ready = run.ready
        run.first_reorder_s = ready.reorder_s
        if not ready.ordering_cached:
            sidecar.write_text(json.dumps({"reorder_s": ready.reorder_s}) + "\n")
        elif sidecar.is_file():
            run.first_reorder_s = float(json.loads(sidecar.read_text())["reorder_s"])
        return ready


def read_graph_header(path: Path) -> tuple[int, int, bool]:
    """(n, nnz, symmetric) from a graph file's header."""
    with open(path, "rb") as f:
        raw = f.read(HEADER.itemsize)
    if len(raw) < HEADER.itemsize:
        raise InvalidValue(f"{path}: shorter than the header")
    head = np.frombuffer(raw, dtype=HEADER)[0]
    if head["magic"] != MAGIC:
        raise InvalidValue(f"{path} is not a Blest graph of gblas (magic {head['magic']!r})")
    return int(head["n"]), int(head["nnz"]), bool(int(head["flags"]) & 1)


def _git_head(path: Path) -> str | None:
    """The checkout's commit, if it is the top of a git work tree (an exported archive, or
    a folder inside another repository, such as bench_out/blest, has none)."""
    try:
        out = subprocess.run(["git", "-C", str(path), "rev-parse", "--show-toplevel",
                              "--short", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.split()
    if out.returncode != 0 or len(lines) != 2 or Path(lines[0]).resolve() != path.resolve():
        return None
    return lines[1]
