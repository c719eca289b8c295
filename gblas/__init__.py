"""gblas: GraphBLAS-style sparse linear algebra on the CPU and NVIDIA GPUs.

    import gblas as gb
    from gblas import Matrix, Vector, semiring
    f(~visited.S, replace=True) << f.vxm(A, semiring.any_pair)
"""

import importlib.util as _ilu
import sys as _sys
from pathlib import Path as _Path

from . import _config as config
from . import agg, cuda, dtypes, exceptions, generators, io
from ._device import cuda_available
from .backend import threads as _threads  # noqa: F401 - starts Numba's pool (see there)
from .core import Descriptor, Expression, Mask, Matrix, Scalar, TransposedMatrix, Vector
from .core.base import replace
from .dtypes import (
    BOOL,
    FP32,
    FP64,
    INT8,
    INT16,
    INT32,
    INT64,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
)
from .ops.plan import last_plan
from .semirings import (
    BinaryOp,
    IndexUnaryOp,
    Monoid,
    Semiring,
    UnaryOp,
    binary,
    families,
    monoid,
    select,
    semiring,
    unary,
)
from .semirings.lookup import indexunary, op


def _map_source_tree_algorithms() -> None:
    """From a source checkout (PYTHONPATH=.), serve ../algorithms as gblas.algorithms.

    An installed gblas has gblas/algorithms (pyproject's package-dir mapping).
    """
    here = _Path(__file__).resolve().parent
    src = here.parent / "algorithms" / "__init__.py"
    if (here / "algorithms").is_dir() or not src.is_file():
        return
    spec = _ilu.spec_from_file_location("gblas.algorithms", src,
                                        submodule_search_locations=[str(src.parent)])
    if spec is None or spec.loader is None:
        return
    module = _ilu.module_from_spec(spec)
    _sys.modules["gblas.algorithms"] = module
    spec.loader.exec_module(module)
    globals()["algorithms"] = module


_map_source_tree_algorithms()

__version__ = "0.1.0"

__all__ = [
    "config", "cuda", "dtypes", "exceptions", "generators", "io", "cuda_available", "Descriptor",
    "Expression", "Mask",
    "Matrix", "Scalar", "TransposedMatrix", "Vector", "BOOL", "FP32", "FP64", "INT8",
    "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "last_plan",
    "BinaryOp", "IndexUnaryOp", "Monoid", "Semiring", "UnaryOp", "binary", "families",
    "monoid", "select", "indexunary", "semiring", "unary", "agg", "op", "replace",
]
