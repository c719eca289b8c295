"""benchmarks/compare_trees.py: each revision's package is exported and imported from its
own folder, the command runs in every tree in turn, round after round, ``{root}`` becomes
the repository's root, and a failing run's status is returned."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import compare_trees as ct  # noqa: E402

_WHERE = "import gblas, pathlib; print('at', pathlib.Path(gblas.__file__).parents[1])"


def _is_git_checkout() -> bool:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT,
                          capture_output=True).returncode == 0


@pytest.mark.skipif(not _is_git_checkout(), reason="needs the repository's git history")
def test_trees_alternate_and_import_their_own_package(capsys: pytest.CaptureFixture) -> None:
    assert ct.main(["--trees", "HEAD,.", "--rounds", "2", "--grep", "at ", "--",
                    sys.executable, "-c", _WHERE]) == 0
    lines = capsys.readouterr().out.splitlines()
    heads = [ln for ln in lines if ln.startswith("== ")]
    assert [h.split()[1] for h in heads] == ["HEAD", ".", "HEAD", "."]
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    exported = ROOT / "bench_out" / "trees" / sha[:12]
    assert (exported / "gblas" / "formats" / "csr" / "bfs_async.cu").is_file()
    assert (exported / "algorithms" / "bfs.py").is_file()
    places = [ln for ln in lines if ln.startswith("at ")]
    assert places == [f"at {exported}", f"at {ROOT}"] * 2


def test_root_is_substituted_and_a_failure_is_returned(capsys: pytest.CaptureFixture) -> None:
    code = "import sys; print('root', sys.argv[1]); sys.exit(3)"
    assert ct.main(["--trees", ".", "--rounds", "1", "--", sys.executable, "-c", code,
                    "{root}/x"]) == 3
    assert f"root {ROOT}/x" in capsys.readouterr().out


def test_needs_a_command() -> None:
    with pytest.raises(SystemExit):
        ct.main(["--trees", "."])


def test_a_carried_folder_is_taken_by_its_name(capsys: pytest.CaptureFixture) -> None:
    """A tree exported on another machine (a branch the GPU machine's copy lacks) and
    carried under bench_out/trees is run from there by its folder's name, without git."""
    name = "carried-test-tree"
    folder = ROOT / "bench_out" / "trees" / name
    (folder / "gblas").mkdir(parents=True, exist_ok=True)
    (folder / "gblas" / "__init__.py").write_text("")
    try:
        assert ct.export(name) == folder
        code = _WHERE + "; import os; print('at named', os.environ['GBLAS_COMMIT'])"
        assert ct.main(["--trees", name, "--rounds", "1", "--grep", "at ", "--",
                        sys.executable, "-c", code]) == 0
        out = capsys.readouterr().out
        assert f"at {folder}" in out and f"at named {name}" in out
        with pytest.raises(SystemExit, match="neither a revision"):
            ct.export("no-such-tree-anywhere")
    finally:
        import shutil  # noqa: PLC0415

        shutil.rmtree(folder)


def test_graph_specs_keep_their_options() -> None:
    """benchmarks' --graphs split at commas: a key=value piece (``ef=2``) joins the spec
    before it, a file path or a spec after it starts a new one."""
    import common  # noqa: PLC0415

    assert common.expand_specs("road:1M,urand:20,ef=1,kron:20,ef=1,noise=0.1,grid:4".split(",")
                               ) == ["road:1M", "urand:20,ef=1", "kron:20,ef=1,noise=0.1",
                                     "grid:4"]
    assert common.expand_specs(["kron:10", " ", "grid:3x4"]) == ["kron:10", "grid:3x4"]
    here = str(Path(__file__))  # a file's path: an option after it is not joined to it
    assert common.expand_specs([here, "ef=2"]) == [here, "ef=2"]


def test_the_measured_tree_can_be_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Benchmark headers take GBLAS_COMMIT as the tree's name where it is set (the GPU
    machine's git metadata may be an earlier call's), else git's."""
    import common  # noqa: PLC0415

    monkeypatch.setenv("GBLAS_COMMIT", "abc1234")
    info = common.machine_info()
    assert info["commit"] == "abc1234" and info["dirty"] is False
    monkeypatch.delenv("GBLAS_COMMIT")
    assert common.machine_info()["commit"] != "abc1234"
