"""Progress reporting for slow steps (graph generation, file loading, format building).

``progress`` arguments across gblas take: ``None``/``False`` (silent), ``True`` (a tqdm bar,
when tqdm is installed, shown only once the work has lasted ``DELAY`` seconds), or a
callable called as ``progress(done, total)`` whenever the work advances.

A step that is one long call (parsing a file, building a transposed CSR) advances nothing
while it runs; a daemon thread refreshes the bar meanwhile so its elapsed time and the
name of the current stage stay live.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import Any

DELAY = 2.0  # seconds of work before a bar appears
_TICK = 0.5  # seconds between refreshes of a bar during a long step


class Progress:
    """Reports ``total`` units of work under ``desc``; a context manager that closes itself."""

    def __init__(self, progress: Any, total: int, desc: str, *, unit: str = "it") -> None:
        self.total, self.done = int(total), 0
        self.cb = progress if callable(progress) else None
        self.bar: Any = None
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if progress is True:
            try:
                from tqdm.auto import tqdm  # noqa: PLC0415 - optional (the 'progress' extra)
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=self.total, desc=desc, delay=DELAY, leave=False,
                                unit=unit, unit_scale=True, dynamic_ncols=True)
                self._t0 = time.monotonic()
                self._ticker = threading.Thread(target=self._tick, daemon=True)
                self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(_TICK):
            if time.monotonic() - self._t0 >= DELAY:
                self.bar.refresh()

    def update(self, k: int) -> None:
        """``k`` more units are done."""
        self.done += int(k)
        if self.cb is not None:
            self.cb(self.done, self.total)
        if self.bar is not None:
            self.bar.update(int(k))

    def stage(self, name: str) -> None:
        """Name the step now running (shown after the bar)."""
        if self.bar is not None:
            self.bar.set_postfix_str(name, refresh=False)

    def close(self, *, finished: bool = True) -> None:
        """Remove the bar; ``finished`` first marks the rest of the work done."""
        if finished and self.done < self.total:
            self.update(self.total - self.done)
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
            self._ticker = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close(finished=exc_type is None)
