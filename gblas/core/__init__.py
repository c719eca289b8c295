"""Objects (L1): Matrix, Vector, Scalar, masks, expressions, descriptors. No array maths."""

from .descriptor import Descriptor
from .expr import Expression, Updater
from .mask import Mask
from .matrix import Matrix, TransposedMatrix
from .scalar import Scalar
from .vector import Vector

__all__ = ["Descriptor", "Expression", "Updater", "Mask", "Matrix", "TransposedMatrix",
           "Scalar", "Vector"]
