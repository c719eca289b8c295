#!/usr/bin/env bash
# Compile every gblas/**/*.cu for sm_90 as a syntax/resource check (no GPU needed):
# each file is prefixed with the generated semiring functors and followed by the
# template instantiations listed in CHECK_INSTANCES of its folder's cuda.py or of the
# module named after it (mxm.cu: mxm_cuda.py); headers (*.cuh)
# are compiled through the .cu files that include them (the file's folder is on the include
# path). Fails on a compile error or on any ptxas "spill stores"/"spill loads" > 0.
# Usage: scripts/check_cuda.sh   (NVCC=/path/to/nvcc, ARCH=sm_90 to override)
set -euo pipefail
cd "$(dirname "$0")/.."
NVCC="${NVCC:-nvcc}"
ARCH="${ARCH:-sm_90}"
if ! command -v "$NVCC" >/dev/null 2>&1; then
  echo "check_cuda: nvcc not found; skipping the CUDA compile check"
  exit 0
fi
PY="${PYTHON:-python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mapfile -t files < <(find gblas -name '*.cu' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "check_cuda: no .cu files"
  exit 0
fi
status=0
for f in "${files[@]}"; do
  tu="$tmp/$(echo "$f" | tr '/' '_')"
  PYTHONPATH=. "$PY" - "$f" "$tu" <<'PYEOF'
import importlib, sys
from pathlib import Path
from gblas.semirings.codegen_cuda import functor_source
src, out = Path(sys.argv[1]), sys.argv[2]
pkg = ".".join(src.parent.parts)
inst = []  # from the folder's cuda.py and from a module named after the file (mxm_cuda.py)
for mod in dict.fromkeys((pkg + ".cuda", f"{pkg}.{src.stem}_cuda")):
    try:
        inst += getattr(importlib.import_module(mod), "CHECK_INSTANCES", {}).get(src.name, [])
    except ImportError:
        pass
lines = [functor_source(), f'#line 1 "{src}"', src.read_text(), "// instantiations"]
lines += [f"void* gb_check_inst_{i} = (void*)&{e};" for i, e in enumerate(inst)]
Path(out).write_text("\n".join(lines) + "\n")
print(f"check_cuda: {src}: {len(inst)} instantiations")
PYEOF
  # a file compiled with other macros at run time is checked with each set too; the fused
  # BFS's pull builds (-DFB_MIN_BLOCKS=PULL_MIN_BLOCKS, fewer registers; -DFB_PULL_ONLY: the
  # pull launch's, without push code) spill by design:
  # measured faster than the 64-register build on the pull levels (bfs_fused.py), so its
  # spills are printed, not failed
  variants=("")
  if [ "$(basename "$f")" = "bfs_async.cu" ]; then  # its profile and look builds
    variants+=("-DFB_IDX32" "-DAB_PROFILE" "-DAB_PROFILE -DFB_IDX32" "-DAB_LOOK -DFB_IDX32"
               "-DAB_LOOK -DAB_PROFILE")
  fi
  if [ "$(basename "$f")" = "bfs_fused.cu" ]; then
    pull=$(PYTHONPATH=. "$PY" -c "from gblas.formats.csr.bfs_fused import PULL_MIN_BLOCKS; print(PULL_MIN_BLOCKS)")
    variants+=("-DFB_IDX32" "-DFB_MIN_BLOCKS=$pull" "-DFB_MIN_BLOCKS=$pull -DFB_IDX32"
               "-DFB_MIN_BLOCKS=$pull -DFB_PULL_ONLY" "-DFB_MIN_BLOCKS=$pull -DFB_IDX32 -DFB_PULL_ONLY")
  fi
  for defs in "${variants[@]}"; do
    log="$tmp/log.txt"
    # shellcheck disable=SC2086 # defs: zero or more words
    if ! "$NVCC" -std=c++17 -arch="$ARCH" -I "$(dirname "$f")" -I gblas/backend $defs -Xptxas -v -c "$tu" \
        -o /dev/null >"$log" 2>&1; then
      cat "$log"
      echo "check_cuda: FAILED to compile $f $defs"
      status=1
      continue
    fi
    if grep -E "[1-9][0-9]* bytes spill (stores|loads)" "$log"; then
      echo "check_cuda: register spills in $f $defs"
      case "$defs" in *FB_MIN_BLOCKS*) ;; *) status=1 ;; esac
    fi
    if grep -qiE "warning" "$log"; then grep -iE "warning" "$log"; fi
    echo "check_cuda: $f $defs OK ($(grep -c 'Compiling entry' "$log") kernels)"
  done
done
exit $status
