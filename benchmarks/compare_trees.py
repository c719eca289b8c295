"""One benchmark command on several source trees, alternately, in one run (one GPU call).

    python3 benchmarks/compare_trees.py --trees HEAD~1,. --rounds 2 [--grep async] -- \\
        python3 benchmarks/bfs_fused_knobs.py --graphs grid:2048x2048,{root}/g.mtx.gz \\
        --configs async_bfs=1 --sources 8 --out /tmp

Machines are noisy, so a change is measured against its base side by side: each tree in
``--trees`` (git revisions, ``.`` for the working tree) is exported with ``git archive``
(the package, its algorithms and the benchmarks) into the git-ignored
``bench_out/trees/<commit>`` (a name git does not know is taken as such a folder, made on
another machine and carried: a branch the GPU machine's copy lacks), then the command
runs in every tree in turn, ``--rounds`` times, from that tree's folder (``PYTHONPATH``
set to it). ``{root}`` in the command is the repository's root, for files that only it
holds (graphs carried to the GPU machine).
Prints each run's output under a ``== tree round`` line (only the lines containing
``--grep`` when given) and exits with the first failing run's status.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPORTED = ("gblas", "algorithms", "benchmarks")


def export(rev: str) -> Path:
    """The folder holding ``rev``'s tree: the repository itself for ``.``, else a
    ``git archive`` of it under bench_out/trees (made once per commit)."""
    if rev == ".":
        return ROOT
    found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                           cwd=ROOT, capture_output=True, text=True)
    if found.returncode:  # a tree exported where the commit is (a branch the copy lacks)
        made = ROOT / "bench_out" / "trees" / rev
        if (made / "gblas").is_dir():
            return made
        raise SystemExit(f"compare_trees: {rev!r} is neither a revision here nor a folder "
                         f"of {made.parent}")
    sha = found.stdout.strip()
    dest = ROOT / "bench_out" / "trees" / sha[:12]
    if not (dest / "gblas").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", sha, *EXPORTED], cwd=ROOT, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trees", required=True, help="comma-separated revisions; . = worktree")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--grep", default=None, help="print only the lines containing this")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command")
    args = ap.parse_args(argv)
    command = [c.replace("{root}", str(ROOT)) for c in args.command if c != "--"]
    if not command or args.rounds < 1:
        ap.error("give a command after --, and at least one round")
    trees = [(rev, export(rev)) for rev in args.trees.split(",")]
    status = 0
    for r in range(1, args.rounds + 1):
        for rev, folder in trees:
            print(f"== {rev} ({folder.name}) round {r}", flush=True)
            env = {**os.environ, "PYTHONPATH": str(folder)}
            if folder != ROOT:  # the benchmarks' headers name the tree (common.machine_info)
                env["GBLAS_COMMIT"] = folder.name
            run = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
            for line in (run.stdout + run.stderr).splitlines():
                if args.grep is None or args.grep in line:
                    print(line, flush=True)
            status = status or run.returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
