"""CUDA-only extensions (``gblas.cuda``), in the spirit of python-graphblas' ``graphblas.ss``:
whole algorithms that run as dedicated kernels on a CUDA matrix, outside the GraphBLAS
operations.

- :func:`bfs` — the whole direction-optimising BFS on the device, by one of two methods:
  ``"fused"``: one persistent cooperative kernel (one grid barrier per level, one host read
  per search); ``"levels"``: ordinary kernel launches per phase, one level body replayed
  from a CUDA graph, the done flag read once per ``levels_per_sync`` levels. A matrix
  whose format is ``bvss`` (``A.to_format("bvss", reorder=...)``) runs the fused kernel
  with BVSS pull levels on 1-bit Tensor Cores (``gblas/formats/bvss/bfs_tc.py``).
- :func:`bfs_applies` — whether :func:`bfs` can run a given call; :func:`bfs_checked` runs
  such a call without validating it again (gblas.algorithms.bfs, which has).

The CSR paths give the levels, parents (smallest-index vertex one level up) and per-level
directions of ``gblas.algorithms.bfs`` on the CPU; the BVSS path the same levels and valid
parents (a vertex one level up, not always the smallest). CuPy is imported only when a kernel runs.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

from .core.descriptor import Descriptor
from .exceptions import InvalidObject, InvalidValue, NotImplementedForFormat

METHODS = ("fused", "levels")


@functools.cache
def _impl() -> SimpleNamespace:
    """What the calls use, imported on first use (the modules import CuPy lazily; here an
    import per call cost ~1 µs each of a search's host time)."""
    from .core.matrix import Matrix  # noqa: PLC0415
    from .core.vector import Vector  # noqa: PLC0415
    from .formats.bvss import bfs_tc  # noqa: PLC0415
    from .formats.csr import bfs_fused, bfs_levels  # noqa: PLC0415
    from .ops.plan import record  # noqa: PLC0415

    return SimpleNamespace(Matrix=Matrix, Vector=Vector, bfs_tc=bfs_tc, bfs_fused=bfs_fused,
                           bfs_levels=bfs_levels, record=record)


def _check_method(method: Any) -> str:
    if method not in METHODS:
        raise InvalidValue(f"method must be 'fused' or 'levels', got {method!r}")
    return method


def bfs_applies(A: Any, *, parents: bool = False, direction: str = "auto",  # noqa: N803
                alpha: Any = 8.0, beta1: Any = 8.0, beta2: Any = 512.0,
                method: str = "fused") -> bool:
    """Whether :func:`bfs` can run this search: a square gblas Matrix on a CUDA device with
    1 to 2³¹ - 2 vertices, a device of compute capability >= 7.0 (with cooperative launch),
    a known direction and method, and positive finite thresholds. False, never an error."""
    impl = _impl()
    if method not in METHODS or not isinstance(A, impl.Matrix) or A.device == "cpu":
        return False
    return impl.bfs_fused.applies(A, parents=parents, direction=direction, alpha=alpha,
                                  beta1=beta1, beta2=beta2)


def bfs(A: Any, source: int, *, parents: bool = False, direction: str = "auto",  # noqa: N803
        alpha: float = 8.0, beta1: float = 8.0, beta2: float = 512.0,
        method: str = "fused", levels_per_sync: int = 8,
        desc: Descriptor | None = None, step_log: bool = True
        ) -> tuple[Any, Any, dict[str, Any]]:
    """BFS from ``source`` over the CUDA matrix ``A``, the whole search on the device.

    Returns ``(levels, parents, info)``: ``levels`` an INT64 Vector on A's device (an entry
    per reached vertex), ``parents`` the INT64 parent Vector (the source its own parent) or
    None, and ``info``: ``levels`` (number of levels), ``reached``, ``directions`` and
    ``frontier`` (per step), ``step_us``, ``kernel_us``, ``grid``/``block``, ``host_syncs``
    (host reads), ``levels_per_sync`` and ``kernel``.

    ``direction``: ``"auto"`` (LAGraph's rule with ``alpha``, ``beta1``, ``beta2``),
    ``"push"`` or ``"pull"``. ``method``: ``"fused"`` (one cooperative kernel) or
    ``"levels"`` (level kernels from a CUDA graph; ``levels_per_sync`` levels between host
    reads). ``step_log=False`` (the fused CSR kernel): nothing is read back, the call
    returns while the kernel runs, the vectors' count is read when asked for, and ``info``
    holds only the launch (``grid``/``block``, ``host_syncs`` 0, ``kernel``); the other
    paths read their log anyway. The kernel that ran is recorded: ``gb.last_plan()`` and
    ``desc.last_kernel`` say ``cuda_csr_bfs_fused``, ``cuda_csr_bfs_async`` (the fused
    method's barrier-free kernel: road networks and meshes), ``cuda_csr_bfs_levels``, or for
    a bvss matrix ``cuda_bvss_bfs_tc`` / ``cuda_bvss_bfs_popcount`` (direction: the forced
    one, or None for ``"auto"``).

    Raises ``InvalidValue`` (method, direction, thresholds, ``levels_per_sync``, source),
    ``InvalidObject`` (not a Matrix), ``NotImplementedForFormat`` (not a square matrix on a
    CUDA device the kernels support) and ``IndexOutOfBound`` (source).
    """
    impl = _impl()
    _check_method(method)
    if not isinstance(A, impl.Matrix):
        raise InvalidObject(f"expected a gblas.Matrix adjacency matrix, got {type(A).__name__}")
    if A.device == "cpu":
        raise NotImplementedForFormat(
            f"gblas.cuda.bfs needs a matrix on a CUDA device, got one on {A.device!r}; "
            f"move it with A.to('cuda') or use gblas.algorithms.bfs")
    if (isinstance(levels_per_sync, bool) or not isinstance(levels_per_sync, int)
            or levels_per_sync < 1):
        raise InvalidValue(f"levels_per_sync must be a positive int, got {levels_per_sync!r}")
    if desc is not None and not isinstance(desc, Descriptor):
        raise InvalidObject(f"desc must be a gblas.Descriptor or None, got {type(desc).__name__}")
    kw: dict[str, Any] = dict(parents=parents, direction=direction, alpha=alpha, beta1=beta1,
                              beta2=beta2)
    return _search(impl, A, source, method, kw, levels_per_sync, desc, step_log, False)


def bfs_checked(A: Any, source: int, *, parents: bool, direction: str, alpha: float,  # noqa: N803
                beta1: float, beta2: float, method: str, step_log: bool
                ) -> tuple[Any, Any, dict[str, Any]]:
    """:func:`bfs` for a call :func:`bfs_applies` accepted, ``source`` an int id in range
    (gblas.algorithms.bfs): the same search, validated once instead of again in each
    layer below (the fused CSR kernel's ~10-15 µs of host time before its launch)."""
    kw: dict[str, Any] = dict(parents=parents, direction=direction, alpha=alpha, beta1=beta1,
                              beta2=beta2)
    return _search(_impl(), A, source, method, kw, 8, None, step_log, True)


def _search(impl: SimpleNamespace, A: Any, source: Any, method: str,  # noqa: N803
            kw: dict[str, Any], levels_per_sync: int, desc: Descriptor | None,
            step_log: bool, checked: bool) -> tuple[Any, Any, dict[str, Any]]:
    """The search of :func:`bfs` by the kernel its method and A's format take; ``checked``:
    the fused CSR kernel is called without validating again."""
    fmt = "csr"
    if method == "fused" and impl.bfs_tc.applies(A):  # A.to_format("bvss"): BVSS pull levels
        out = impl.bfs_tc.bvss_bfs(A, source, **kw)
        fmt = "bvss"
    elif method == "fused" and checked:
        fused = impl.bfs_fused
        out = fused.search(A, source, fused.default_key(
            kw["direction"], kw["parents"], float(kw["alpha"]), float(kw["beta1"]),
            float(kw["beta2"]), bool(step_log)))
    elif method == "fused":
        out = impl.bfs_fused.fused_bfs(A, source, step_log=bool(step_log), **kw)
    else:
        out = impl.bfs_levels.levels_bfs(A, source, levels_per_sync=levels_per_sync, **kw)
    kernel = out[2]["kernel"]
    impl.record(desc, "bfs", kernel, None if kw["direction"] == "auto" else kw["direction"],
                fmt)
    levels, parents_data, info = out
    Vector = impl.Vector  # noqa: N806
    pi = None if parents_data is None else Vector._from_data(parents_data, A.device)
    return Vector._from_data(levels, A.device), pi, info


__all__ = ["METHODS", "bfs", "bfs_applies", "bfs_checked"]
