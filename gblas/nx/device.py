"""Which device the backend runs on: ``nx.config.backends.gblas.device``."""

from __future__ import annotations

from gblas._device import normalize_device

DEFAULT_CONFIG = {"device": None}


def graph_device() -> str:
    """The configured device as gblas names it (``"cpu"``, ``"cuda:N"``).

    ``nx.config.backends.gblas.device`` is ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"auto"``
    or None (the default: gblas' own ``default_device`` config key). An unknown name, or a
    GPU where none is usable, raises :class:`~gblas.exceptions.InvalidValue`.
    """
    import networkx as nx  # noqa: PLC0415

    backend_config = getattr(nx.config.backends, "gblas", None)
    device = None if backend_config is None else getattr(backend_config, "device", None)
    return normalize_device(device)
