"""Operations (L2): validate -> plan (direction, format, fusion) -> kernel -> write-back."""

from .plan import last_plan

__all__ = ["last_plan"]
