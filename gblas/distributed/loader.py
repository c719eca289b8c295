"""Graphs built in parts: no process ever holds the whole graph.

* :func:`kronecker`: the Graph500 Kronecker generator of gblas.generators, with its edges
  drawn in chunks of 2¹⁷, chunk c from its own stream ``PCG64(SeedSequence(seed,
  spawn_key=(c,)))``. Process p draws a contiguous range of chunks and sends both
  directions of every edge to the owner of its row (all-to-all, as the Graph500 reference
  code does); owners sort, drop duplicates and self-loops. The graph is therefore the same
  for every number of processes, and :func:`kronecker_serial` builds it in one process
  (same chunks, same seeds). It is a different sample than ``generators.kronecker`` with
  the same seed (whose edges come from one stream), of the same distribution.
* :func:`mmread`: a Matrix Market ``coordinate`` file read in byte ranges, one per
  process (cut at line ends), each parsed with gblas.io's parser and routed to its owners.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .. import Matrix
from .._device import device_index
from ..backend.threads import num_threads
from ..exceptions import InvalidValue
from ..generators import (
    _CHUNK,
    _rng,
    check_kronecker,
    csr_of_keys,
    kronecker_chunk,
    kronecker_setup,
    symmetric_graph,
)
from .comm import Comm, world
from .matrix import DistMatrix, from_edges
from .partition import BlockPartition, Layout

_BATCH_CHUNKS = 32  # chunks drawn between two all-to-alls (bounds the memory in flight)


def host_threads() -> int:
    """Threads a loader of this process may run: Numba's count (``NUMBA_NUM_THREADS``,
    which the benchmark sets to the host's cores over the processes)."""
    return max(1, int(num_threads()))


def _chunk_keys(scale: int, edge_factor: int, a: float, b: float, c: float, seed: int,
                noise: float, part: BlockPartition) -> Any:
    """(n, number of chunks, bits, keys). ``keys(chunks, pool)`` gives the keys
    ``row << bits | col`` of both directions of the edges of those chunks (self-loops
    dropped), grouped by the owner of their row (``part``: the row partition), and how
    many go to each owner.

    Each chunk has its own stream, so the pool's threads draw and group chunks side by
    side (PCG64's ``random_raw``, NumPy's ufuncs and sorts release the GIL), and the
    graph does not depend on the number of threads or processes."""
    n, m, t, perm = kronecker_setup(scale, edge_factor, a, b, c, noise, _rng(seed))
    bits = max(1, (n - 1).bit_length())
    sh = np.uint64(bits)
    nparts = part.nparts
    # owner p holds the keys in [bounds[p], bounds[p + 1])
    bounds = part.offsets.astype(np.uint64) << sh

    def one_chunk(ch: int) -> tuple[np.ndarray, np.ndarray]:
        k = min(_CHUNK, m - ch * _CHUNK)
        bitgen = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(ch,)))
        i = np.empty(k, dtype=perm.dtype)
        j = np.empty(k, dtype=perm.dtype)
        kronecker_chunk(bitgen, t, i, j, np.empty(k, dtype=np.uint32))
        i, j = perm[i].astype(np.uint64), perm[j].astype(np.uint64)
        keep = i != j
        i, j = i[keep], j[keep]
        keys = np.concatenate([(i << sh) | j, (j << sh) | i])
        if nparts == 1:
            return keys, np.array([keys.shape[0]], dtype=np.int64)
        owner = np.searchsorted(bounds, keys, side="right") - 1
        return keys[part.order_by_owner(owner)], np.bincount(owner, minlength=nparts)

    def keys_of(chunks: range, pool: ThreadPoolExecutor) -> tuple[np.ndarray, np.ndarray]:
        parts = list(pool.map(one_chunk, chunks))
        counts = np.sum([p[1] for p in parts], axis=0, dtype=np.int64) if parts else \
            np.zeros(nparts, dtype=np.int64)
        if len(parts) <= 1 or nparts == 1:
            keys = np.concatenate([p[0] for p in parts]) if parts else \
                np.empty(0, dtype=np.uint64)
            return keys, counts
        starts = [np.concatenate([[0], np.cumsum(p[1])]) for p in parts]
        return np.concatenate([p[0][st[q]:st[q + 1]] for q in range(nparts)
                               for p, st in zip(parts, starts)]), counts

    return n, -(-m // _CHUNK), bits, keys_of


def kronecker_serial(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19,
                     c: float = 0.19, seed: int = 0, *, noise: float = 0.0,
                     device: Any = None) -> Matrix:
    """In one process, the graph :func:`kronecker` builds over any number of processes."""
    scale, edge_factor = check_kronecker(scale, edge_factor, a, b, c, noise)
    n, nchunks, bits, keys_of = _chunk_keys(scale, edge_factor, a, b, c, seed, noise,
                                            BlockPartition(1 << scale, 1))
    with ThreadPoolExecutor(host_threads()) as pool:
        keys, _ = keys_of(range(nchunks), pool)
    return symmetric_graph(csr_of_keys(keys, n, n, bits, device))


def kronecker(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19,
              c: float = 0.19, seed: int = 0, *, noise: float = 0.0,
              comm: Comm | None = None, name: str | None = None,
              generate: str = "host") -> DistMatrix:
    """The Kronecker graph of :func:`kronecker_serial`, generated in parts: each process
    draws its share of the edge chunks (on :func:`host_threads` threads), sends every key
    ``row << bits | col`` to the owner of its row (all-to-all) and sorts what it received
    once, on its device (its GPU for a CUDA communicator). ``generate="device"`` (GPU
    processes, scale <= 31): every process draws every edge on its GPU from the same
    streams and keeps its rows' keys (:mod:`.kron_device`): no all-to-all, no host draws."""
    scale, edge_factor = check_kronecker(scale, edge_factor, a, b, c, noise)
    comm = world() if comm is None else comm
    layout = Layout(comm, 1 << scale)
    if generate not in ("host", "device"):
        raise InvalidValue(f"generate must be 'host' or 'device', got {generate!r}")
    if generate == "device":
        if layout.local_device == "cpu":  # (local_keys refuses scale > 31)
            raise InvalidValue(f"generate='device' needs GPU processes, got processes on "
                               f"{layout.local_device!r}")
        from .kron_device import local_keys  # noqa: PLC0415

        keys, bits = local_keys(scale, edge_factor, a, b, c, seed, noise, layout.lo,
                                layout.hi, device_index(layout.local_device))
        return _block_matrix(keys, bits, layout, comm, name or f"kron{scale}")
    n, nchunks, bits, keys_of = _chunk_keys(scale, edge_factor, a, b, c, seed, noise,
                                            layout.part)
    first, last = (comm.rank * nchunks) // comm.size, ((comm.rank + 1) * nchunks) // comm.size
    # every process runs the same number of batches (the all-to-all is collective)
    nbatches = -(-max(-(-nchunks // comm.size), 1) // _BATCH_CHUNKS)
    got: list[np.ndarray] = []
    with ThreadPoolExecutor(host_threads()) as pool:
        for bidx in range(nbatches):
            lo = first + bidx * _BATCH_CHUNKS
            keys, counts = keys_of(range(lo, min(lo + _BATCH_CHUNKS, last)), pool)
            if comm.size > 1:
                keys, _ = comm.alltoallv(keys, counts.tolist())
            got.append(keys)
    keys = np.concatenate(got) if len(got) > 1 else got[0]
    del got
    keys -= np.uint64(layout.lo) << np.uint64(bits)  # local rows
    return _block_matrix(keys, bits, layout, comm, name or f"kron{scale}")


def _block_matrix(keys: Any, bits: int, layout: Layout, comm: Comm, name: str) -> DistMatrix:
    """The DistMatrix of a symmetric graph from each process's keys ``local row << bits |
    col`` (host or device; sorted and deduplicated on the process's device)."""
    local = csr_of_keys(keys, layout.n_local, layout.n, bits, layout.local_device)
    if comm.size == 1:  # the one block is the whole (symmetric) graph
        symmetric_graph(local)
    return DistMatrix(local, layout, name=name, symmetric=True)


# ------------------------------------------------------------------------ Matrix Market
def mmread(path: str | os.PathLike[str], *, comm: Comm | None = None, dtype: Any = None,
           dup_op: Any = None, name: str | None = None) -> DistMatrix:
    """A square Matrix Market ``coordinate`` file as a DistMatrix, read in parts.

    Each process reads one byte range of the data section (uncompressed files; a
    compressed file is decompressed whole by every process, each then parsing its range),
    parses it with gblas.io's parser and sends every entry to its row's owner. Fields,
    symmetry (mirrored entries), duplicates (``dup_op``, default as gblas.io.mmread) and
    errors (``FILE:LINE: ...``) follow :func:`gblas.io.mmread`.
    """
    from .. import io as gio  # noqa: PLC0415
    from ..dtypes import BOOL, FP64, INT64, lookup_dtype  # noqa: PLC0415

    comm = world() if comm is None else comm
    fname = os.fspath(path)
    with open(fname, "rb") as f:
        compressed = f.read(2) in (b"\x1f\x8b", b"BZ", b"\xfd7")
    if compressed:
        data, _ = gio._read_bytes(fname)
        total = len(data)
    else:
        total = os.path.getsize(fname)
        with open(fname, "rb") as f:
            data = f.read(min(total, 1 << 20))
    fmt, field, sym, size, offset, first = _header(gio, data, fname, total, compressed)
    if fmt != "coordinate":
        raise InvalidValue(f"{fname}: distributed mmread reads 'coordinate' files, this one "
                           f"is {fmt!r}; read it with gblas.io.mmread and distribute it")
    nrows, ncols, nnz = size
    if nrows != ncols:
        raise InvalidValue(f"{fname}: a DistMatrix is square, the size line says "
                           f"{nrows} x {ncols}")
    # this process's bytes of the data section, cut at line ends
    span = total - offset
    start = offset + span * comm.rank // comm.size
    stop = offset + span * (comm.rank + 1) // comm.size
    body = _read_range(fname, data if compressed else None, start, stop, total, offset)
    lines_before = comm.exscan(body.count(b"\n"))
    pattern = field == "pattern"
    integer = field in ("integer", "pattern")
    ent = gio._parse_entries(body, ntok=2 if pattern else 3, nentries=None, integer=integer,
                             name=fname, first_line=first + lines_before, int_cols=2)
    got = int(comm.allreduce(int(ent.values.shape[0])))
    if got != nnz:
        raise InvalidValue(f"{fname}: the file holds {got} entries, but the size line "
                           f"announces {nnz}")
    a = ent.values
    why = f"the size line says {nrows} x {ncols}"
    gio._check_index(a[:, 0], 1, nrows, "row index", ent, fname, why)
    gio._check_index(a[:, 1], 1, ncols, "column index", ent, fname, why)
    r, c = a[:, 0].astype(np.int64) - 1, a[:, 1].astype(np.int64) - 1
    vals: Any = True if pattern else a[:, 2].copy()
    if sym != "general":
        r, c, vals = gio._mirror(r, c, vals, negate=sym == "skew-symmetric")
    out_dt = lookup_dtype(dtype) if dtype is not None else (
        BOOL if pattern else INT64 if integer else FP64)
    if not pattern:
        vals = vals.astype(out_dt.np_type)
    return from_edges(r, c, vals, Layout(comm, nrows), dtype=out_dt,
                      dup_op=gio._dup(dup_op, pattern),
                      symmetric=True if sym == "symmetric" else None, name=name)


def _header(gio: Any, data: bytes, fname: str, total: int, compressed: bool) -> Any:
    """gblas.io's header parser on the first MiB (the whole file when it is longer)."""
    try:
        return gio._mm_header(data, fname)
    except InvalidValue:
        if compressed or len(data) >= total:
            raise
        with open(fname, "rb") as f:
            return gio._mm_header(f.read(), fname)


def _read_range(fname: str, data: bytes | None, start: int, stop: int, total: int,
                offset: int) -> bytes:
    """The lines that start in [start, stop): a line belongs to the range its first byte is
    in (the data section's first line starts at ``offset``)."""
    def read(a: int, b: int) -> bytes:
        if data is not None:
            return data[a:b]
        with open(fname, "rb") as f:
            f.seek(a)
            return f.read(b - a)

    def line_start(pos: int) -> int:
        if pos <= offset:
            return offset
        at = pos - 1  # a line starts at pos when the byte before it ends a line
        while at < total:
            block = read(at, min(at + (1 << 16), total))
            k = block.find(b"\n")
            if k >= 0:
                return at + k + 1
            at += len(block)
        return total

    a, b = line_start(start), line_start(stop)
    return read(a, b) if b > a else b""
