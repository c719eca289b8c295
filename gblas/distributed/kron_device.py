"""The loader's Kronecker edges drawn on a process's GPU (``loader.kronecker(...,
generate="device")``).

:func:`loader.kronecker` draws the Graph500 Kronecker edges in chunks, chunk c from its own
stream ``PCG64(SeedSequence(seed, spawn_key=(c,)))``, on the host's threads, and sends every
key to the owner of its row. Here every process draws every edge on its GPU instead (a
thread an edge, jumping its chunk's stream to the edge's outputs: ``kron_device.cu``) and
keeps the keys of its own rows: nothing crosses the processes, the host computes only the
chunks' stream states, and the keys are born on the device where they are sorted. The edges
are the host loader's, drawn the same way from the same streams, so the graph is the same
(tests compare the two).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from ..backend.cuda import inline_includes
from ..exceptions import InvalidValue
from ..generators import _CHUNK, _rng, kronecker_setup

_SOURCE = Path(__file__).with_name("kron_device.cu")
_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645  # NumPy's PCG64 multiplier
_BLOCK = 256


def jump_table() -> np.ndarray:
    """(64, 4) uint64: for 2^j steps of PCG64's ``s -> a s + inc``, A = a^(2^j) and
    G = 1 + a + ... + a^(2^j - 1) (so the jump is ``s -> A s + inc G`` for any inc), each
    as (hi, lo) words."""
    rows, a, g = [], _PCG_MULT, 1
    for _ in range(64):
        rows.append((a >> 64, a & _MASK64, g >> 64, g & _MASK64))
        a, g = (a * a) & _MASK128, (g * (a + 1)) & _MASK128
    return np.array(rows, dtype=np.uint64)


def stream_words(bitgen: Any) -> tuple[int, int, int, int]:
    """(state hi, lo, increment hi, lo) of a PCG64 bit generator now: what pcg_kron.cuh's
    jumps start from."""
    st = bitgen.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"expected a PCG64 stream, got {st['bit_generator']}")
    s, inc = int(st["state"]["state"]), int(st["state"]["inc"])
    return s >> 64, s & _MASK64, inc >> 64, inc & _MASK64


def chunk_streams(seed: int, nchunks: int) -> np.ndarray:
    """(nchunks, 4) uint64: each chunk's PCG64 state and increment (hi, lo words) before its
    first draw, as the host loader seeds it."""
    out = np.empty((nchunks, 4), dtype=np.uint64)
    for c in range(nchunks):
        out[c] = stream_words(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(c,))))
    return out


@functools.cache
def _kernel(device_id: int) -> Any:
    import cupy as cp  # noqa: PLC0415

    with cp.cuda.Device(device_id):
        return cp.RawModule(code=inline_includes(_SOURCE),
                            options=("-std=c++17",)).get_function("dkron_keys")


def local_keys(scale: int, edge_factor: int, a: float, b: float, c: float, seed: int,
               noise: float, lo: int, hi: int, device_id: int) -> tuple[Any, int]:
    """(keys, bits): the keys ``(row - lo) << bits | col`` of both directions of every
    Kronecker edge (self-loops dropped, duplicates kept) whose row is in ``[lo, hi)``, as a
    CuPy uint64 array on the device, unsorted; ``bits`` is the column field's width."""
    import cupy as cp  # noqa: PLC0415

    if scale > 31:  # uint32 ids and 2 * scale key bits below 64 (hi << bits fits uint64)
        raise InvalidValue(f"the device loader handles scale <= 31, got {scale}")
    n, m, t, perm = kronecker_setup(scale, edge_factor, a, b, c, noise, _rng(seed))
    bits = max(1, (n - 1).bit_length())
    kern = _kernel(device_id)
    with cp.cuda.Device(device_id):
        cst = cp.asarray(chunk_streams(seed, -(-m // _CHUNK)))
        tab = cp.asarray(jump_table())
        thr = cp.asarray(np.ascontiguousarray(t, dtype=np.uint32).reshape(-1))
        per = cp.asarray(perm.astype(np.uint32))
        count = cp.zeros(1, dtype=np.uint64)
        grid = (int(min(max(1, -(-m // _BLOCK)), 65536)),)
        head = (cst, tab, np.int64(m), np.int64(_CHUNK), np.int32(scale), thr, per,
                np.int32(bits), np.uint64(lo << bits), np.uint64(hi << bits))
        if m:  # a first pass counts the keys (a null keys pointer), the second writes them
            kern(grid, (_BLOCK,), (*head, np.uint64(0), count))
        total = int(count.get()[0])
        keys = cp.empty(total, dtype=np.uint64)
        if total:
            count.fill(0)
            kern(grid, (_BLOCK,), (*head, keys, count))
    return keys, bits


__all__ = ["chunk_streams", "jump_table", "local_keys", "stream_words"]
