"""Graph generators: Graph500 Kronecker, uniform random, 2D grid and road-like graphs.

    A = gb.generators.kronecker(20)          # Graph500 scale 20, edge factor 16
    A = gb.generators.parse_spec("road:1000000,seed=3")

Every generator is vectorised NumPy and deterministic: its random numbers come from
``np.random.Generator(np.random.PCG64(seed))`` in a fixed order and in fixed-size chunks,
so the same arguments give the same graph on any machine. All graphs are undirected
(both directions stored), without self-loops or duplicate edges, as iso-valued bool
matrices (every value True).

``progress`` (every generator): ``None``/``False`` is silent; ``True`` shows a tqdm bar
(when tqdm is installed) for work that lasts more than ~2 s; a callable is called as
``progress(done, total)`` as the work advances.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from ._device import device_index, get_array_module, move_array, normalize_device
from ._progress import Progress
from .core.matrix import Matrix
from .dtypes import BOOL
from .exceptions import InvalidValue
from .formats.csr.container import CSR

__all__ = ["kronecker", "urand", "grid2d", "road_like", "parse_spec"]

_CHUNK = 1 << 17  # edges generated per step (part of the definition of the streams)
_TWO32 = float(2**32)


def _rng(seed: Any) -> np.random.Generator:
    try:
        s = int(seed)
    except (TypeError, ValueError):
        raise InvalidValue(f"seed must be a non-negative integer, got {seed!r}") from None
    if s < 0:
        raise InvalidValue(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.Generator(np.random.PCG64(s))


def _check_scale(scale: Any, edge_factor: Any) -> tuple[int, int]:
    if int(scale) != scale or not 0 <= int(scale) <= 40:
        raise InvalidValue(f"scale must be an integer in 0..40 (n = 2**scale), got {scale!r}")
    if int(edge_factor) != edge_factor or int(edge_factor) < 0:
        raise InvalidValue(f"edge_factor must be a non-negative integer, got {edge_factor!r}")
    return int(scale), int(edge_factor)


_LOOP = np.uint64(2**64 - 1)  # key of a dropped self-loop (sorts last)


class _Keys:
    """64-bit keys ``(row << bits) | col`` of both directions of every edge.

    Edges are written chunk by chunk (``put``); ``matrix`` sorts the keys once and reads
    the CSR of the undirected simple graph off them (self-loops and duplicates dropped).
    Writing into one preallocated buffer keeps the memory traffic low.
    """

    def __init__(self, n: int, m: int) -> None:
        self.n, self.m = n, m
        self.bits = max(1, (n - 1).bit_length())
        if 2 * self.bits > 63:
            raise InvalidValue(f"n = {n} is too large (at most 2**31 vertices)")
        self.sh = np.uint64(self.bits)
        self.keys = np.empty(2 * m, dtype=np.uint64)

    def put(self, s: int, i: np.ndarray, j: np.ndarray) -> None:
        k = i.shape[0]
        if i.dtype.kind == "i":  # non-negative signed ids: reinterpret for the bit ops
            i, j = i.astype(np.int64, copy=False).view(np.uint64), \
                j.astype(np.int64, copy=False).view(np.uint64)
        for out, a, b in ((self.keys[s:s + k], i, j),
                          (self.keys[self.m + s:self.m + s + k], j, i)):
            np.copyto(out, a, casting="unsafe")
            np.left_shift(out, self.sh, out=out)
            np.bitwise_or(out, b, out=out, casting="unsafe")
        loops = i == j
        if loops.any():
            self.keys[s:s + k][loops] = _LOOP
            self.keys[self.m + s:self.m + s + k][loops] = _LOOP

    def matrix(self, device: Any) -> Matrix:
        keys = self.keys
        self.keys = np.empty(0, dtype=np.uint64)
        return symmetric_graph(csr_of_keys(keys, self.n, self.n, self.bits, device))


def symmetric_graph(A: Matrix) -> Matrix:
    """``A``, known to be symmetric by construction (both directions of every edge): the
    cached property spares the symmetry test and the transpose."""
    A._props["symmetric_True"] = True
    return A


def csr_of_keys(keys: np.ndarray, nrows: int, ncols: int, bits: int, device: Any) -> Matrix:
    """The iso bool matrix of the keys ``(row << bits) | col`` (sorted here, in place;
    duplicates and the keys of dropped self-loops removed). For a GPU the keys are moved
    first and sorted there (NumPy sorts on one core), and the CSR is born on the device."""
    dev = normalize_device(device)
    if dev == "cpu":
        return Matrix._from_csr(_csr_arrays(np, keys, nrows, ncols, bits), dev)
    cp = get_array_module(dev)
    with cp.cuda.Device(device_index(dev)):
        return Matrix._from_csr(_csr_arrays(cp, move_array(keys, dev), nrows, ncols, bits),
                                dev)


def _csr_arrays(xp: Any, keys: Any, nrows: int, ncols: int, bits: int) -> CSR:
    """:func:`csr_of_keys`'s CSR from keys of the array module ``xp``."""
    keys.sort()
    end = int(xp.searchsorted(keys, xp.asarray([_LOOP], dtype=np.uint64))[0])
    if end:
        first = xp.empty(end, dtype=bool)
        first[0] = True
        xp.not_equal(keys[1:end], keys[:end - 1], out=first[1:])
        keys = keys[:end][first]
        del first
    else:
        keys = keys[:0]
    sh = np.uint64(bits)
    bounds = xp.left_shift(xp.arange(nrows + 1, dtype=np.uint64), sh)
    indptr = xp.searchsorted(keys, bounds).astype(np.int64)
    xp.bitwise_and(keys, np.uint64((1 << bits) - 1), out=keys)
    return CSR(nrows, ncols, indptr, keys.view(np.int64), None, BOOL, True)


def _symmetric(i: np.ndarray, j: np.ndarray, n: int, device: Any) -> Matrix:
    """The undirected simple graph of the edges (i, j)."""
    keys = _Keys(n, i.shape[0])
    keys.put(0, i, j)
    return keys.matrix(device)


# ---------------------------------------------------------------------------- Kronecker
def _level_probs(a: float, b: float, c: float, noise: float, scale: int,
                 rng: np.random.Generator) -> np.ndarray:
    """(scale, 3) cumulative thresholds a, a+b, a+b+c per level (noisy Kronecker)."""
    d = 1.0 - a - b - c
    p = np.tile([a, b, c, d], (scale, 1))
    if noise:
        mu = rng.uniform(-noise, noise, size=scale)
        s = a + d
        p = np.stack([a - 2 * mu * a / s, b + mu, c + mu, d - 2 * mu * d / s], axis=1)
        p /= p.sum(axis=1, keepdims=True)
    return np.cumsum(p, axis=1)[:, :3]


def kronecker(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19,
              c: float = 0.19, seed: int = 0, *, noise: float = 0.0, device: Any = None,
              progress: Any = None) -> Matrix:
    """Graph500 Kronecker (R-MAT) graph with n = 2**scale vertices.

    As the Graph500 reference generator: ``edge_factor * n`` edges, each built bit by bit
    (one level per bit), where every level picks a quadrant with probabilities
    (a, b, c, d = 1-a-b-c); then the vertex ids are randomly permuted. Each level draws one
    32-bit uniform number per edge (two levels per 64-bit PCG64 output), which has the
    same distribution as the reference's two conditional draws. ``noise`` > 0 perturbs
    the probabilities per level (noisy Kronecker, Seshadhri, Pinar & Kolda 2013): with
    μ ~ U(-noise, noise), a -= 2μa/(a+d), b += μ, c += μ, d -= 2μd/(a+d).
    The result is made undirected, without self-loops and duplicate edges, so
    ``nvals`` is somewhat below ``2 * edge_factor * n``.
    """
    scale, edge_factor = check_kronecker(scale, edge_factor, a, b, c, noise)
    rng = _rng(seed)
    n, m, t, perm = kronecker_setup(scale, edge_factor, a, b, c, noise, rng)
    keys = _Keys(n, m)
    bitgen = rng.bit_generator
    with Progress(progress, m, f"kronecker scale {scale}") as bar:
        i = np.empty(_CHUNK, dtype=perm.dtype)
        j = np.empty(_CHUNK, dtype=perm.dtype)
        u = np.empty(_CHUNK, dtype=np.uint32)
        for s in range(0, m, _CHUNK):
            k = min(_CHUNK, m - s)
            kronecker_chunk(bitgen, t, i[:k], j[:k], u[:k])
            keys.put(s, perm[i[:k]], perm[j[:k]])
            bar.update(k)
        out = keys.matrix(device)
    return out


def check_kronecker(scale: Any, edge_factor: Any, a: float, b: float, c: float,
                    noise: float) -> tuple[int, int]:
    """Validate kronecker()'s parameters; returns (scale, edge_factor) as ints."""
    scale, edge_factor = _check_scale(scale, edge_factor)
    d = 1.0 - a - b - c
    if min(a, b, c) < 0 or d < -1e-12:
        raise InvalidValue(f"a, b, c must be >= 0 with a + b + c <= 1, got {a}, {b}, {c}")
    if noise < 0 or (noise and noise > min((a + d) / 2, b, c)):
        raise InvalidValue(f"noise must be in [0, min((a+d)/2, b, c)], got {noise}")
    return scale, edge_factor


def kronecker_setup(scale: int, edge_factor: int, a: float, b: float, c: float,
                    noise: float, rng: np.random.Generator
                    ) -> tuple[int, int, np.ndarray, np.ndarray]:
    """(n, m, per-level uint32 thresholds, vertex permutation) of a Kronecker graph, drawn
    from ``rng`` in kronecker()'s order (the level noise, then the permutation)."""
    n, m = 1 << scale, edge_factor << scale
    thr = _level_probs(a, b, c, noise, scale, rng)
    # thresholds on 32-bit uniforms u: quadrant a: u < t0, b: < t1, c: < t2, else d
    t = np.minimum(np.floor(thr * _TWO32), _TWO32 - 1).astype(np.uint32)
    if t.size:
        t[np.isclose(thr, 1.0)] = np.uint32(2**32 - 1)
    idt = np.uint32 if scale <= 32 else np.uint64
    perm = rng.permutation(n).astype(idt)
    return n, m, t, perm


_LO32 = np.uint64(0xFFFFFFFF)


def kronecker_chunk(bitgen: Any, t: np.ndarray, ik: np.ndarray, jk: np.ndarray,
                    uk: np.ndarray) -> None:
    """Draw ``ik.shape[0]`` edges (unpermuted ids, into ``ik``, ``jk``) from ``bitgen``:
    one 32-bit uniform per level, two levels per 64-bit output."""
    k = ik.shape[0]
    ik[:] = 0
    jk[:] = 0
    for lev in range(t.shape[0]):
        if lev % 2 == 0:
            raw = bitgen.random_raw(k)
            np.bitwise_and(raw, _LO32, out=uk, casting="unsafe")
        else:
            np.right_shift(raw, np.uint64(32), out=uk, casting="unsafe")
        t0, t1, t2 = t[lev]
        ibit = uk >= t1
        jbit = (uk >= t0) ^ ibit ^ (uk >= t2)
        np.left_shift(ik, 1, out=ik)
        np.bitwise_or(ik, ibit, out=ik)
        np.left_shift(jk, 1, out=jk)
        np.bitwise_or(jk, jbit, out=jk)


def urand(scale: int, edge_factor: int = 16, seed: int = 0, *, device: Any = None,
          progress: Any = None) -> Matrix:
    """Uniform random graph (Erdős–Rényi-like) with n = 2**scale vertices.

    ``edge_factor * n`` vertex pairs drawn uniformly (both ends from one 64-bit PCG64
    output), made undirected, self-loops and duplicates removed.
    """
    scale, edge_factor = _check_scale(scale, edge_factor)
    rng = _rng(seed)
    n, m = 1 << scale, edge_factor << scale
    with Progress(progress, m, f"urand scale {scale}") as bar:
        keys = _Keys(n, m)
        mask = np.uint64(n - 1)
        for s in range(0, m, _CHUNK):
            k = min(_CHUNK, m - s)
            raw = rng.bit_generator.random_raw(k)
            if scale <= 32:
                i, j = raw & mask, (raw >> np.uint64(32)) & mask
            else:
                i, j = raw & mask, rng.bit_generator.random_raw(k) & mask
            keys.put(s, i, j)
            bar.update(k)
        out = keys.matrix(device)
    return out


# ---------------------------------------------------------------------------- grids
def _grid_edges(rows: int, cols: int, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """4-neighbour edges (u < v) among the first n vertices of a rows×cols grid, row-major.

    Horizontal edges first (row-major), then vertical ones.
    """
    n = rows * cols if n is None else n
    v = np.arange(n, dtype=np.int64)
    h = v[(v % cols != cols - 1) & (v + 1 < n)]
    vert = v[v + cols < n]
    return np.concatenate([h, vert]), np.concatenate([h + 1, vert + cols])


def grid2d(rows: int, cols: int, *, device: Any = None, progress: Any = None) -> Matrix:
    """The 4-neighbour ``rows × cols`` grid graph (vertex ``r * cols + c``), undirected.

    Corners have degree 2, border vertices 3, inner vertices 4; diameter rows + cols - 2.
    """
    if int(rows) != rows or int(cols) != cols or rows < 1 or cols < 1:
        raise InvalidValue(f"grid2d needs positive integer rows and cols, got {rows}, {cols}")
    rows, cols = int(rows), int(cols)
    with Progress(progress, 1, "grid2d"):
        i, j = _grid_edges(rows, cols)
        out = _symmetric(i, j, rows * cols, device)
    return out


def road_like(n: int, seed: int = 0, *, extra: float = 0.3, diagonals: float = 0.05,
              coords: bool = False, device: Any = None, progress: Any = None) -> Any:
    """A planar, high-diameter, road-network-like graph on exactly ``n`` vertices.

    Construction: the n vertices are the first n points (row-major) of an R × C grid,
    R = round(√n), C = ⌈n / R⌉ (the last row may be partial; the point set stays
    connected). Each 4-neighbour grid edge gets a random weight; the minimum spanning
    tree of those weights (a random spanning tree, so the graph is connected) is kept,
    plus each other grid edge with probability ``extra`` (0.3), plus, in a fraction
    ``diagonals`` (0.05) of the grid cells, one of the two diagonals (random
    orientation). At most one diagonal per cell keeps the graph planar. A hop moves at
    most one grid step in each direction, so the diameter is at least max(R, C) - 1 and
    in practice about 1.9·√n (double-sweep BFS), of order √n as in road networks; the
    average degree is about 2.7, close to real road networks (2.1-2.6).

    ``coords=True`` returns ``(A, xy)`` with jittered planar positions (n × 2, the grid
    point ± 0.25).
    """
    from scipy.sparse import coo_matrix  # noqa: PLC0415
    from scipy.sparse.csgraph import minimum_spanning_tree  # noqa: PLC0415

    if int(n) != n or n < 1:
        raise InvalidValue(f"road_like needs a positive integer n, got {n!r}")
    if not (0 <= extra <= 1 and 0 <= diagonals <= 1):
        raise InvalidValue(f"extra and diagonals must be in [0, 1], got {extra}, {diagonals}")
    n = int(n)
    rng = _rng(seed)
    with Progress(progress, 4, "road_like") as bar:
        R = max(1, round(math.sqrt(n)))  # noqa: N806
        C = -(-n // R)  # noqa: N806
        u, v = _grid_edges(R, C, n)
        w = rng.random(u.shape[0]) + 1.0  # > 0: csgraph ignores explicit zeros
        bar.update(1)
        tree = minimum_spanning_tree(coo_matrix((w, (u, v)), shape=(n, n)).tocsr()).tocoo()
        bar.update(1)
        in_tree = np.zeros(u.shape[0], dtype=bool)
        if tree.nnz:
            ekey = u * n + v
            tkey = np.minimum(tree.row, tree.col).astype(np.int64) * n + np.maximum(tree.row,
                                                                                  tree.col)
            order = np.argsort(ekey)
            in_tree[order[np.searchsorted(ekey[order], tkey)]] = True
        keep = in_tree | (rng.random(u.shape[0]) < extra)
        # diagonals: cell (r, c) with corners v0 = r*C + c, v0+1, v0+C, v0+C+1 all < n
        cells = np.arange(max(n - C - 1, 0), dtype=np.int64)
        cells = cells[cells % C != C - 1]
        pick = rng.random(cells.shape[0]) < diagonals
        flip = rng.random(cells.shape[0]) < 0.5
        cells, flip = cells[pick], flip[pick]
        du = np.where(flip, cells + 1, cells)
        dv = np.where(flip, cells + C, cells + C + 1)
        bar.update(1)
        A = _symmetric(np.concatenate([u[keep], du]), np.concatenate([v[keep], dv]), n, device)
    if not coords:
        return A
    vid = np.arange(n)
    xy = np.stack([vid % C, vid // C], axis=1).astype(np.float64)
    xy += rng.uniform(-0.25, 0.25, size=xy.shape)
    return A, xy


# ---------------------------------------------------------------------------- specs
_SPEC_FORMS = ("kron:SCALE", "urand:SCALE", "grid:ROWSxCOLS (or grid:N for N×N)", "road:N",
               "each optionally followed by ':SEED' or ',seed=S' (kron/urand also "
               "',ef=EDGE_FACTOR'; kron ',noise=X')")
_NAMES = {"kron": "kron", "kronecker": "kron", "graph500": "kron", "rmat": "kron",
          "urand": "urand", "uniform": "urand", "grid": "grid", "grid2d": "grid",
          "road": "road", "road_like": "road"}


def _bad_spec(spec: str, why: str) -> InvalidValue:
    return InvalidValue(f"bad graph spec {spec!r}: {why}; valid forms: "
                        + "; ".join(_SPEC_FORMS))


def parse_spec(spec: str, *, device: Any = None, progress: Any = None) -> Matrix:
    """Generate the graph a short spec names.

    ``kron:SCALE``, ``urand:SCALE``, ``grid:ROWSxCOLS`` (``grid:N`` = N×N), ``road:N``.
    A seed follows as ``:SEED`` (``kron:20:7``) or ``,seed=S`` (``road:10000,seed=3``);
    kron and urand also take ``,ef=E`` (edge factor), kron ``,noise=X``. Sizes accept
    ``_`` separators and ``k``/``M`` suffixes for road (``road:1M``). Default seed 0.
    """
    if not isinstance(spec, str):
        raise _bad_spec(str(spec), "expected a string")
    head, sep, rest = spec.strip().lower().partition(":")
    kind = _NAMES.get(head.strip())
    if kind is None or not sep:
        raise _bad_spec(spec, f"unknown generator {head!r}" if kind is None
                        else "missing ':' and size")
    parts = [p.strip() for p in rest.split(",")]
    main = parts[0].split(":")
    if len(main) > 2 or not main[0]:
        raise _bad_spec(spec, "expected one size and an optional ':SEED'")
    opts: dict[str, str] = {}
    if len(main) == 2:
        opts["seed"] = main[1]
    for p in parts[1:]:
        key, eq, val = p.partition("=")
        if not eq or key.strip() not in ("seed", "ef", "edgefactor", "noise"):
            raise _bad_spec(spec, f"unknown option {p!r}")
        opts[key.strip()] = val.strip()
    try:
        seed = int(opts.get("seed", "0"))
        ef = int(opts.get("ef", opts.get("edgefactor", "16")))
        noise = float(opts.get("noise", "0"))
    except ValueError as e:
        raise _bad_spec(spec, f"bad option value ({e})") from None
    size = main[0].replace("_", "")
    mult = {"k": 10**3, "m": 10**6}
    if not re.fullmatch(r"\d+" if kind in ("kron", "urand") else r"\d+(x\d+)?" if
                        kind == "grid" else r"\d+(\.\d+)?[km]?|\d+", size):
        raise _bad_spec(spec, f"size {size!r} is not a non-negative integer"
                        + (" or ROWSxCOLS" if kind == "grid" else ""))
    try:
        if kind in ("kron", "urand"):
            scale = int(size)
            if kind == "kron":
                return kronecker(scale, ef, seed=seed, noise=noise, device=device,
                                 progress=progress)
            if "noise" in opts:
                raise _bad_spec(spec, "noise applies to kron only")
            return urand(scale, ef, seed, device=device, progress=progress)
        if set(opts) - {"seed"}:
            raise _bad_spec(spec, f"{kind} takes only a seed")
        if kind == "grid":
            m = re.fullmatch(r"(\d+)(?:x(\d+))?", size)
            if m is None:
                raise _bad_spec(spec, f"grid size {size!r} is not ROWSxCOLS or N")
            r = int(m.group(1))
            return grid2d(r, int(m.group(2) or r), device=device, progress=progress)
        n = int(float(size[:-1]) * mult[size[-1]]) if size[-1] in mult else int(size)
        return road_like(n, seed, device=device, progress=progress)
    except ValueError as e:
        if isinstance(e, InvalidValue):
            raise
        raise _bad_spec(spec, f"size {size!r} is not an integer") from None
