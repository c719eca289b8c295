"""COO container: rows, cols sorted row-major without duplicates; values or iso value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...dtypes import DataType
from ..csr.container import _xp_of


@dataclass
class COO:
    nrows: int
    ncols: int
    rows: Any  # int64[nnz]
    cols: Any  # int64[nnz]
    values: Any | None
    dtype: DataType
    iso: Any = None

    name = "coo"

    @property
    def nnz(self) -> int:
        return int(self.rows.shape[0])

    @property
    def is_iso(self) -> bool:
        return self.values is None

    @property
    def xp(self) -> Any:
        return _xp_of(self.rows)

    def full_values(self) -> Any:
        if self.values is not None:
            return self.values
        return self.xp.full(self.nnz, self.iso, dtype=self.dtype.np_type)

    def nbytes(self) -> int:
        n = self.rows.nbytes + self.cols.nbytes
        return n + (self.values.nbytes if self.values is not None else self.dtype.itemsize)

    def stats(self) -> dict[str, Any]:
        return {"format": "coo", "nnz": self.nnz, "nbytes": self.nbytes(),
                "bytes_per_edge": self.nbytes() / max(self.nnz, 1)}

    def to(self, device: str) -> COO:
        from ..._device import move_array  # noqa: PLC0415

        return COO(self.nrows, self.ncols, move_array(self.rows, device),
                   move_array(self.cols, device), move_array(self.values, device),
                   self.dtype, self.iso)


def keys_of(rows: Any, cols: Any, ncols: int) -> Any:
    """Row-major linear keys (the sort order of COO and of the write-back)."""
    return rows.astype(np.int64) * np.int64(max(ncols, 1)) + cols.astype(np.int64)
