"""Masks: ``v.S`` (structure), ``v.V`` (values != 0) and their complements ``~m``."""

from __future__ import annotations

from typing import Any


class Mask:
    """A write mask over an output's shape (GraphBLAS C API §3.5.4)."""

    __slots__ = ("parent", "structure", "complement")

    def __init__(self, parent: Any, *, structure: bool, complement: bool = False) -> None:
        self.parent = parent
        self.structure = structure
        self.complement = complement

    def __invert__(self) -> Mask:
        return Mask(self.parent, structure=self.structure, complement=not self.complement)

    @property
    def kind(self) -> str:
        """``structural``, ``value``, ``~structural`` or ``~value`` (the dispatch key)."""
        base = "structural" if self.structure else "value"
        return "~" + base if self.complement else base

    @property
    def shape(self) -> tuple[int, ...]:
        return self.parent.shape

    @property
    def device(self) -> str:
        return self.parent.device

    def __repr__(self) -> str:
        attr = "S" if self.structure else "V"
        return f"{'~' if self.complement else ''}{self.parent.name}.{attr}"

    def __bool__(self) -> bool:
        from ..exceptions import InvalidValue  # noqa: PLC0415

        raise InvalidValue("a Mask has no truth value; pass it as mask=... or out(mask)")


class StructuralMask(Mask):
    __slots__ = ()

    def __init__(self, parent: Any, complement: bool = False) -> None:
        super().__init__(parent, structure=True, complement=complement)


class ValueMask(Mask):
    __slots__ = ()

    def __init__(self, parent: Any, complement: bool = False) -> None:
        super().__init__(parent, structure=False, complement=complement)
