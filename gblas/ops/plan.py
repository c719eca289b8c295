"""Planning: direction (push/pull) and format choice, and the record of what ran."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import _config
from ..core.descriptor import Descriptor


@dataclass(frozen=True)
class PlanRecord:
    op: str
    kernel: str
    direction: str | None
    format: str | None


# the last operation's (op, kernel, direction, format): a tuple per operation, the record
# object only when asked for (every operation records; few ask)
_last: list[Any] = [None, None]  # [the tuple, its PlanRecord once asked for]


def record(desc: Descriptor | None, op: str, kernel: str, direction: str | None = None,
           fmt: str | None = None) -> None:
    _last[0] = (op, kernel, direction, fmt)
    _last[1] = None
    if desc is not None:
        desc.record(kernel, direction)


def last_plan() -> PlanRecord | None:
    """What the most recent operation ran (kernel, direction, format)."""
    if _last[1] is None and _last[0] is not None:
        _last[1] = PlanRecord(*_last[0])
    return _last[1]


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
