"""Graph I/O: Matrix Market, edge lists (SNAP text), ``.npz``, SciPy and NetworkX.

    A = gb.io.mmread("road.mtx.gz")            # pattern -> iso bool (True)
    gb.io.mmwrite("out.mtx.gz", A)             # symmetric detected, written once
    A = gb.io.read_edgelist("web-Google.txt")  # SNAP text; comments skipped
    A = gb.io.read("graph.csv"); gb.io.write("graph.npz", A)

Readers parse the data section in one vectorised pass (``np.fromstring`` on the bytes
after the header) and only walk the file line by line when something is wrong, to say
which line is at fault. Compressed files (gzip, bz2, xz) are recognised by their magic
bytes on reading and by their suffix (``.gz``, ``.bz2``, ``.xz``) on writing. Every
malformed input raises :class:`~gblas.exceptions.InvalidValue` whose message reads
``FILE:LINE: what is wrong``.
"""

from __future__ import annotations

import bz2
import gzip
import io as _stdio
import lzma
import os
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

import numpy as np

from ._progress import Progress
from .core.matrix import Matrix
from .dtypes import BOOL, FP64, INT64, DataType, lookup_dtype
from .exceptions import InvalidValue
from .semirings import binary

__all__ = [
    "mmread", "mmwrite", "read_edgelist", "write_edgelist", "save_npz", "load_npz",
    "from_scipy_sparse", "to_scipy_sparse", "from_networkx", "to_networkx", "read", "write",
]

_DECOMPRESS = ((b"\x1f\x8b", gzip.decompress), (b"BZh", bz2.decompress),
               (b"\xfd7zXZ\x00", lzma.decompress))
_WS = b" \t\r\n\x0b\x0c"
_CHUNK = 1 << 20  # entries formatted per write
_MARK = b"-7777777777777777777"  # line-end marker of the fast parser (never a valid index)
_MARK_VALUE = -7777777777777777777


# ---------------------------------------------------------------------------- bytes in/out
def _source_name(source: Any) -> str:
    if isinstance(source, (str, os.PathLike)):
        return str(os.fsdecode(source))
    return str(getattr(source, "name", "<stream>"))


def _read_bytes(source: Any) -> tuple[bytes, str]:
    """The (decompressed) content of a path or a readable file object, and its name."""
    name = _source_name(source)
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            data = f.read()
    elif hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode()
    else:
        raise InvalidValue(f"expected a path or a file object, got {type(source).__name__}")
    for magic, decompress in _DECOMPRESS:
        if data.startswith(magic):
            try:
                data = decompress(data)
            except (OSError, EOFError, lzma.LZMAError) as e:
                raise InvalidValue(f"{name}: cannot decompress: {e}") from None
            break
    return data, name


@contextmanager
def _open_write(target: Any) -> Iterator[IO[bytes]]:
    """A binary file for ``target`` (path, compressed by suffix, or a file object)."""
    if not isinstance(target, (str, os.PathLike)):
        if not hasattr(target, "write"):
            raise InvalidValue(f"expected a path or a file object, got {type(target).__name__}")
        if hasattr(target, "encoding") or isinstance(target, _stdio.TextIOBase):
            yield _TextAdapter(target)  # type: ignore[misc]
        else:
            yield target
        return
    path = os.fsdecode(target).lower()
    if path.endswith(".gz"):
        f: Any = gzip.open(target, "wb", compresslevel=6)
    elif path.endswith(".bz2"):
        f = bz2.open(target, "wb")
    elif path.endswith(".xz"):
        f = lzma.open(target, "wb")
    else:
        f = open(target, "wb")  # noqa: SIM115
    with f:
        yield f


class _TextAdapter:
    def __init__(self, f: Any) -> None:
        self._f = f

    def write(self, b: bytes) -> None:
        self._f.write(b.decode())


def _inner_suffix(path: str) -> str:
    p = path.lower()
    for z in (".gz", ".bz2", ".xz"):
        if p.endswith(z):
            p = p[: -len(z)]
    return os.path.splitext(p)[1]


# ---------------------------------------------------------------------------- parsing
def _fromstring(body: bytes, dt: Any) -> np.ndarray | None:
    """All whitespace-separated numbers of ``body``; None if some token is not a number."""
    if not body or body.isspace():
        return np.empty(0, dtype=dt)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            return np.fromstring(body, dtype=dt, sep=" ")
        except (ValueError, DeprecationWarning):
            return None


def _token_ok(tok: bytes, integer: bool) -> bool:
    try:
        int(tok) if integer else float(tok)
    except ValueError:
        return False
    return True


class _Entries:
    """Parsed numbers of a data section (one row per entry) and each entry's line."""

    def __init__(self, values: np.ndarray, first_line: int, lines: np.ndarray | None) -> None:
        self.values = values
        self._first = first_line
        self._lines = lines

    def line(self, entry: int) -> int:
        return int(self._lines[entry]) if self._lines is not None else self._first + entry


def _parse_entries(body: bytes, *, ntok: int, nentries: int | None, integer: bool,
                   name: str, first_line: int, comments: bytes = b"%",
                   what: str = "entries", per_line: bool = True,
                   int_cols: int = 0) -> _Entries:
    """Numbers of ``nentries`` lines of ``ntok`` tokens each (``nentries=None``: any count).

    Fast path: one ``np.fromstring`` over the whole section plus a line count. Only when
    that does not add up is the section walked line by line, to find the faulty line.
    """
    dt = np.int64 if integer else np.float64
    arr: np.ndarray | None = None
    if per_line:
        # a marker number at every line end: the markers must then sit exactly every
        # ntok + 1 numbers, which checks the token count of every line at once
        start, end = 0, len(body)
        while start < end and body[start] in _WS:
            start += 1
        while end > start and body[end - 1] in _WS:
            end -= 1
        skipped = body.count(b"\n", 0, start)
        marked = body[start:end].replace(b"\n", b" " + _MARK + b"\n") + b" " + _MARK
        fast = _fromstring(marked, dt) if end > start else np.empty(0, dt)
        del marked
        if fast is not None and fast.size % (ntok + 1) == 0:
            rows = fast.reshape(-1, ntok + 1)
            n = rows.shape[0] if nentries is None else nentries
            if rows.shape[0] == n and bool(np.all(rows[:, ntok] == dt(_MARK_VALUE))):
                return _Entries(rows, first_line + skipped, None)
    else:
        arr = _fromstring(body, dt)
        if arr is not None and nentries is not None and arr.size == ntok * nentries:
            return _Entries(arr.reshape(-1, 1), first_line, None)
    # slow path: walk the lines (error path, or blank/comment lines inside the data)
    lines: list[int] = []
    kept: list[bytes] = []
    tokens = 0
    for k, raw in enumerate(body.split(b"\n")):
        s = raw.strip()
        if not s or s[:1] in comments:
            continue
        lineno = first_line + k
        toks = s.split()
        if per_line and len(toks) != ntok:
            raise InvalidValue(
                f"{name}:{lineno}: expected {ntok} values per line ({what}), got {len(toks)}: "
                f"{s[:80].decode(errors='replace')!r}")
        for j, t in enumerate(toks):
            if not _token_ok(t, integer or j < int_cols):
                kind = "an integer" if integer or j < int_cols else "a number"
                raise InvalidValue(
                    f"{name}:{lineno}: token {t[:40].decode(errors='replace')!r} is not "
                    f"{kind}")
        tokens += len(toks)
        if nentries is not None and per_line and len(lines) >= nentries:
            raise InvalidValue(
                f"{name}:{lineno}: more {what} than the {nentries} announced by the size line")
        lines.extend([lineno] * (len(toks) if not per_line else 1))
        kept.append(s)
    count = len(lines) if per_line else tokens
    if nentries is not None and count != (nentries if per_line else ntok * nentries):
        want = nentries if per_line else ntok * nentries
        last = first_line + body.count(b"\n", 0, len(body.rstrip()))
        raise InvalidValue(
            f"{name}:{last}: file ends after {count} {what}, but the size line announces "
            f"{want}")
    if arr is None:
        arr = _fromstring(b"\n".join(kept), dt)
        if arr is None:  # a token Python accepts but NumPy does not (e.g. '1_000')
            raise InvalidValue(f"{name}: could not parse the numbers of the data section")
    if not per_line:
        return _Entries(arr.reshape(-1, 1), first_line, None)
    return _Entries(arr.reshape(-1, ntok), first_line, np.asarray(lines, dtype=np.int64))


def _check_index(idx: np.ndarray, lo: int, hi: int, what: str, ent: _Entries, name: str,
                 why: str) -> None:
    if idx.size == 0:
        return
    mn, mx = idx.min(), idx.max()
    if mn >= lo and mx <= hi:
        return
    e = int(np.argmax((idx < lo) | (idx > hi)))
    x = idx[e]
    shown = int(x) if x == np.floor(x) else x
    raise InvalidValue(f"{name}:{ent.line(e)}: {what} {shown} is out of range {lo}..{hi} "
                       f"({why})")


def _check_integral(x: np.ndarray, what: str, ent: _Entries, name: str) -> None:
    bad = x != np.floor(x)
    if bad.any():
        e = int(np.argmax(bad))
        raise InvalidValue(f"{name}:{ent.line(e)}: {what} {x[e].item()!r} is not an integer")


def _mirror(r: np.ndarray, c: np.ndarray, v: Any, negate: bool = False
            ) -> tuple[np.ndarray, np.ndarray, Any]:
    off = r != c
    rr = np.concatenate([r, c[off]])
    cc = np.concatenate([c, r[off]])
    if isinstance(v, np.ndarray):
        v = np.concatenate([v, -v[off] if negate else v[off]])
    return rr, cc, v


def _dup(dup_op: Any, pattern: bool) -> Any:
    if dup_op is not None:
        return dup_op
    return binary.any if pattern else binary.plus


# ---------------------------------------------------------------------------- Matrix Market
_FIELDS = ("real", "double", "integer", "pattern", "complex")
_SYMS = ("general", "symmetric", "skew-symmetric", "hermitian")


def _mm_header(data: bytes, name: str) -> tuple[str, str, str, list[int], int, int]:
    """(format, field, symmetry, size numbers, body offset, line number of the body)."""
    pos, lineno = 0, 0
    banner: list[str] | None = None
    while True:
        lineno += 1
        if pos >= len(data):
            what = "banner" if banner is None else "size line"
            raise InvalidValue(f"{name}:{lineno}: file ends before the {what}")
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        line = data[pos:end].decode("latin-1").strip()
        pos = end + 1
        if banner is None:
            banner = line.lower().split()
            if not banner or banner[0] != "%%matrixmarket":
                raise InvalidValue(
                    f"{name}:1: bad banner {line[:60]!r}: a Matrix Market file starts with "
                    "'%%MatrixMarket matrix coordinate|array real|integer|pattern "
                    "general|symmetric|skew-symmetric'")
            if len(banner) != 5 or banner[1] != "matrix":
                raise InvalidValue(
                    f"{name}:1: bad banner {line!r}: expected 5 words, "
                    "'%%MatrixMarket matrix <format> <field> <symmetry>'")
            fmt, field, sym = banner[2:]
            if fmt not in ("coordinate", "array"):
                raise InvalidValue(f"{name}:1: bad banner: format {fmt!r} is not "
                                   "'coordinate' or 'array'")
            if field not in _FIELDS:
                raise InvalidValue(f"{name}:1: bad banner: field {field!r} is not one of "
                                   "real, integer, pattern")
            if field == "complex":
                raise InvalidValue(f"{name}:1: complex matrices are not supported (gblas has "
                                   "no complex types)")
            if sym not in _SYMS:
                raise InvalidValue(f"{name}:1: bad banner: symmetry {sym!r} is not one of "
                                   "general, symmetric, skew-symmetric")
            if sym == "hermitian":
                raise InvalidValue(f"{name}:1: hermitian matrices are not supported (they "
                                   "are complex)")
            if field == "pattern" and (fmt == "array" or sym == "skew-symmetric"):
                raise InvalidValue(f"{name}:1: bad banner: 'pattern' cannot be combined with "
                                   f"'{fmt if fmt == 'array' else sym}'")
            continue
        if not line or line.startswith("%"):
            continue
        want = 3 if fmt == "coordinate" else 2
        toks = line.split()
        try:
            size = [int(t) for t in toks]
        except ValueError:
            size = []
        if len(size) != want or min(size) < 0:
            form = "'nrows ncols nnz'" if want == 3 else "'nrows ncols'"
            raise InvalidValue(f"{name}:{lineno}: bad size line {line[:60]!r}: expected {form} "
                               "as non-negative integers")
        return fmt, field, sym, size, min(pos, len(data)), lineno + 1


def mmread(source: Any, *, dtype: Any = None, device: str | None = None,
           name: str | None = None, dup_op: Any = None, progress: Any = None) -> Matrix:
    """Read a Matrix Market file (path, ``.gz``/``.bz2``/``.xz``, or a file object).

    * ``coordinate`` and ``array`` formats; fields ``pattern`` (an iso-valued bool matrix
      of True), ``integer`` (INT64) and ``real`` (FP64); ``dtype`` casts the values.
    * ``symmetric`` files store one triangle: off-diagonal entries are mirrored.
      ``skew-symmetric`` mirrors them negated. ``array`` files store every value
      (zeros included) as an entry. ``complex`` and ``hermitian`` raise InvalidValue.
    * Duplicate entries are combined with ``dup_op`` (default: dropped for ``pattern``,
      summed with ``binary.plus`` otherwise), as SciPy does.
    * Malformed input raises InvalidValue naming the file, the line and the fault.
    * ``progress``: see :mod:`gblas._progress` (three steps: read, parse, build).
    """
    with Progress(progress, 3, f"reading {_source_name(source)}", unit="step") as bar:
        return _mmread(source, dtype, device, name, dup_op, bar)


def _mmread(source: Any, dtype: Any, device: str | None, name: str | None, dup_op: Any,
            bar: Progress) -> Matrix:
    bar.stage("read")
    data, fname = _read_bytes(source)
    bar.update(1)
    bar.stage("parse")
    fmt, field, sym, size, offset, first = _mm_header(data, fname)
    body = data[offset:]
    del data
    pattern = field == "pattern"
    integer = field in ("integer", "pattern")
    nrows, ncols = size[0], size[1]
    if sym != "general" and nrows != ncols:
        raise InvalidValue(f"{fname}:{first - 1}: a {sym} matrix must be square, the size "
                           f"line says {nrows} x {ncols}")
    out_dt = lookup_dtype(dtype) if dtype is not None else (
        BOOL if pattern else INT64 if integer else FP64)
    if fmt == "array":
        n = ncols
        if sym == "general":
            want = nrows * ncols
        else:
            want = n * (n + 1) // 2 if sym == "symmetric" else n * (n - 1) // 2
        ent = _parse_entries(body, ntok=1, nentries=want, integer=integer, name=fname,
                             first_line=first, per_line=False, what="values")
        vals = ent.values[:, 0]
        bar.update(1)
        bar.stage("build")
        if sym == "general":
            k = np.arange(want, dtype=np.int64)
            r, c = k % max(nrows, 1), k // max(nrows, 1)
        else:
            c, r = np.triu_indices(n, 0 if sym == "symmetric" else 1)
            r, c, vals = _mirror(r.astype(np.int64), c.astype(np.int64), vals,
                                 negate=sym == "skew-symmetric")
        return Matrix.from_coo(r, c, vals, out_dt, nrows=nrows, ncols=ncols, name=name,
                               device=device)
    nnz = size[2]
    ntok = 2 if pattern else 3
    ent = _parse_entries(body, ntok=ntok, nentries=nnz, integer=integer, name=fname,
                         first_line=first, int_cols=2,
                         what="entries ('row col' per line)" if pattern
                         else "entries ('row col value' per line)")
    del body
    a = ent.values
    r, c = a[:, 0], a[:, 1]
    why = f"the size line says {nrows} x {ncols}"
    _check_index(r, 1, nrows, "row index", ent, fname, why)
    _check_index(c, 1, ncols, "column index", ent, fname, why)
    if not integer:
        _check_integral(r, "row index", ent, fname)
        _check_integral(c, "column index", ent, fname)
    bar.update(1)
    bar.stage("build")
    r = r.astype(np.int64) - 1
    c = c.astype(np.int64) - 1
    vals: Any = True if pattern else a[:, 2].copy()
    del a
    if sym == "skew-symmetric":
        diag = r == c
        if diag.any() and (vals[diag] != 0).any():
            e = int(np.flatnonzero(diag & (vals != 0))[0])
            raise InvalidValue(f"{fname}:{ent.line(e)}: a skew-symmetric matrix has a zero "
                               f"diagonal, got {vals[e]!r} at ({r[e] + 1}, {c[e] + 1})")
    if sym != "general":
        r, c, vals = _mirror(r, c, vals, negate=sym == "skew-symmetric")
    return Matrix.from_coo(r, c, vals, out_dt, nrows=nrows, ncols=ncols,
                           dup_op=_dup(dup_op, pattern), name=name, device=device)


def _is_symmetric(r: np.ndarray, c: np.ndarray, v: np.ndarray, n: int,
                  negate: bool = False) -> bool:
    """Whether entries (sorted row-major, no duplicates) equal those of the transpose."""
    keys = r * max(n, 1) + c
    tkeys = c * max(n, 1) + r
    order = np.argsort(tkeys, kind="stable")
    if not np.array_equal(tkeys[order], keys):
        return False
    return bool(np.array_equal(v[order], -v if negate else v))


def _format_lines(cols: list[list[Any]], fmt: str) -> bytes:
    k = len(cols)
    n = len(cols[0])
    flat: list[Any] = [None] * (n * k)
    for j, col in enumerate(cols):
        flat[j::k] = col
    return ((fmt * n) % tuple(flat)).encode()


def _value_fmt(dt: np.dtype) -> str:
    if dt.kind == "f":
        return "%.9g" if dt.itemsize == 4 else "%r"
    return "%d"


def _write_entries(f: IO[bytes], r: np.ndarray, c: np.ndarray, v: np.ndarray | None,
                   sep: str = " ", progress: Callable[[int], None] | None = None) -> None:
    fmt = f"%d{sep}%d" + ("" if v is None else sep + _value_fmt(v.dtype)) + "\n"
    for s in range(0, r.shape[0], _CHUNK):
        e = min(s + _CHUNK, r.shape[0])
        cols = [r[s:e].tolist(), c[s:e].tolist()]
        if v is not None:
            cols.append(v[s:e].tolist())
        f.write(_format_lines(cols, fmt))


def mmwrite(target: Any, matrix: Matrix, *, symmetric: bool | str | None = None,
            comment: str = "", field: str | None = None) -> None:
    """Write ``matrix`` as a Matrix Market coordinate file (``.gz``/``.bz2``/``.xz`` by suffix).

    ``field`` defaults to ``pattern`` for a bool matrix whose values are all True,
    ``integer`` for bool/integer types and ``real`` for floats (written so that they
    read back exactly). ``symmetric=None`` writes ``symmetric`` (lower triangle only) when
    the matrix equals its transpose; True insists (InvalidValue if it is not), False
    writes ``general``; ``"skew-symmetric"`` is accepted too. ``comment`` lines follow
    the banner.
    """
    r, c, v = matrix.to_coo()
    dt = matrix.dtype
    if field is None:
        field = ("pattern" if dt == BOOL and bool(v.all()) else
                 "real" if dt.is_float else "integer")
    field = field.lower()
    if field == "double":
        field = "real"
    if field not in ("pattern", "real", "integer"):
        raise InvalidValue(f"field must be 'pattern', 'real' or 'integer', got {field!r}")
    if field == "integer":
        if dt.is_float and not bool(np.all(v == np.floor(v))):
            raise InvalidValue("field='integer' needs integral values; use field='real'")
        v = v.astype(np.uint64 if dt == "uint64" else np.int64)
    elif field == "real":
        v = v.astype(np.float64) if not dt.is_float else v
    square = matrix.nrows == matrix.ncols
    if symmetric is None:
        sym = "symmetric" if square and _is_symmetric(r, c, v, matrix.ncols) else "general"
    elif symmetric is True or symmetric == "symmetric":
        sym = "symmetric"
    elif symmetric is False or symmetric == "general":
        sym = "general"
    elif symmetric == "skew-symmetric":
        sym = "skew-symmetric"
    else:
        raise InvalidValue("symmetric must be None, True, False, 'general', 'symmetric' or "
                           f"'skew-symmetric', got {symmetric!r}")
    if sym != "general":
        skew = sym == "skew-symmetric"
        if field == "pattern" and skew:
            raise InvalidValue("a pattern matrix cannot be written as skew-symmetric")
        vv = v if field != "pattern" else np.ones(v.shape, bool)
        if not square or not _is_symmetric(r, c, vv, matrix.ncols, negate=skew):
            raise InvalidValue(f"{matrix.name} is not {sym}; pass symmetric=False")
        keep = r > c if skew else r >= c
        r, c, v = r[keep], c[keep], v[keep]
    with _open_write(target) as f:
        head = f"%%MatrixMarket matrix coordinate {field} {sym}\n"
        for line in comment.splitlines() if comment else []:
            head += f"%{line}\n"
        head += f"{matrix.nrows} {matrix.ncols} {r.shape[0]}\n"
        f.write(head.encode())
        _write_entries(f, r + 1, c + 1, None if field == "pattern" else v)


# ---------------------------------------------------------------------------- edge lists
_SNAP_NODES = re.compile(rb"nodes:\s*(\d+)", re.IGNORECASE)
_INDEX_BASE = re.compile(rb"indices:\s*([01])-based", re.IGNORECASE)


def _split_comments(data: bytes, comments: bytes) -> tuple[bytes, bytes, int]:
    """(leading comment block, rest, line number where the rest starts)."""
    pos, lineno = 0, 1
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        s = data[pos:end].strip()
        if s and s[:1] not in comments:
            break
        pos, lineno = end + 1, lineno + 1
    return data[:pos], data[pos:], lineno


def read_edgelist(path: Any, *, delimiter: str | None = None, comments: str = "#%",
                  one_based: bool | None = None, directed: bool = True,
                  weighted: bool | None = None, nodes: int | None = None, dtype: Any = None,
                  make_undirected: bool = False, dedupe: bool = False, dup_op: Any = None,
                  device: str | None = None, name: str | None = None,
                  progress: Any = None) -> Matrix:
    """Read an edge list: one ``src dst [weight ...]`` per line (SNAP text files too).

    * Separated by whitespace, or by ``delimiter`` (e.g. ``","``); lines whose first
      character is in ``comments`` are skipped. Compressed files are read transparently.
    * ``weighted=None``: a third column is the weight (FP64 unless ``dtype``); without
      weights the result is an iso-valued bool matrix. Extra columns are ignored.
    * ``one_based`` (None = auto), in this order: a ``# Indices: 1-based`` comment (as
      :func:`write_edgelist` writes); else, when n is known (``nodes=`` or a SNAP
      ``# Nodes: N`` header that covers the indices), 1-based iff the smallest index is
      ≥ 1 and the largest equals n; else 1-based iff no index is 0. True/False force it.
    * n = ``nodes``, else the SNAP header's ``Nodes:`` when it covers the indices, else
      the largest index + 1 (0-based) or the largest index (1-based).
    * ``directed=False`` or ``make_undirected=True`` stores every edge in both
      directions (symmetrised, A ∪ Aᵀ).
    * A matrix holds one entry per (i, j): duplicate edges are combined with ``dup_op``
      (default: weights summed, i.e. a multi-edge's weights add up; pattern edges
      collapse). ``dedupe=True`` keeps each edge's first weight instead. Self-loops are
      kept.
    * ``progress``: see :mod:`gblas._progress` (three steps: read, parse, build).
    """
    with Progress(progress, 3, f"reading {_source_name(path)}", unit="step") as bar:
        return _read_edgelist(path, delimiter, comments, one_based, directed, weighted, nodes,
                              dtype, make_undirected, dedupe, dup_op, device, name, bar)


def _read_edgelist(path: Any, delimiter: str | None, comments: str, one_based: bool | None,
                   directed: bool, weighted: bool | None, nodes: int | None, dtype: Any,
                   make_undirected: bool, dedupe: bool, dup_op: Any, device: str | None,
                   name: str | None, bar: Progress) -> Matrix:
    bar.stage("read")
    data, fname = _read_bytes(path)
    bar.update(1)
    bar.stage("parse")
    cm = comments.encode() if comments else b""
    head, body, first = _split_comments(data, cm)
    del data
    header_n = _SNAP_NODES.search(head)
    base_hint = _INDEX_BASE.search(head)
    if cm and any(ch in body for ch in (bytes([b]) for b in cm)):
        lines = body.split(b"\n")
        # comment lines inside the data: blank them so line numbers stay right
        body = b"\n".join(b"" if ln.lstrip()[:1] in cm else ln for ln in lines)
        del lines
    if delimiter is not None and delimiter.strip():
        body = body.replace(delimiter.encode(), b" ")
    # number of columns from the first data line
    s = body.lstrip(_WS)
    end = s.find(b"\n")
    first_line = s[: end if end >= 0 else len(s)]
    ncol = len(first_line.split())
    if ncol == 0:
        n0 = int(nodes) if nodes is not None else int(header_n.group(1)) if header_n else 0
        return Matrix.from_coo([], [], True, dtype or BOOL, nrows=n0, ncols=n0, name=name,
                               device=device)
    first_data = first + body[: len(body) - len(s)].count(b"\n")
    if ncol < 2:
        raise InvalidValue(f"{fname}:{first_data}: expected 'src dst [weight]' per line, got "
                           f"{first_line[:80].decode(errors='replace')!r}")
    if weighted is None:
        weighted = ncol >= 3
    elif weighted and ncol < 3:
        raise InvalidValue(f"{fname}:{first_data}: weighted=True but the line has no "
                           "third column")
    integer = ncol == 2
    ent = _parse_entries(body, ntok=ncol, nentries=None, integer=integer, name=fname,
                         first_line=first, comments=cm, int_cols=2,
                         what=f"columns, as on line {first_data}")
    del body
    bar.update(1)
    bar.stage("build")
    a = ent.values
    r, c = a[:, 0], a[:, 1]
    if not integer:
        _check_integral(r, "source index", ent, fname)
        _check_integral(c, "target index", ent, fname)
    r = r.astype(np.int64)
    c = c.astype(np.int64)
    w = a[:, 2].copy() if weighted else None
    del a
    lo = int(min(r.min(), c.min())) if r.size else 0
    hi = int(max(r.max(), c.max())) if r.size else -1
    n_known = int(nodes) if nodes is not None else None
    if n_known is None and header_n is not None and hi <= int(header_n.group(1)):
        n_known = int(header_n.group(1))
    if one_based is None:
        if base_hint is not None:
            one_based = base_hint.group(1) == b"1"
        elif n_known is not None:
            one_based = lo >= 1 and hi == n_known
        else:
            one_based = lo >= 1
    if one_based:
        r -= 1
        c -= 1
        lo, hi = lo - 1, hi - 1
    n = n_known if n_known is not None else hi + 1
    if r.size and (lo < 0 or hi >= n):
        base = 1 if one_based else 0
        why = (f"nodes={n}" if nodes is not None else f"the header says Nodes: {n}"
               if n_known is not None else "indices start at 1" if one_based else "0-based")
        _check_index(r + base, base, n - 1 + base, "source index", ent, fname, why)
        _check_index(c + base, base, n - 1 + base, "target index", ent, fname, why)
    if not directed or make_undirected:
        r, c, w = _mirror(r, c, w)
    out_dt = lookup_dtype(dtype) if dtype is not None else (FP64 if weighted else BOOL)
    if dedupe and weighted and r.size:
        keys = r * max(n, 1) + c
        order = np.argsort(keys, kind="stable")
        sk = keys[order]
        first = np.ones(sk.shape[0], dtype=bool)
        np.not_equal(sk[1:], sk[:-1], out=first[1:])
        idx = order[first]  # the first occurrence of every (i, j)
        r, c, w = r[idx], c[idx], w[idx]  # type: ignore[index]
    vals: Any = w if weighted else True
    return Matrix.from_coo(r, c, vals, out_dt, nrows=n, ncols=n,
                           dup_op=_dup(dup_op, not weighted), name=name, device=device)


def write_edgelist(path: Any, matrix: Matrix, *, one_based: bool = False,
                   weights: bool | None = None, delimiter: str | None = None,
                   header: bool = True) -> None:
    """Write one ``src dst [weight]`` line per stored entry (compressed by suffix).

    ``weights=None`` writes the weights unless the matrix is bool. ``delimiter`` defaults
    to ``","`` for ``.csv``, a tab for ``.tsv`` and a space otherwise. ``header`` writes
    SNAP-style comments (``# Nodes: N Edges: M`` and ``# Indices: 0-based``) so that
    :func:`read_edgelist` restores n (isolated vertices included) and the index base.
    """
    if matrix.nrows != matrix.ncols:
        raise InvalidValue(f"an edge list needs a square matrix, got {matrix.shape}")
    if delimiter is None:
        suffix = _inner_suffix(os.fsdecode(path)) if isinstance(path, (str, os.PathLike)) \
            else ""
        delimiter = "," if suffix == ".csv" else "\t" if suffix == ".tsv" else " "
    r, c, v = matrix.to_coo()
    if weights is None:
        weights = matrix.dtype != BOOL
    if weights and matrix.dtype == BOOL:
        v = v.astype(np.int64)
    base = 1 if one_based else 0
    with _open_write(path) as f:
        if header:
            f.write(f"# Nodes: {matrix.nrows} Edges: {r.shape[0]}\n"
                    f"# Indices: {base}-based\n".encode())
        _write_entries(f, r + base, c + base, v if weights else None, sep=delimiter)


# ---------------------------------------------------------------------------- npz
_NPZ_TAG = "gblas-csr-1"


def save_npz(path: Any, matrix: Matrix, *, compressed: bool = False) -> None:
    """Save shape, dtype, CSR arrays and the iso flag/value (exact round trip)."""
    csr = matrix._csr()
    from ._device import move_array  # noqa: PLC0415

    dt = csr.dtype.np_type
    values = (np.empty(0, dtype=dt) if csr.values is None
              else move_array(csr.values, "cpu"))
    iso_value = np.array([csr.iso if csr.values is None else 0], dtype=dt)
    save = np.savez_compressed if compressed else np.savez
    save(path, gblas_format=np.array(_NPZ_TAG), shape=np.array(matrix.shape, np.int64),
         dtype=np.array(csr.dtype.name), indptr=move_array(csr.indptr, "cpu"),
         indices=move_array(csr.indices, "cpu"), values=values,
         iso=np.array(csr.values is None), iso_value=iso_value)


def load_npz(path: Any, *, device: str | None = None, name: str | None = None,
             progress: Any = None) -> Matrix:
    """Load a file written by :func:`save_npz` (or by ``scipy.sparse.save_npz``).

    ``progress``: see :mod:`gblas._progress` (two steps: read, build).
    """
    with Progress(progress, 2, f"reading {_source_name(path)}", unit="step") as bar:
        return _load_npz(path, device, name, bar)


def _load_npz(path: Any, device: str | None, name: str | None, bar: Progress) -> Matrix:
    from ._device import normalize_device  # noqa: PLC0415
    from .formats.csr.container import CSR  # noqa: PLC0415

    bar.stage("read")
    fname = _source_name(path)
    try:
        z = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise InvalidValue(f"{fname}: not a .npz file: {e}") from None
    with z:
        keys = set(z.files)
        if "gblas_format" not in keys:
            if {"format", "shape", "data", "indices", "indptr"} <= keys:
                import scipy.sparse as sp  # noqa: PLC0415

                return Matrix.from_scipy_sparse(sp.load_npz(path), name=name, device=device)
            raise InvalidValue(f"{fname}: not a gblas .npz (no 'gblas_format' key; keys: "
                               f"{sorted(keys)})")
        if str(z["gblas_format"]) != _NPZ_TAG:
            raise InvalidValue(f"{fname}: unknown gblas .npz version {z['gblas_format']}")
        nrows, ncols = (int(x) for x in z["shape"])
        dt: DataType = lookup_dtype(str(z["dtype"]))
        indptr = z["indptr"].astype(np.int64, copy=False)
        indices = z["indices"].astype(np.int64, copy=False)
        iso = bool(z["iso"])
        values = None if iso else z["values"].astype(dt.np_type, copy=False)
        iso_value = dt.cast(z["iso_value"][0]) if iso else None
    bar.update(1)
    bar.stage("build")
    if (indptr.shape[0] != nrows + 1 or indptr[0] != 0 or indptr[-1] != indices.shape[0]
            or (values is not None and values.shape[0] != indices.shape[0])
            or (indices.size and (indices.min() < 0 or indices.max() >= ncols))):
        raise InvalidValue(f"{fname}: inconsistent CSR arrays for shape ({nrows}, {ncols})")
    dev = normalize_device(device)
    csr = CSR(nrows, ncols, indptr, indices, values, dt, iso_value)
    return Matrix._from_csr(csr.to(dev) if dev != "cpu" else csr, dev, name)


# ---------------------------------------------------------------------------- SciPy / NetworkX
def from_scipy_sparse(S: Any, **kw: Any) -> Matrix:  # noqa: N803
    """``Matrix.from_scipy_sparse`` (keywords: dtype, dup_op, name, device)."""
    return Matrix.from_scipy_sparse(S, **kw)


def to_scipy_sparse(A: Any, format: str = "csr") -> Any:  # noqa: A002, N803
    """``A.to_scipy_sparse(format)``: a SciPy sparse matrix on the host."""
    return A.to_scipy_sparse(format)


def from_networkx(G: Any, **kw: Any) -> Matrix:  # noqa: N803
    """``Matrix.from_networkx`` (keywords: nodelist, dtype, weight, name, device)."""
    return Matrix.from_networkx(G, **kw)


def to_networkx(A: Any, *, directed: bool | None = None, weight: str | None = "weight"
                ) -> Any:  # noqa: N803
    """A NetworkX graph with nodes 0..n-1 and an edge per stored entry.

    ``directed=None``: a ``Graph`` when A equals its transpose, else a ``DiGraph``.
    ``weight=None`` leaves the edges without attributes.
    """
    import networkx as nx  # noqa: PLC0415

    if A.nrows != A.ncols:
        raise InvalidValue(f"a graph needs a square matrix, got {A.shape}")
    r, c, v = A.to_coo()
    if directed is None:
        directed = not _is_symmetric(r, c, v, A.ncols)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(A.nrows))
    if weight is None:
        G.add_edges_from(zip(r.tolist(), c.tolist(), strict=True))
    else:
        G.add_weighted_edges_from(zip(r.tolist(), c.tolist(), v.tolist(), strict=True),
                                  weight=weight)
    return G


# ---------------------------------------------------------------------------- dispatch
_EDGELIST_EXT = (".el", ".txt", ".tsv", ".csv", ".edges", ".edgelist")


def _kind(path: Any) -> tuple[str, str]:
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidValue(f"read/write dispatch on the file name; got {type(path).__name__}")
    p = os.fsdecode(path)
    ext = _inner_suffix(p)
    if ext in (".mtx", ".mm"):
        return "mtx", ext
    if ext in _EDGELIST_EXT:
        return "edgelist", ext
    if ext == ".npz" and not p.lower().endswith(".npz.gz"):
        return "npz", ext
    raise InvalidValue(
        f"cannot tell the format of {p!r} from its extension; known: .mtx, .mm, "
        f"{', '.join(_EDGELIST_EXT)} (each optionally + .gz/.bz2/.xz), .npz")


def read(path: Any, **kw: Any) -> Matrix:
    """Read by extension: Matrix Market, edge list (``.csv``: comma separated) or ``.npz``."""
    kind, ext = _kind(path)
    if kind == "mtx":
        return mmread(path, **kw)
    if kind == "npz":
        return load_npz(path, **kw)
    if ext == ".csv":
        kw.setdefault("delimiter", ",")
    return read_edgelist(path, **kw)


def write(path: Any, matrix: Matrix, **kw: Any) -> None:
    """Write by extension (see :func:`read`)."""
    kind, _ = _kind(path)
    if kind == "mtx":
        mmwrite(path, matrix, **kw)
    elif kind == "npz":
        save_npz(path, matrix, **kw)
    else:
        write_edgelist(path, matrix, **kw)
