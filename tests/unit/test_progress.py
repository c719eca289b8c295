"""Progress reporting (gblas._progress) and its use by the readers."""

from __future__ import annotations

import io as stdio
import threading
import time

import numpy as np
import pytest

import gblas as gb
from gblas import _progress
from gblas._progress import Progress


def test_callable_gets_every_step() -> None:
    seen: list[tuple[int, int]] = []
    with Progress(lambda d, t: seen.append((d, t)), 5, "work") as bar:
        bar.update(2)
        bar.stage("second half")
        bar.update(1)
    assert seen == [(2, 5), (3, 5), (5, 5)]  # closing marks the rest done


def test_failed_work_is_not_marked_done() -> None:
    seen: list[int] = []
    with pytest.raises(RuntimeError), Progress(lambda d, t: seen.append(d), 4, "w") as bar:
        bar.update(1)
        raise RuntimeError("boom")
    assert seen == [1]


def test_silent_forms_start_no_thread() -> None:
    before = threading.active_count()
    for p in (None, False):
        with Progress(p, 3, "x") as bar:
            bar.update(1)
            assert bar.bar is None and bar._ticker is None
    assert threading.active_count() == before


def test_bar_refreshes_during_a_long_step(monkeypatch: pytest.MonkeyPatch) -> None:
    tqdm_auto = pytest.importorskip("tqdm.auto")
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setattr(_progress, "_TICK", 0.01)
    out = stdio.StringIO()
    real = tqdm_auto.tqdm
    monkeypatch.setattr(tqdm_auto, "tqdm", lambda *a, **k: real(*a, file=out, **k))
    with Progress(True, 2, "slow step", unit="step") as bar:
        bar.stage("parse")
        time.sleep(0.2)  # no update: only the ticker can redraw the bar
        assert "slow step" in out.getvalue() and "parse" in out.getvalue()
        ticker = bar._ticker
    assert ticker is not None and not ticker.is_alive()  # joined on close


def _mtx(tmp_path):  # noqa: ANN001, ANN202
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], nrows=3, ncols=3)
    p = tmp_path / "a.mtx"
    gb.io.mmwrite(p, A)
    return A, p


@pytest.mark.parametrize("ext,steps", [(".mtx", 3), (".el", 3), (".npz", 2)])
def test_readers_report_their_steps(tmp_path, ext: str, steps: int) -> None:  # noqa: ANN001
    A, _ = _mtx(tmp_path)
    p = tmp_path / f"g{ext}"
    gb.io.write(p, A)
    seen: list[tuple[int, int]] = []
    B = gb.io.read(p, progress=lambda d, t: seen.append((d, t)))
    assert B.isequal(A)
    assert [d for d, _ in seen] == list(range(1, steps + 1))
    assert {t for _, t in seen} == {steps}


def test_reader_error_stops_progress(tmp_path) -> None:  # noqa: ANN001
    p = tmp_path / "bad.mtx"
    p.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1.0\n")
    seen: list[int] = []
    with pytest.raises(gb.exceptions.InvalidValue, match="bad.mtx:3"):
        gb.io.mmread(p, progress=lambda d, t: seen.append(d))
    assert seen == [1]  # read, then the parse failed


def test_progress_true_reads_quietly_for_fast_work(tmp_path, capsys) -> None:  # noqa: ANN001
    _, p = _mtx(tmp_path)
    B = gb.io.mmread(p, progress=True)  # shorter than the delay: no bar
    assert B.nvals == 3
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(B.to_coo()[0], [0, 1, 2])
