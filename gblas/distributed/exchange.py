"""What moves between processes: a vector gathered whole (bitmap or sparse list), and
entries routed to their owners (all-to-all, Graph500 reference style) — per-vertex
contributions of a push, matrix entries, the requests of an index-list extract or assign
(and their answers, routed back).

Gathering picks, per call (per BFS level), the smaller of two encodings of the entries,
from the global entry count that one small all-gather of the part counts gives:

* sparse: the entries' indices (int32 while n < 2³¹) — 4·nvals bytes;
* bitmap: each part's presence bits packed 8 to a byte — n/8 bytes.

Values travel beside either encoding (present entries only) when the operation reads them;
a structure-only semiring (``any_pair``, positional) sends none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import Vector
from ..backend.keys import xp_of
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


class Routed:
    """Entries routed to their owners (:func:`route_to_owners`): what this process received
    (``idx``: local indices, ``payload``: the arrays sent beside), and the way back."""

    def __init__(self, idx: Any, payload: list[Any], send_counts: list[int],
                 recv_counts: list[int], layout: Layout,
                 stats: dict[str, Any] | None) -> None:
        self.idx, self.payload = idx, payload
        self.send_counts, self.recv_counts, self.layout = send_counts, recv_counts, layout
        self.stats = stats

    def reply(self, arr: Any) -> Any:
        """Send ``arr`` (one element per received entry, in the received order) back: every
        process gets the answers to its entries in the order it sent them."""
        if self.stats is not None:
            self.stats["bytes"] = self.stats.get("bytes", 0) + int(arr.nbytes)
        return self.layout.comm.alltoallv(arr, self.recv_counts, self.send_counts)[0]


def owner_counts(idx: Any, layout: Layout) -> list[int]:
    """How many of the global indices ``idx`` each process owns, ``idx`` grouped by owner in
    rank order (sorted, or stably sorted by owner): a binary search of the partition's
    offsets, valid for grouped indices because ``idx < offsets[p]`` holds exactly for the
    entries of the ranks below p."""
    xp = xp_of(idx)
    bounds = xp.searchsorted(idx, xp.asarray(layout.part.offsets))
    bounds = bounds.get() if hasattr(bounds, "get") else bounds
    return np.diff(np.asarray(bounds, dtype=np.int64)).tolist()


def route_to_owners(idx: Any, payload: Sequence[Any], layout: Layout, *,
                    stats: dict[str, Any] | None = None) -> Routed:
    """Send the entries at global indices ``idx`` (grouped by owner, see
    :func:`owner_counts`), with the arrays of ``payload`` beside (one element per entry), to
    the processes owning them: one all-to-all per array, the indices as int32 below 2³¹,
    the counts exchanged once. Entries arrive in rank order of their senders and, from each,
    in the order sent: a list split over the ranks in order arrives at every owner in its
    global order (what order-dependent folds need). ``stats`` adds the bytes sent."""
    comm = layout.comm
    send_counts = owner_counts(idx, layout)
    sent = idx.astype(_index_dtype(layout.n))
    ridx, recv_counts = comm.alltoallv(sent, send_counts)
    received = [comm.alltoallv(a, send_counts, recv_counts)[0] for a in payload]
    if stats is not None:
        stats["encoding"] = "routed"
        stats["bytes"] = stats.get("bytes", 0) + int(sent.nbytes) + sum(
            int(a.nbytes) for a in payload)
    return Routed(ridx.astype(np.int64) - layout.lo, received, send_counts, recv_counts,
                  layout, stats)


def route_entries(rows: Any, cols: Any, vals: Any, layout: Layout
                  ) -> tuple[Any, Any, Any]:
    """Send matrix entries (global ``rows``, any order) to the processes owning their rows;
    returns what this process received (global rows). ``vals`` may be None (iso).
    Host arrays through MPI: graphs are built on the host, then moved to the device."""
    if layout.comm.size == 1:  # the one process owns every row
        return rows, cols, vals
    order = layout.part.order_by_owner(layout.part.owner(rows))
    payload = [cols[order].astype(_index_dtype(layout.n))]
    if vals is not None:
        payload.append(vals[order])
    got = route_to_owners(rows[order], payload, layout)
    return (got.idx + layout.lo, got.payload[0].astype(np.int64),
            None if vals is None else got.payload[1])
