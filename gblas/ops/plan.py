"""Planning: direction (push/pull) and format choice, and the record of what ran."""

from __future__ import annotations

from dataclasses import dataclass

from .. import _config
from ..core.descriptor import Descriptor


@dataclass(frozen=True)
class PlanRecord:
    op: str
    kernel: str
    direction: str | None
    format: str | None


_last: list[PlanRecord | None] = [None]


def record(desc: Descriptor | None, op: str, kernel: str, direction: str | None = None,
           fmt: str | None = None) -> PlanRecord:
    rec = PlanRecord(op, kernel, direction, fmt)
    _last[0] = rec
    if desc is not None:
        desc.record(kernel, direction)
    return rec


def last_plan() -> PlanRecord | None:
    """What the most recent operation ran (kernel, direction, format)."""
    return _last[0]


def choose_direction(last: str, x_nvals: int, x_size: int, desc: Descriptor | None) -> str:
    """push or pull for mxv: forced by the descriptor, else by the frontier's density.

    GraphBLAST's rule with hysteresis: a matrix that last ran pull stays pull until the
    density falls below ``pull_to_push``; one that ran push switches when it exceeds
    ``push_to_pull``. The last choice is remembered per matrix.
    """
    if desc is not None and desc.direction != "auto":
        return desc.direction
    density = x_nvals / x_size if x_size else 1.0
    if last == "pull":
        direction = "push" if density < _config.get("pull_to_push") else "pull"
    else:
        direction = "pull" if density > _config.get("push_to_pull") else "push"
    return direction
