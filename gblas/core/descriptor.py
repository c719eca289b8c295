"""Descriptor: the GraphBLAS fields plus gblas' planning keys and what ran."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..exceptions import InvalidValue

DIRECTIONS = ("auto", "push", "pull")


@dataclass
class Descriptor:
    """Options of one operation (GrB_Descriptor) and a record of how it ran.

    ``direction``: ``"auto"`` lets the planner choose push (scatter from the vector's
    entries) or pull (gather per output row); ``format``: the matrix format to run on
    (converted and cached if needed); ``early_exit``: stop a row when the monoid reaches its
    terminal value. After an operation, ``last_direction`` and ``last_kernel`` say what ran.
    """

    replace: bool = False
    mask_complement: bool = False
    mask_structure: bool = False
    transpose_first: bool = False
    transpose_second: bool = False
    direction: str = "auto"
    format: str | None = None
    early_exit: bool = True
    last_direction: str | None = field(default=None, compare=False)
    last_kernel: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise InvalidValue(
                f"Descriptor direction must be one of {DIRECTIONS}, got {self.direction!r}"
            )

    def record(self, kernel: str, direction: str | None) -> None:
        self.last_kernel = kernel
        self.last_direction = direction


DEFAULT = Descriptor()


def as_descriptor(desc: Any) -> Descriptor | None:
    if desc is None or isinstance(desc, Descriptor):
        return desc
    raise InvalidValue(f"desc must be a gblas.Descriptor, got {type(desc).__name__}")
