"""The operations layer as the objects layer reaches it.

gblas.ops imports gblas.core, so core cannot import ops' modules when it loads. Instead of
a function-level import in every method (about a microsecond per call, paid by every
operation of a loop), core names ``ops.mxv.vxm_expr`` through this namespace: a module is
imported on first use and is a plain attribute afterwards.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyPackage:
    """``pkg.name`` imports ``<package>.name`` on first access and keeps it."""

    def __init__(self, package: str) -> None:
        self._package = package

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        module: ModuleType = importlib.import_module(f"{self._package}.{name}")
        setattr(self, name, module)
        return module


ops = LazyPackage("gblas.ops")
