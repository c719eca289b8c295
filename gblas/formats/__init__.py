"""Storage formats (L3). Each format package holds a container, its builders and kernels.

A format registers itself here (``register_format``) and registers its kernels with the
dispatch registry (gblas.ops.dispatch) when its kernel module is imported, so a new format
needs no change to the objects layer.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..exceptions import NotImplementedForFormat


@dataclass(frozen=True)
class FormatSpec:
    name: str
    from_csr: Callable[..., Any]  # (CSR, **params) -> container
    to_csr: Callable[[Any], Any]  # container -> CSR (exact round trip)
    kernel_modules: tuple[str, ...] = ()  # modules whose import registers kernels


_FORMATS: dict[str, FormatSpec] = {}


def register_format(spec: FormatSpec) -> None:
    _FORMATS[spec.name] = spec


def format_names() -> list[str]:
    return sorted(_FORMATS)


def format_key(name: str, transposed: bool, params: dict[str, Any]) -> str:
    """Cache key of a representation: ``coo``, ``csr_T``, ``sellcs(C=32,sigma=64)_T``."""
    if name not in _FORMATS:
        raise NotImplementedForFormat(
            f"unknown format {name!r}; available: {', '.join(format_names())}"
        )
    p = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return (f"{name}({p})" if p else name) + ("_T" if transposed else "")


def build_format(name: str, csr: Any, **params: Any) -> Any:
    return _FORMATS[name].from_csr(csr, **params)


def to_csr(container: Any) -> Any:
    return _FORMATS[container.name].to_csr(container)


def transpose_csr(csr: Any) -> Any:
    from .csr.convert import transpose  # noqa: PLC0415

    return transpose(csr)


def _register_all() -> None:
    """Import every format's kernel modules (called once, on the first dispatch)."""
    for spec in list(_FORMATS.values()):
        for mod in spec.kernel_modules:
            importlib.import_module(mod)


def _csr_identity(csr: Any, **params: Any) -> Any:
    if params:
        raise NotImplementedForFormat(f"format 'csr' takes no parameters, got {params}")
    return csr


def _coo_from_csr(csr: Any, **params: Any) -> Any:
    from .csr.convert import coo_from_csr  # noqa: PLC0415

    if params:
        raise NotImplementedForFormat(f"format 'coo' takes no parameters, got {params}")
    return coo_from_csr(csr)


def _csr_from_coo(coo: Any) -> Any:
    from .csr.convert import csr_from_coo  # noqa: PLC0415

    return csr_from_coo(coo)


register_format(FormatSpec("csr", _csr_identity, lambda c: c,
                           ("gblas.formats.csr.kernels", "gblas.formats.generic",
                            "gblas.formats.csr.cuda", "gblas.formats.csr.mxm_cuda")))
register_format(FormatSpec("coo", _coo_from_csr, _csr_from_coo,
                           ("gblas.formats.coo.kernels",)))


def _sell_from_csr(fmt: str) -> Callable[..., Any]:
    def build(csr: Any, **params: Any) -> Any:
        from .sellcs.container import build as sell_build  # noqa: PLC0415

        return sell_build(csr, fmt, **params)

    return build


def _sell_to_csr(container: Any) -> Any:
    from .sellcs.container import to_csr as sell_to_csr  # noqa: PLC0415

    return sell_to_csr(container)


# Sell-C-σ / SlimSell: parameters C (default 8 on the CPU, 32 on the GPU), sigma (sorting
# window, default 1 = no sorting) and slimchunk (split chunks wider than this; 0 = off)
register_format(FormatSpec("sellcs", _sell_from_csr("sellcs"), _sell_to_csr,
                           ("gblas.formats.sellcs.kernels",)))
register_format(FormatSpec("slimsell", _sell_from_csr("slimsell"), _sell_to_csr,
                           ("gblas.formats.slimsell.kernels",)))


def _bvss_from_csr(csr: Any, **params: Any) -> Any:
    from .bvss.container import build as bvss_build  # noqa: PLC0415

    return bvss_build(csr, **params)


def _bvss_to_csr(container: Any) -> Any:
    from .bvss.container import to_csr as bvss_to_csr  # noqa: PLC0415

    return bvss_to_csr(container)


# BVSS (Blest's bitmap format): parameters reorder ("none", "rcm", "degree", "jaccard",
# "auto") and tau (fixed at 128); pattern semirings only, other semirings fall back to CSR
register_format(FormatSpec("bvss", _bvss_from_csr, _bvss_to_csr,
                           ("gblas.formats.bvss.kernels", "gblas.formats.bvss.cuda")))
