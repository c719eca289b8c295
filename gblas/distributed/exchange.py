"""What moves between processes: a vector gathered whole (bitmap or sparse list) and
per-vertex contributions routed to their owners (all-to-all, Graph500 reference style).

Gathering picks, per call (per BFS level), the smaller of two encodings of the entries,
from the global entry count that one small all-gather of the part counts gives:

* sparse: the entries' indices (int32 while n < 2³¹) — 4·nvals bytes;
* bitmap: each part's presence bits packed 8 to a byte — n/8 bytes.

Values travel beside either encoding (present entries only) when the operation reads them;
a structure-only semiring (``any_pair``, positional) sends none.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import Vector
from ..formats.vector import VecData
from .partition import Layout


def _index_dtype(n: int) -> Any:
    return np.int32 if n < 2**31 else np.int64


def gather_full(local: Vector, layout: Layout, *, values: bool = True,
                stats: dict[str, Any] | None = None) -> Vector:
    """The whole vector (size n) on every process, from each process's part ``local``.

    ``values=False``: only the structure is needed (the values are left zero).
    ``stats`` receives ``encoding`` ("sparse" or "bitmap") and ``bytes`` (sent by this
    process)."""
    comm, xp, n = layout.comm, layout.comm.xp, layout.n
    counts = comm.allgather(int(local.nvals))
    total = sum(counts)
    dt = local.dtype
    itype = _index_dtype(n)
    sparse = total * np.dtype(itype).itemsize < (n + 7 * comm.size) // 8
    data = local._data
    if sparse:
        idx, vals = data.as_sparse()
        gidx, _ = comm.allgatherv((idx + layout.lo).astype(itype))
        gidx = gidx.astype(np.int64)
        gvals = comm.allgatherv(vals)[0] if values else xp.zeros(total, dtype=dt.np_type)
        out = VecData.sparse(n, dt, gidx, gvals)
        sent = idx.shape[0] * (np.dtype(itype).itemsize + (vals.itemsize if values else 0))
    else:
        bits, vals = data.as_bitmap()
        packed = xp.packbits(bits)
        gpacked, pcounts = comm.allgatherv(packed)
        parts, start = [], 0
        for p, c in enumerate(pcounts):
            lo, hi = layout.part.range(p)
            parts.append(xp.unpackbits(gpacked[start:start + c])[:hi - lo].astype(bool))
            start += c
        gbits = xp.concatenate(parts) if parts else xp.zeros(0, dtype=bool)
        gvals = xp.zeros(n, dtype=dt.np_type)
        if values:
            present, _ = comm.allgatherv(vals[bits])
            gvals[gbits] = present
        out = VecData.bitmap(n, dt, gbits, gvals, nvals=total)
        sent = packed.shape[0] + (int(local.nvals) * vals.itemsize if values else 0)
    if stats is not None:
        stats["encoding"] = "sparse" if sparse else "bitmap"
        stats["bytes"] = stats.get("bytes", 0) + int(sent)
    return Vector._from_data(out.normalized(), layout.local_device)


def route_to_owners(idx: Any, vals: Any, layout: Layout) -> tuple[Any, Any]:
    """Send the entries ``(idx, vals)`` (global indices, sorted) to the processes owning
    them; returns what this process received, as local indices (unsorted, duplicates
    possible) and values."""
    comm, xp = layout.comm, layout.comm.xp
    bounds = xp.searchsorted(idx, xp.asarray(layout.part.offsets))
    bounds = bounds.get() if hasattr(bounds, "get") else bounds
    send_counts = np.diff(np.asarray(bounds, dtype=np.int64)).tolist()
    ridx, _ = comm.alltoallv(idx.astype(_index_dtype(layout.n)), send_counts)
    rvals, _ = comm.alltoallv(vals, send_counts)
    return ridx.astype(np.int64) - layout.lo, rvals


def route_entries(rows: Any, cols: Any, vals: Any, layout: Layout
                  ) -> tuple[Any, Any, Any]:
    """Send matrix entries (global ``rows``, any order) to the processes owning their rows;
    returns what this process received (global rows). ``vals`` may be None (iso).
    Host arrays through MPI: graphs are built on the host, then moved to the device."""
    comm = layout.comm
    owner = layout.part.owner(rows)
    order = np.argsort(owner, kind="stable")
    counts = np.bincount(owner, minlength=comm.size).tolist()
    itype = _index_dtype(layout.n)
    rrows, _ = comm.alltoallv(rows[order].astype(itype), counts)
    rcols, _ = comm.alltoallv(cols[order].astype(itype), counts)
    rvals = None if vals is None else comm.alltoallv(vals[order], counts)[0]
    return rrows.astype(np.int64), rcols.astype(np.int64), rvals
