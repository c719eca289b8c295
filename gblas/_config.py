"""Process-wide tunables (every threshold of the planner is a key here)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .exceptions import InvalidValue

_DEFAULTS: dict[str, Any] = {
    # mxv direction for direction="auto" (GraphBLAST rule with hysteresis): switch from
    # push to pull when nvals(x)/n rises above push_to_pull, back when it falls below
    # pull_to_push.
    "push_to_pull": 0.04,
    "pull_to_push": 0.01,
    # masked mxm (non-complemented mask), direction="auto": dot products over the mask's
    # entries unless the saxpy's estimated work (Σ nnz(B(k,:)) over A's entries in the
    # mask's rows), times this weight (a saxpy's scattered accumulator costs more per
    # product than a dot's merge), is smaller than the dot's (Σ of merge lengths)
    "mxm_saxpy_weight": 4.0,
    # saxpy mxm on the GPU and the generic (array-primitive) mxm expand at most this many
    # products at a time (gblas.formats.chunks); 0 = auto: 2**24 on the CPU, on a GPU what
    # the free device memory allows (96 bytes a product in the CUDA saxpy, 2**20 to 2**28)
    "mxm_chunk_products": 0,
    # vectors whose density rises above this are stored as bitmaps, below it as sparse
    "bitmap_density": 0.05,
    # BFS direction rule (LAGraph), used by gblas.algorithms.bfs
    "bfs_alpha": 8.0,
    "bfs_beta1": 8.0,
    "bfs_beta2": 512.0,
    # gblas.algorithms.bfs on a CUDA matrix: "fused" runs the whole search in one persistent
    # cooperative kernel, "levels" as level kernels replayed from a CUDA graph (both through
    # gblas.cuda.bfs), "ops" the level loop of GraphBLAS operations
    "bfs_gpu": "fused",
    # gblas.algorithms.bfs on a CPU matrix: "fused" runs the whole search in one call into
    # Numba code (gblas/backend/bfs_fused.py), "ops" the level loop of GraphBLAS operations
    "bfs_cpu": "fused",
    # the BVSS slice test on a GPU: "auto" (1-bit Tensor Core MMAs on sm_80+, CUDA-core
    # popcounts below), "tc" (MMAs; emulated with shuffles below sm_80) or "popcount"
    "bvss_variant": "auto",
    # default device for objects created without one: "cpu", "cuda", "cuda:N" or "auto"
    "default_device": "cpu",
}

_config: dict[str, Any] = dict(_DEFAULTS)

# keys whose values are checked at set() time: the allowed values
_CHOICES: dict[str, tuple[Any, ...]] = {
    "bfs_gpu": ("fused", "levels", "ops"),
    "bfs_cpu": ("fused", "ops"),
    "bvss_variant": ("auto", "tc", "popcount"),
}


def get(key: str) -> Any:
    """The value of a configuration key."""
    try:
        return _config[key]
    except KeyError:
        raise InvalidValue(
            f"unknown config key {key!r}; known keys: {', '.join(sorted(_config))}"
        ) from None


def set(**kwargs: Any) -> None:  # noqa: A001 - mirrors python-graphblas' config API
    """Set configuration keys, e.g. ``gblas.config.set(push_to_pull=0.1)``. Nothing is set
    when a key is unknown or a value is not one of a key's choices."""
    for key, value in kwargs.items():
        get(key)
        choices = _CHOICES.get(key)
        if choices is not None and not any(
                type(value) is type(c) and value == c for c in choices):
            raise InvalidValue(f"config key {key!r} must be one of "
                               f"{', '.join(map(repr, choices))}, got {value!r}")
    _config.update(kwargs)


def reset() -> None:
    """Restore the defaults."""
    _config.clear()
    _config.update(_DEFAULTS)


@contextmanager
def override(**kwargs: Any) -> Iterator[None]:
    """Temporarily set configuration keys."""
    saved = {k: get(k) for k in kwargs}
    set(**kwargs)
    try:
        yield
    finally:
        _config.update(saved)


def as_dict() -> dict[str, Any]:
    return dict(_config)
