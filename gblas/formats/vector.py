"""Vector storage: ``sparse`` (sorted indices + values), ``bitmap`` (presence bits + values)
or ``full`` (values only). The objects layer converts between them automatically.

On a GPU the number of entries of a bitmap is lazy: a kernel leaves it unknown (or as a
count on the device, ``_count``), and only reading ``nvals`` waits for the device. So
``normalized()`` keeps the storage a kernel produced when the count is not known yet: the
next operation reads the bitmap as it is, and no operation synchronises with the host."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _config
from ..dtypes import DataType
from .csr.container import _xp_of

SPARSE, BITMAP, FULL = "sparse", "bitmap", "full"


@functools.cache
def _device_empty(dtype: str, device_id: int) -> tuple[Any, Any]:
    """Zero-length (values, int64 indices) on a GPU, shared by every empty vector there
    (nothing can be written into them)."""
    import cupy  # noqa: PLC0415

    with cupy.cuda.Device(device_id):
        return cupy.empty(0, dtype=np.dtype(dtype)), cupy.empty(0, dtype=np.int64)


@dataclass
class VecData:
    size: int
    dtype: DataType
    kind: str
    values: Any  # sparse: [nvals]; bitmap/full: [size]
    indices: Any = None  # sparse only (int64, sorted, unique)
    bits: Any = None  # bitmap only (bool[size])
    _nvals: int | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)
    # True when no other object holds these arrays: the write-back may then update a
    # bitmap in place instead of copying it (BFS levels: O(frontier) per level, not O(n))
    exclusive: bool = field(default=False, repr=False)
    # the number of entries as a 1-element device array (a kernel counted them; reading
    # it is one small copy to the host), when ``_nvals`` is not known yet
    _count: Any = field(default=None, repr=False)
    _on_device: bool | None = field(default=None, repr=False)  # memo of on_device

    # ---------------------------------------------------------------- constructors
    @staticmethod
    def empty(size: int, dtype: DataType, xp: Any = np) -> VecData:
        if xp is np:
            vals, idx = np.empty(0, dtype=dtype.np_type), np.empty(0, dtype=np.int64)
        else:  # two allocations cost ~8 µs of host time on a GPU: zero-length ones are shared
            vals, idx = _device_empty(np.dtype(dtype.np_type).str, xp.cuda.runtime.getDevice())
        return VecData(size, dtype, SPARSE, vals, idx, _nvals=0)

    @staticmethod
    def sparse(size: int, dtype: DataType, indices: Any, values: Any) -> VecData:
        return VecData(size, dtype, SPARSE, values, indices, _nvals=int(indices.shape[0]))

    @staticmethod
    def bitmap(size: int, dtype: DataType, bits: Any, values: Any,
               nvals: int | None = None, count: Any = None) -> VecData:
        return VecData(size, dtype, BITMAP, values, bits=bits, _nvals=nvals, _count=count)

    @staticmethod
    def full(size: int, dtype: DataType, values: Any) -> VecData:
        return VecData(size, dtype, FULL, values, _nvals=size)

    # ---------------------------------------------------------------- properties
    @property
    def xp(self) -> Any:
        return _xp_of(self.values)

    @property
    def on_device(self) -> bool:
        """The arrays are CuPy's (reading a count from them waits for the device)."""
        dev = self._on_device
        if dev is None:
            dev = self._on_device = type(self.values).__module__.startswith("cupy")
        return dev

    @property
    def nvals(self) -> int:
        """The number of entries (on a GPU: the one place that waits for the device)."""
        if self._nvals is None:
            if self._count is not None:
                self._nvals = int(self._count.get().reshape(-1)[0])
            elif self.on_device:
                self._nvals = int(self.xp.count_nonzero(self.bits))
            else:
                self._nvals = int(np.count_nonzero(self.bits))
            self._count = None
        return self._nvals

    @property
    def known_nvals(self) -> int | None:
        """The number of entries if it is known without waiting for a device, else None
        (a CPU bitmap is counted: that costs no synchronisation)."""
        if self._nvals is None and not self.on_device:
            return self.nvals
        return self._nvals

    # ---------------------------------------------------------------- conversions
    def as_sparse(self) -> tuple[Any, Any]:
        """(indices, values) of the stored entries."""
        if self.kind == SPARSE:
            return self.indices, self.values
        if "sparse" not in self._cache:
            xp = self.xp
            if self.kind == FULL:
                idx = xp.arange(self.size, dtype=np.int64)
                self._cache["sparse"] = (idx, self.values)
            else:
                idx = xp.flatnonzero(self.bits).astype(np.int64, copy=False)
                self._cache["sparse"] = (idx, self.values[idx])
        return self._cache["sparse"]

    def as_bitmap(self) -> tuple[Any, Any]:
        """(bits, values) with values of length ``size`` (garbage where bits is False)."""
        if self.kind == BITMAP:
            return self.bits, self.values
        if "bitmap" not in self._cache:
            xp = self.xp
            if self.kind == FULL:
                self._cache["bitmap"] = (xp.ones(self.size, dtype=bool), self.values)
            else:
                bits = xp.zeros(self.size, dtype=bool)
                vals = xp.zeros(self.size, dtype=self.dtype.np_type)
                if self.indices.shape[0]:  # (a CuPy scatter costs ~30 µs of host time)
                    bits[self.indices] = True
                    vals[self.indices] = self.values
                self._cache["bitmap"] = (bits, vals)
        return self._cache["bitmap"]

    def present_bits(self) -> Any:
        """Presence as a bool[size] array (cached; shared, do not modify)."""
        if self.kind == BITMAP:
            return self.bits
        if "bits" not in self._cache:
            xp = self.xp
            if self.kind == FULL:
                self._cache["bits"] = xp.ones(self.size, dtype=bool)
            elif "bitmap" in self._cache:
                self._cache["bits"] = self._cache["bitmap"][0]
            else:
                bits = xp.zeros(self.size, dtype=bool)
                if self.indices.shape[0]:
                    bits[self.indices] = True
                self._cache["bits"] = bits
        return self._cache["bits"]

    def truthy_bits(self) -> Any:
        """Present and value != 0 (a value mask), as bool[size]."""
        if "truthy" not in self._cache:
            bits, vals = self.as_bitmap()
            self._cache["truthy"] = bits & (vals != 0)
        return self._cache["truthy"]

    def astype(self, dtype: DataType) -> VecData:
        if dtype == self.dtype:
            return self
        with np.errstate(invalid="ignore", over="ignore"):  # bitmap slots hold garbage
            vals = self.values.astype(dtype.np_type)
        return VecData(self.size, dtype, self.kind, vals, self.indices, self.bits, self._nvals,
                       _count=self._count)

    def normalized(self) -> VecData:
        """The same entries in the storage their density calls for; on a GPU, while the
        count is not known, the storage the kernel produced (no synchronisation)."""
        nv = self.known_nvals
        if nv is None:
            return self
        n = self.size
        if n > 0 and nv == n:
            if self.kind == FULL:
                return self
            return VecData.full(n, self.dtype, self.as_bitmap()[1])
        if nv > _config.get("bitmap_density") * n:
            if self.kind == BITMAP:
                return self
            bits, vals = self.as_bitmap()
            return VecData.bitmap(n, self.dtype, bits, vals, nv)
        if self.kind == SPARSE:
            return self
        idx, vals = self.as_sparse()
        return VecData.sparse(n, self.dtype, idx, vals)

    def to_kind(self, kind: str) -> VecData:
        if kind == self.kind:
            return self
        if kind == SPARSE:
            return VecData.sparse(self.size, self.dtype, *self.as_sparse())
        if kind == BITMAP:
            bits, vals = self.as_bitmap()
            return VecData.bitmap(self.size, self.dtype, bits.copy(), vals.copy(), self.nvals)
        if self.nvals != self.size:
            from ..exceptions import InvalidValue  # noqa: PLC0415

            raise InvalidValue(
                f"a vector with {self.nvals} of {self.size} values cannot be stored 'full'"
            )
        return VecData.full(self.size, self.dtype, self.as_bitmap()[1].copy())

    def to(self, device: str) -> VecData:
        from .._device import move_array  # noqa: PLC0415

        # a count is free on the host and read anyway when the data comes to the host
        nvals = self.nvals if device == "cpu" or not self.on_device else self._nvals
        return VecData(self.size, self.dtype, self.kind, move_array(self.values, device),
                       move_array(self.indices, device), move_array(self.bits, device),
                       nvals)

    def nbytes(self) -> int:
        total = self.values.nbytes
        for a in (self.indices, self.bits):
            if a is not None:
                total += a.nbytes
        return total
