"""GraphBLAS error classes.

Every error is raised before any kernel runs, so a failed operation leaves its output
unchanged. Messages say what was expected, what was given, and how to fix it.
"""

from __future__ import annotations


class GraphblasException(Exception):
    """Base class of every gblas error."""


class DimensionMismatch(GraphblasException, ValueError):
    """Shapes of the operands (or of the output and mask) do not agree."""


class DomainMismatch(GraphblasException, TypeError):
    """A dtype or an operator cannot be used with the given operands."""


class IndexOutOfBound(GraphblasException, IndexError):
    """An index is outside the object's shape."""


class InvalidValue(GraphblasException, ValueError):
    """An argument has a value that is not allowed."""


class InvalidObject(GraphblasException, TypeError):
    """An argument is not an object the operation can use."""


class EmptyObject(GraphblasException, ValueError):
    """A value was asked of an empty Scalar or an absent element."""


class NoValue(EmptyObject, KeyError):
    """An element that holds no value was read (``v[i].value`` is None; ``int(v[i])`` raises)."""


class OutputNotEmpty(GraphblasException, ValueError):
    """A build or import needs an empty output object."""


class DeviceMismatch(GraphblasException, ValueError):
    """Operands live on different devices."""


class NotImplementedForFormat(GraphblasException, NotImplementedError):
    """No kernel and no conversion can run this operation for this format/device."""


__all__ = [
    "GraphblasException",
    "DimensionMismatch",
    "DomainMismatch",
    "IndexOutOfBound",
    "InvalidValue",
    "InvalidObject",
    "EmptyObject",
    "NoValue",
    "OutputNotEmpty",
    "DeviceMismatch",
    "NotImplementedForFormat",
]
