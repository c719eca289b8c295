"""The device Kronecker loader's stream arithmetic (gblas/distributed/kron_device.cu), checked
on the CPU: an edge computed as the kernel does (jump its chunk's PCG64 stream to the edge's
outputs with the jump table, XSL-RR, the level thresholds) equals the edge the host loader
draws from NumPy's stream. The kernel itself runs in tests/gpu/test_gpu_distributed.py."""

from __future__ import annotations

import numpy as np
import pytest

import gblas.distributed as gd
from gblas.distributed import kron_device
from gblas.exceptions import InvalidValue
from gblas.generators import _CHUNK, _rng, kronecker_chunk, kronecker_setup

_M128 = (1 << 128) - 1
_M64 = (1 << 64) - 1


def _jump(s: int, delta: int, inc: int, tab: np.ndarray) -> int:
    """The kernel's pcg_jump in Python integers."""
    j = 0
    while delta:
        if delta & 1:
            a = (int(tab[j, 0]) << 64) | int(tab[j, 1])
            g = (int(tab[j, 2]) << 64) | int(tab[j, 3])
            s = (a * s + inc * g) & _M128
        j, delta = j + 1, delta >> 1
    return s


def _xsl_rr(s: int) -> int:
    x = ((s >> 64) ^ s) & _M64
    rot = s >> 122
    return ((x >> rot) | (x << ((64 - rot) & 63))) & _M64


def _edge(cst: np.ndarray, tab: np.ndarray, t: np.ndarray, m: int, c: int, e: int,
          scale: int) -> tuple[int, int]:
    """Edge e of chunk c (unpermuted ids) as the kernel draws it (kron_edge of
    gblas/backend/pcg_kron.cuh, from the chunk's stream)."""
    s = (int(cst[c, 0]) << 64) | int(cst[c, 1])
    inc = (int(cst[c, 2]) << 64) | int(cst[c, 3])
    return _kron_edge(s, inc, e, min(_CHUNK, m - c * _CHUNK), scale, t, tab)


def _kron_edge(s: int, inc: int, e: int, kc: int, scale: int, t: np.ndarray,
               tab: np.ndarray) -> tuple[int, int]:
    s = _jump(s, e + 1, inc, tab)
    ik = jk = raw = 0
    for lev in range(scale):
        if lev % 2 == 0:
            if lev:
                s = _jump(s, kc, inc, tab)
            raw = _xsl_rr(s)
            u = raw & 0xFFFFFFFF
        else:
            u = raw >> 32
        t0, t1, t2 = (int(x) for x in t[lev])
        ib = int(u >= t1)
        jb = int(u >= t0) ^ ib ^ int(u >= t2)
        ik, jk = (ik << 1) | ib, (jk << 1) | jb
    return ik, jk


@pytest.mark.parametrize("scale", [5, 14])
def test_kernel_arithmetic_draws_the_host_loaders_edges(scale: int) -> None:
    seed = 7
    n, m, t, _ = kronecker_setup(scale, 16, 0.57, 0.19, 0.19, 0.0, _rng(seed))
    nchunks = -(-m // _CHUNK)
    cst, tab = kron_device.chunk_streams(seed, nchunks), kron_device.jump_table()
    assert cst.shape == (nchunks, 4) and tab.shape == (64, 4)
    for c in range(nchunks):
        kc = min(_CHUNK, m - c * _CHUNK)
        bitgen = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(c,)))
        i = np.empty(kc, dtype=np.uint32)
        j = np.empty(kc, dtype=np.uint32)
        kronecker_chunk(bitgen, t, i, j, np.empty(kc, dtype=np.uint32))
        for e in sorted({0, 1, 2, kc // 3, kc - 2, kc - 1}):
            assert _edge(cst, tab, t, m, c, e, scale) == (int(i[e]), int(j[e])), (c, e)


def test_one_stream_layout_of_the_benchmark_generator() -> None:
    """benchmarks/bfs_gpu.py's kron_keys (gblas.generators.kronecker on the device): one
    stream for all chunks, chunk c from stream position c * chunk * ceil(scale / 2)."""
    scale, seed = 14, 4
    rng = _rng(seed)
    n, m, t, _ = kronecker_setup(scale, 16, 0.57, 0.19, 0.19, 0.0, rng)
    st = rng.bit_generator.state["state"]
    s0, inc = int(st["state"]), int(st["inc"])
    tab, h = kron_device.jump_table(), (scale + 1) // 2
    for c in range(-(-m // _CHUNK)):
        kc = min(_CHUNK, m - c * _CHUNK)
        i = np.empty(kc, dtype=np.uint32)
        j = np.empty(kc, dtype=np.uint32)
        kronecker_chunk(rng.bit_generator, t, i, j, np.empty(kc, dtype=np.uint32))
        sc = _jump(s0, c * _CHUNK * h, inc, tab)
        for e in (0, kc // 2, kc - 1):
            assert _kron_edge(sc, inc, e, kc, scale, t, tab) == (int(i[e]), int(j[e])), (c, e)


def test_jump_table_is_the_lcg() -> None:
    """Row j of the table jumps 2^j steps of s -> a s + inc for any increment."""
    tab = kron_device.jump_table()
    a = kron_device._PCG_MULT
    s0, inc = 0x1234_5678_9ABC_DEF0_0FED_CBA9_8765_4321, 0xDEAD_BEEF_0000_0001 | 1
    s = s0
    for steps in range(1, 9):
        s = (a * s + inc) & _M128
        assert _jump(s0, steps, inc, tab) == s


def test_generate_argument_is_checked() -> None:
    comm = gd.local_comm()
    with pytest.raises(InvalidValue, match="generate must be"):
        gd.kronecker(6, comm=comm, generate="gpu")
    with pytest.raises(InvalidValue, match="needs GPU processes"):
        gd.kronecker(6, comm=comm, generate="device")
