"""The whole direction-optimising BFS on a GPU with BVSS pull levels on Tensor Cores.

``bvss_bfs(A, source, ...)`` runs ``bfs_bvss`` from ``bfs_tc.cu`` once, a persistent
cooperative kernel: pull levels through the BVSS of Aᵀ (Blest's 1-bit MMAs over the queue of
active virtual slice sets, lazy vertex updates, a coalesced finalisation), push levels
through the CSR push of the fused CSR kernel, LAGraph's rule per level on the device. It is
what ``gblas.cuda.bfs`` / ``gblas.algorithms.bfs`` run for a CUDA matrix whose format is
``bvss`` (``A.to_format("bvss", reorder=...)``). With a reordering, the kernel works in the
reordered ids (the BVSS of P Aᵀ Pᵀ and the CSR of P A Pᵀ, built once and cached) and writes
levels and parents back in the caller's ids. Levels equal the CPU's; parents are valid BFS
parents (one in-neighbour on the level above), not necessarily the smallest.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..csr import bfs_fused as F
from . import cuda as C
from .container import BVSS, build_permuted

KERNEL_NAMES = {True: "cuda_bvss_bfs_tc", False: "cuda_bvss_bfs_popcount"}


def pull_rep(A: Any) -> BVSS:  # noqa: N803
    """The BVSS of Aᵀ with the parameters given to ``A.to_format("bvss", ...)`` (cached).
    When A's own BVSS was built with a reordering, its permutation is reused (it depends
    only on the structure of A + Aᵀ), so the reordering is paid once."""
    from .. import format_key  # noqa: PLC0415

    params = A._primary_params if A.format.split("(")[0] == "bvss" else {}
    key = format_key("bvss", True, params)
    fwd = A._reps.get(format_key("bvss", False, params))
    if key not in A._reps and fwd is not None and fwd.perm is not None:
        A._reps[key] = build_permuted(A._csr_T(), fwd.perm, fwd.reorder_info)
    return A._rep("bvss", transposed=True, **params)


def push_csr(A: Any, rep: BVSS) -> Any:  # noqa: N803
    """The CSR of A in the BVSS's ids (P A Pᵀ; A's own CSR without a reordering), cached on
    the BVSS."""
    if rep.perm is None:
        return A._csr()
    if "push_csr" not in rep._derived:
        from .reorder import permute_csr  # noqa: PLC0415

        rep._derived["push_csr"] = permute_csr(A._csr(), rep.perm)
    return rep._derived["push_csr"]


class BvssWork(F.Work):
    """The device buffers of one search: the CSR kernel's state (lvl, par, queues, chunk
    lists, counters, outputs; its two bitmaps serve as the BVSS pull's visited and seen
    bitmaps) plus the active-VSS queue and candidate parents."""

    def __init__(self, A: Any, rep: BVSS, parents: bool) -> None:  # noqa: N803
        cp = F._cp()
        self.rep = rep
        self.csr = push_csr(A, rep)
        self.alloc_state(A.nrows, self.csr.nnz, parents, ctr_words=24)
        self.vq = cp.empty((max(rep.nvss, 1), 2), dtype=np.int64)  # longlong2 entries
        self.cand = cp.empty(A.nrows if parents else 1, dtype=np.int32)


@functools.cache
def _kernel(device_id: int, tc: bool) -> tuple[Any, int, int]:
    """(the cooperative kernel, its resident blocks per SM, SMs), memoised per device: the
    occupancy query reads the device properties, ~1 ms a call."""
    kern = C.get_kernel(device_id, "bfs_tc.cu", f"bfs_bvss<{'true' if tc else 'false'}>",
                        cooperative=True)
    return (kern, *F.occupancy(kern, device_id))


def bvss_bfs(A: Any, source: int, *, parents: bool = False, direction: str = "auto",  # noqa: N803
             alpha: float = 8.0, beta1: float = 8.0, beta2: float = 512.0,
             blocks_per_sm: int | None = None) -> tuple[Any, Any, dict[str, Any]]:
    """BFS from ``source`` over the CUDA matrix ``A`` (BVSS pull, CSR push) in one kernel.

    Returns ``(levels, parents, info)`` as :func:`gblas.formats.csr.bfs_fused.fused_bfs`
    does, plus ``info["variant"]`` ("tc" or "popcount"), ``info["reorder"]`` and
    ``info["bvss"]`` (the format's ``stats()`` summary: slices, vss, compression ratio,
    reordering and build seconds). The first call on a matrix builds the BVSS of Aᵀ (and,
    with a reordering, the permuted CSR of A): a preprocessing cost, cached on A.
    """
    src = F.check_args(A, source, parents=parents, direction=direction, alpha=alpha,
                       beta1=beta1, beta2=beta2, blocks_per_sm=blocks_per_sm,
                       what="BVSS BFS kernel")
    cp = F._cp()
    dev = F._device_id(A.device)
    n = A.nrows
    with cp.cuda.Device(dev):
        rep = pull_rep(A)
        tc = C.use_tc(dev)
        kern, fit, sms = _kernel(dev, tc)
        w = BvssWork(A, rep, parents)
        per_sm = min(fit, blocks_per_sm or F._default_blocks_per_sm(n, w.csr.nnz, fit))
        use_perm = rep.perm is not None
        spos = int(rep.inverse_perm()[src]) if use_perm else src
        perm = rep.perm if use_perm else w.out_levels  # an unread placeholder pointer
        kern((per_sm * sms,), (F._BLOCK,), (
            w.csr.indptr, w.csr.indices, rep.set_ptr, rep.vss_ptr, rep.row_ids,
            rep.masks, np.int64(rep.nsets), perm, np.int32(use_perm),
            np.int64(n), np.int64(w.csr.nnz), np.int64(spos),
            np.int32(F._MODES[direction]), np.int32(bool(parents)),
            np.float64(alpha), np.float64(beta1), np.float64(beta2),
            w.lvl, w.par, w.q0, w.q1, w.own0, w.own1, w.vis0, w.vis1,
            w.vq, w.cand, w.ctr,
            w.out_levels, w.out_bits, w.out_parents, w.meta))
        levels, pi, info, reads = w.results(A, parents)
    st = rep.stats()
    info.update(grid=per_sm * sms, block=F._BLOCK, host_syncs=reads + int(use_perm),
                levels_per_sync=info["levels"], kernel=KERNEL_NAMES[tc],
                variant="tc" if tc else "popcount", reorder=rep.reorder,
                bvss={k: st[k] for k in ("slices", "vss", "compression_ratio", "bytes_per_edge",
                                         "reorder_seconds", "build_seconds")})
    return levels, pi, info


def applies(A: Any) -> bool:  # noqa: N803
    """Whether ``A`` asks for the BVSS BFS: a CUDA matrix whose primary format is bvss."""
    return getattr(A, "device", "cpu") != "cpu" and A.format.split("(")[0] == "bvss"


__all__ = ["KERNEL_NAMES", "applies", "bvss_bfs", "pull_rep", "push_csr"]
