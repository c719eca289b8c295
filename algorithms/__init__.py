"""Graph algorithms written only on gblas' public API (installed as ``gblas.algorithms``)."""

__all__: list[str] = []
