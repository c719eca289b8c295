"""Semiring families of BFS (SlimSell, Besta et al., IPDPS'17, Table 1).

Each family computes one BFS level as a matrix-vector product. ``BFS[name]`` is the
semiring of the pull form ``Aᵀ.mxv(x)``; ``BFS_VXM[name]`` is the same family written as
``x.vxm(A)`` (the multiply flipped, which matters only for sel-max).
"""

from __future__ import annotations

from .model import Semiring, semiring

BFS: dict[str, Semiring] = {
    "boolean": semiring.lor_land,
    "real": semiring.plus_times,
    "tropical": semiring.min_plus,
    "selmax": semiring.max_second,
}

BFS_VXM: dict[str, Semiring] = {
    "boolean": semiring.lor_land,
    "real": semiring.plus_times,
    "tropical": semiring.min_plus,
    "selmax": semiring.max_first,
}

__all__ = ["BFS", "BFS_VXM"]
