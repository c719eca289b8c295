"""gblas.cuda's checks that need no GPU: a CPU matrix, a bad method or levels_per_sync, a
non-Matrix, and the config key ``bfs_gpu`` validated at ``config.set`` time."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gblas as gb
from gblas import generators
from gblas.algorithms import bfs
from gblas.exceptions import (
    GraphblasException,
    InvalidObject,
    InvalidValue,
    NotImplementedForFormat,
)


@pytest.fixture(scope="module")
def grid() -> gb.Matrix:
    return generators.grid2d(4, 5)


def test_cpu_matrix_needs_cuda(grid: gb.Matrix) -> None:
    for method in ("fused", "levels"):
        with pytest.raises(NotImplementedForFormat, match="CUDA device") as e:
            gb.cuda.bfs(grid, 0, method=method)
        assert isinstance(e.value, GraphblasException)
        assert "'cpu'" in str(e.value)
        assert not gb.cuda.bfs_applies(grid, method=method)


def test_bad_method(grid: gb.Matrix) -> None:
    with pytest.raises(InvalidValue, match="method must be 'fused' or 'levels', got 'ops'"):
        gb.cuda.bfs(grid, 0, method="ops")
    with pytest.raises(InvalidValue, match="got None"):
        gb.cuda.bfs(grid, 0, method=None)  # type: ignore[arg-type]
    assert not gb.cuda.bfs_applies(grid, method="sideways")


def test_bad_arguments(grid: gb.Matrix) -> None:
    with pytest.raises(InvalidObject, match="gblas.Matrix"):
        gb.cuda.bfs([[0, 1], [1, 0]], 0)
    assert not gb.cuda.bfs_applies("not a matrix")
    assert gb.cuda.METHODS == ("fused", "levels")
    assert "cuda" in gb.__all__


def test_config_bfs_gpu_validated() -> None:
    assert gb.config.get("bfs_gpu") == "fused"
    for bad in ("cuda", True, 1, None, "FUSED"):
        with pytest.raises(InvalidValue, match="bfs_gpu"):
            gb.config.set(bfs_gpu=bad)
        assert gb.config.get("bfs_gpu") == "fused"
    # nothing is applied when one value is bad
    with pytest.raises(InvalidValue):
        gb.config.set(bitmap_density=0.5, bfs_gpu="nope")
    assert gb.config.get("bitmap_density") == 0.05
    with pytest.raises(InvalidValue):
        with gb.config.override(bfs_gpu="x"):
            pass
    for ok in ("levels", "ops", "fused"):
        with gb.config.override(bfs_gpu=ok):
            assert gb.config.get("bfs_gpu") == ok
    assert gb.config.get("bfs_gpu") == "fused"
    with pytest.raises(InvalidValue, match="unknown config key 'bfs_fused'"):
        gb.config.set(bfs_fused=True)


def test_cpu_bfs_ignores_bfs_gpu(grid: gb.Matrix) -> None:
    ref = bfs(grid, 3)
    for method in ("fused", "levels", "ops"):
        with gb.config.override(bfs_gpu=method):
            st: dict = {}
            lv = bfs(grid, 3, stats=st)
        assert lv.isequal(ref)
        assert not any(k.startswith("cuda_") for k in st["kernels"])


def _param_letter(decl: str) -> str:
    """A C parameter declaration as CoopLaunch's type letter."""
    decl = " ".join(decl.replace("__restrict__", "").split())
    if "*" in decl:
        return "p"
    ctype = decl.rsplit(" ", 1)[0]
    return {"long long": "q", "int": "i", "double": "d"}[ctype]


def _kernel_letters(source: str, kernel: str) -> str:
    """The CoopLaunch letters of ``kernel``'s parameters in the .cu file ``source``."""
    import re

    from gblas.formats.csr import bfs_fused

    text = bfs_fused.module_source(source)
    body = re.search(rf"\b{kernel}\((.*?)\)\s*\{{", text, re.S)
    assert body is not None
    params = [p.strip() for p in re.sub(r"//[^\n]*", "", body[1]).split(",")]
    return "".join(_param_letter(p) for p in params)


def test_fused_launch_types_match_the_kernel() -> None:
    """The packed launch writes its arguments by position and type: they must be the
    parameters of bfs_fused in bfs_fused.cu (a mismatch would hand the kernel garbage)."""
    from gblas.formats.csr import bfs_fused

    assert _kernel_letters("bfs_fused.cu", "bfs_fused") == bfs_fused._FUSED_ARGS
    assert len(bfs_fused._FUSED_ARGS) == 37


def test_async_launch_types_match_the_kernel() -> None:
    """The same for the barrier-free kernel (bfs_async.cu) and bfs_async._ASYNC_ARGS."""
    from gblas.formats.csr import bfs_async

    assert _kernel_letters("bfs_async.cu", "bfs_async") == bfs_async._ASYNC_ARGS


def test_async_profile_keys_match_the_kernel() -> None:
    """info['async_profile'] names one counter per word the profile build adds up
    (AB_PROF_WORDS in bfs_async.cu), the six segments' cycles among them."""
    import re

    from gblas.formats.csr import bfs_async, bfs_fused

    src = bfs_fused.module_source("bfs_async.cu")
    words = int(re.search(r"#define AB_PROF_WORDS (\d+)", src)[1])
    assert len(bfs_async.PROFILE_KEYS) == words == len(set(bfs_async.PROFILE_KEYS))
    segments = re.findall(r"AB_SEG\((\d)\);", src)
    assert sorted(map(int, segments)) == list(range(6))
    assert sum(k.endswith("_cycles") for k in bfs_async.PROFILE_KEYS) == 2 + len(segments)


@pytest.mark.parametrize(("knobs", "word"), [
    ((None, None, 0, 32), None), ((True, 5, 10**6, 1), None),
    (("yes", None, 0, 32), "async_bfs"), ((1, None, 0, 32), "async_bfs"),
    ((False, 0, 0, 32), "async_cap"), ((False, True, 0, 32), "async_cap"),
    ((False, None, -1, 32), "async_sleep_ns"), ((False, None, 0.5, 32), "async_sleep_ns"),
    ((False, None, 0, 0), "async_claim"), ((False, None, 0, 33), "async_claim"),
    ((None, None, 0, 32, True, True), None), ((None, None, 0, 32, 1), "async_profile"),
    ((None, None, 0, 32, False, None), "async_look"),
    ((None, None, 0, 32, False, "yes"), "async_look"),
    ((None, None, 0, 32, False, 1), "async_look")])
def test_async_knobs_checked(knobs: tuple, word: str | None) -> None:
    """fused_bfs's barrier-free knobs are checked before anything runs: InvalidValue naming
    the knob, or nothing for valid values."""
    from gblas.exceptions import InvalidValue
    from gblas.formats.csr import bfs_async

    if word is None:
        bfs_async.check_knobs(*knobs)
        return
    with pytest.raises(InvalidValue, match=word):
        bfs_async.check_knobs(*knobs)


def test_fused_launch_args_follow_the_letters() -> None:
    """Work.launch_args (fused_bfs's and bfs_call_overhead.py's launches) gives one value
    per letter of _FUSED_ARGS, of its kind: addresses and ints where p/q/i, floats where d."""
    from types import SimpleNamespace

    from gblas.formats.csr import bfs_fused

    arr = SimpleNamespace(data=SimpleNamespace(ptr=4096))
    csr = SimpleNamespace(nnz=10)
    w = bfs_fused.Work.__new__(bfs_fused.Work)
    w.n, w.csr, w.csr_t, w.nheavy = 5, csr, csr, 0
    w.meta = arr
    w.out_ptrs = (4096, 8192, 12288, 16384)
    args = w.launch_args((1, 2, 3, 4, 5), tuple(range(11)), 2, 0, True,
                         (8.0, 8.0, 512.0, 1 << 70, 64, 1 << 63, 16), 1, 2)
    letters = bfs_fused._FUSED_ARGS
    assert len(args) == len(letters)
    for letter, value in zip(letters, args, strict=True):
        assert isinstance(value, float if letter == "d" else int), (letter, value)
    # small_edges (clamped), eager_edges, mark_edges (clamped), pull_serial, nheavy
    at = letters.index("qqqiq")
    assert args[at:at + 5] == (2**62, 64, 2**62, 16, 0)
    assert args[at + 5:at + 7] == (1, 2)  # resume, stop


@pytest.mark.parametrize("name", ["bfs_tc.cu", "mxv.cu"])
def test_bvss_kernel_source_has_its_headers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The source the BVSS kernels hand to CuPy has every local header inlined, those in
    gblas/backend too (bfs_common.cuh includes bfs_rule.cuh from there): NVRTC sees no
    include path, so a header left as an #include fails only on the GPU."""
    from gblas.formats.bvss import cuda as bvss_cuda

    seen: list[str] = []

    class Module:
        def __init__(self, code: str, **_: object) -> None:
            seen.append(code)

        def get_function(self, expr: str) -> str:
            return expr

    class Device:
        def __init__(self, _: int) -> None:
            pass

        def __enter__(self) -> None:
            return None

        def __exit__(self, *_: object) -> None:
            return None

    fake = type("cp", (), {"RawModule": Module,
                           "cuda": type("cuda", (), {"Device": Device})})
    monkeypatch.setattr(bvss_cuda, "_cp", lambda: fake)
    assert bvss_cuda.get_kernel.__wrapped__(0, name, "k") == "k"
    assert '#include "' not in seen[0] and "bvss_common.cuh" in seen[0]
    if name == "bfs_tc.cu":
        assert "bfs_direction_rule" in seen[0]  # bfs_rule.cuh's


def test_scratch_kept_only_when_small() -> None:
    """The fused GPU BFS keeps its scratch on a matrix while it is small, or small against
    the graph (a graph of many vertices and few edges allocates its own): the size formula
    and the cut."""
    from gblas.formats.csr import bfs_fused

    kron22 = bfs_fused.scratch_bytes(2**22, 128 * 2**20)
    kron24 = bfs_fused.scratch_bytes(2**24, 512 * 2**20)
    assert 80 << 20 < kron22 <= bfs_fused.KEEP_SCRATCH_BYTES < kron24
    assert bfs_fused.scratch_bytes(1, 0) > 0
    # int64 indptr and indices of A and Aᵀ (iso values: one item each)
    def csr_bytes(n: int, nnz: int) -> int:
        return 2 * (8 * (n + 1) + 8 * nnz + 1)

    assert bfs_fused.keep_scratch(kron22, csr_bytes(2**22, 128 * 2**20))
    assert bfs_fused.keep_scratch(kron24, csr_bytes(2**24, 512 * 2**20))  # 3 % of the graph
    # 2^28 vertices, a few edges: the scratch (5 GB) is more than the graph's share
    empty = bfs_fused.scratch_bytes(2**28, 2**20)
    assert not bfs_fused.keep_scratch(empty, csr_bytes(2**28, 2**20))


def test_scratch_reuse_rules_without_a_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work.reused's rules, with the device allocation replaced: one scratch per matrix and
    direction kind, a busy one not shared, one last used on another stream not shared (a
    search that read nothing back may still run there), a changed matrix gets a new one, a
    large one is never kept."""
    from gblas.formats.csr import bfs_fused

    made = []
    stream = [7]
    monkeypatch.setattr(bfs_fused, "_current_stream", lambda: stream[0])

    def fake_alloc(self, A, direction, ctr_words):  # noqa: ANN001, ANN202, N803
        self.csr = A._csr()
        self.csr_t = A._csr_T() if direction != "push" else self.csr
        self.n = A.nrows
        made.append(self)

    monkeypatch.setattr(bfs_fused.Work, "alloc_scratch", fake_alloc)
    A = generators.kronecker(8, seed=1)  # noqa: N806
    w = bfs_fused.Work.reused(A, "auto", 36)
    other = bfs_fused.Work.reused(A, "auto", 36)  # w is busy
    assert other is not w and w.busy and other.busy
    assert w.kept and not other.kept  # (only a kept scratch makes outputs ahead)
    w.release()
    other.release()
    assert bfs_fused.Work.reused(A, "auto", 36) is w  # the kept one
    w.release()
    push = bfs_fused.Work.reused(A, "push", 36)
    assert push is not w and push.csr_t is push.csr
    push.release()
    stream[0] = 8  # another stream: w's search may still run on stream 7
    on8 = bfs_fused.Work.reused(A, "auto", 36)
    assert on8 is not w and on8.stream == 8
    on8.release()
    assert bfs_fused.Work.reused(A, "auto", 36) is on8  # kept for stream 8 now
    on8.release()
    A[0, 1] = True  # the matrix changes: its properties go, the scratch with them
    assert bfs_fused.Work.reused(A, "auto", 36) is not w
    monkeypatch.setattr(bfs_fused, "KEEP_SCRATCH_BYTES", 0)
    monkeypatch.setattr(bfs_fused, "KEEP_SCRATCH_SHARE", 0.0)
    B = generators.kronecker(8, seed=2)  # noqa: N806
    b1 = bfs_fused.Work.reused(B, "auto", 36)
    assert not b1.kept
    b1.release()
    assert bfs_fused.Work.reused(B, "auto", 36) is not b1  # too large to keep
    assert len(made) == 7


def test_async_default_rule() -> None:
    """prefers_async (fused_bfs's default): meshes and road networks of 65536 vertices or
    more yes, not small grids, Kronecker graphs, pull-only searches, graphs of average degree
    below 1.5; the longest row (the kernel's own check) as an array, kept on the CSR."""
    import numpy as np

    from gblas import Matrix, generators
    from gblas.formats.csr import bfs_async

    grid = generators.grid2d(300, 300)._csr()
    assert bfs_async.prefers_async(grid, "auto") and bfs_async.prefers_async(grid, "push")
    assert not bfs_async.prefers_async(grid, "pull")
    assert bfs_async.max_row_length(grid).tolist() == [4]
    assert bfs_async.max_row_length(grid) is grid.__dict__["_max_row_length"]
    assert not bfs_async.prefers_async(generators.grid2d(30, 30)._csr(), "auto")
    road = generators.road_like(70000, seed=1)._csr()
    assert road.nnz < 3.5 * road.nrows and bfs_async.prefers_async(road, "auto")
    matching = Matrix.from_coo(np.arange(0, 70000, 2), np.arange(1, 70000, 2), True,
                               nrows=70000, ncols=70000)._csr()  # average degree 0.5
    assert not bfs_async.prefers_async(matching, "auto")
    assert not bfs_async.prefers_async(generators.kronecker(17, seed=1)._csr(), "auto")
    # a 300 x 300 grid whose vertex 0 also reaches the 4097 vertices of its last rows
    r, c = generators.grid2d(300, 300).to_coo()[:2]
    far = np.arange(90000 - bfs_async.ASYNC_MAX_ROW - 1, 90000)
    zeros = np.zeros_like(far)
    r, c = np.concatenate([r, zeros, far]), np.concatenate([c, far, zeros])
    hub = Matrix.from_coo(r, c, True, nrows=90000, ncols=90000, dup_op=gb.binary.first)._csr()
    assert int(bfs_async.max_row_length(hub)[0]) == bfs_async.ASYNC_MAX_ROW + 1 + 2


class _FakeDriver:
    """CuPy's launchCooperativeKernel stand-in: records the int64 values of each launch."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, list[int]]] = []

    def __call__(self, kern, gx, gy, gz, bx, by, bz, smem, stream, ptrs):  # noqa: ANN001, ANN204, PLR0913
        import ctypes

        arr = ctypes.cast(ptrs, ctypes.POINTER(ctypes.c_void_p))
        self.calls.append((gx, [ctypes.c_int64.from_address(arr[i]).value for i in range(4)]))


def test_packed_launch_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    """A prepared launch packs its fixed values once and writes only its slots per call, in
    SLOTS order (a slot the kernel does not take is skipped); the values reach the driver,
    and CuPy's call where there is no driver entry point."""
    from types import SimpleNamespace

    from gblas.formats.csr import coop_launch as cl

    driver = _FakeDriver()
    fake = SimpleNamespace(cuda=SimpleNamespace(
        driver=SimpleNamespace(launchCooperativeKernel=driver),
        get_current_stream=lambda: SimpleNamespace(ptr=0)))
    monkeypatch.setattr(cl, "_cp", lambda: fake)
    seen: list[tuple[int, ...]] = []
    kern = SimpleNamespace(kernel=SimpleNamespace(ptr=1))
    launcher = cl.CoopLaunch(kern, "qqqq")
    packed = cl.PackedLaunch(launcher, 3, 256, (11, cl.SOURCE, cl.OUTPUTS[3], 12))
    assert packed.places == ((1, 0), (2, 4))
    packed((5, 100, 200, 300, 400, 999))
    packed((6, 101, 201, 301, 401, 999))
    assert driver.calls == [(3, [11, 5, 400, 12]), (3, [11, 6, 401, 12])]
    other = cl.PackedLaunch(launcher, 1, 32, (2, 3, 4, 5))  # another buffer, one launcher
    other((0,) * 6)
    assert driver.calls[-1] == (1, [2, 3, 4, 5])
    packed((7, 0, 0, 0, 402, 0))  # its own buffer: untouched by the call above
    assert driver.calls[-1] == (3, [11, 7, 402, 12])
    launcher.driver = None  # CuPy's call
    launcher.kern = lambda grid, block, args: seen.append((grid, block, *map(int, args)))
    packed((8, 0, 0, 0, 403, 0))
    assert seen == [((3,), (256,), 11, 8, 403, 12)]
    with pytest.raises(InvalidValue, match="4 kernel arguments expected, got 3"):
        cl.PackedLaunch(launcher, 1, 32, (1, 2, 3))


def test_outputs_made_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work.take_outputs takes the outputs the search before made ahead when parents
    match (else allocates), zeroes the counters only where no search zeroed them behind
    it; after_search zeroes them and makes the next outputs on a kept scratch only."""
    from types import SimpleNamespace

    from gblas.formats.csr import bfs_fused

    allocs: list[int] = []
    memsets: list[int] = []

    class Mem:
        def __init__(self, size: int) -> None:
            self.ptr = 1000 * (len(allocs) + 1)
            allocs.append(size)

    monkeypatch.setattr(bfs_fused, "_cp", lambda: SimpleNamespace(
        cuda=SimpleNamespace(alloc=Mem)))
    w = bfs_fused.Work.__new__(bfs_fused.Work)
    w.n, w.kept, w.spare, w.ctr_zero = 10, True, None, True
    w.ctr = SimpleNamespace(nbytes=288, data=SimpleNamespace(
        memset_async=lambda v, k: memsets.append(k)))
    w.take_outputs(False)  # nothing ahead: allocated; counters zero: no memset
    assert len(allocs) == 1 and memsets == [] and not w.ctr_zero
    first = w.out_ptrs
    w.after_search(False)
    assert memsets == [288] and w.ctr_zero and len(allocs) == 2
    w.take_outputs(False)  # the spare, no allocation, no memset
    assert len(allocs) == 2 and memsets == [288] and w.out_ptrs != first
    assert w.spare is None and w.out_ptrs[3] == 2000
    w.after_search(False)
    w.take_outputs(True)  # a spare without parents: a fresh allocation with them
    assert len(allocs) == 4 and allocs[-1] == 8 * (1 + 10 + 10) + 10
    w.take_outputs(True)  # the counters were not zeroed behind a search: memset now
    assert memsets == [288, 288, 288]
    w.kept = False
    w.after_search(True)
    assert w.spare is None and len(allocs) == 5


def test_fused_knob_sets_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """fused_bfs's knobs are checked once per knob set and types (True == 1, yet 1 is no
    bool knob); a failed check is not remembered; an unhashable knob gets check_knobs'
    error."""
    from gblas.formats.csr import bfs_fused

    good = bfs_fused.Knobs("auto", False, 8.0, 8.0, 512.0, None, 1024, 0, None, 16, False,
                           None, 4, 8, None, None, 0, 32, False, True, False)
    calls: list[Any] = []
    real = bfs_fused.check_knobs
    monkeypatch.setattr(bfs_fused, "check_knobs", lambda k: calls.append(k) or real(k))
    bfs_fused._checked.cache_clear()
    key = (good, tuple(map(type, good)))
    assert bfs_fused._checked(key) and bfs_fused._checked(key)
    assert len(calls) == 1
    bad = good._replace(async_look=1)
    for _ in range(2):
        with pytest.raises(InvalidValue, match="async_look must be True or False"):
            bfs_fused._checked((bad, tuple(map(type, bad))))
    assert len(calls) == 3
    with pytest.raises(InvalidValue, match="pull_serial must be a positive int"):
        real(good._replace(pull_serial=0))
    with pytest.raises(InvalidValue, match="async_bfs=True pushes every level"):
        real(good._replace(async_bfs=True, direction="pull"))
    with pytest.raises(InvalidValue, match="small_edges must be a non-negative int"):
        real(good._replace(small_edges=[1]))
    real(good._replace(mark_edges=0))
    for bad_mark in (-1, 2.0, True):
        with pytest.raises(InvalidValue, match="mark_edges must be a non-negative int"):
            real(good._replace(mark_edges=bad_mark))


@pytest.mark.parametrize("parents", [False, True])
def test_output_layout(parents: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Work.alloc_outputs: one allocation of count, levels, parents (one word without) and
    the reached bytes; the kernels' pointers (levels, bits, parents, count) and the arrays
    made later sit at the same offsets, with the dtypes the kernels write."""
    from types import SimpleNamespace

    import numpy as np

    from gblas.formats.csr import bfs_fused

    class Mem:  # a stand-in allocation at address 1000
        ptr = 1000

        def __add__(self, k: int) -> tuple[str, int]:
            return ("at", k)

    sizes: list[int] = []
    fake = SimpleNamespace(
        cuda=SimpleNamespace(alloc=lambda size: sizes.append(size) or Mem()),
        ndarray=lambda shape, dtype, mem: (shape, np.dtype(dtype), mem))
    monkeypatch.setattr(bfs_fused, "_cp", lambda: fake)
    n = 10
    npar = n if parents else 1
    w = bfs_fused.Work.__new__(bfs_fused.Work)
    w.n = n
    w.alloc_outputs(parents)
    assert sizes == [8 * (1 + n + npar) + n]
    assert w.out_ptrs == (1008, 1000 + 8 * (1 + n + npar), 1000 + 8 * (1 + n), 1000)
    assert w.out_count == ((1,), np.dtype(np.uint64), ("at", 0))
    assert w.out_levels == ((n,), np.dtype(np.int64), ("at", 8))
    assert w.out_parents == ((npar,), np.dtype(np.int64), ("at", 8 * (1 + n)))
    assert w.out_bits == ((n,), np.dtype(np.bool_), ("at", 8 * (1 + n + npar)))
    assert w.out_levels is w.out_levels  # made once per allocation


def test_default_key_is_fused_bfs_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """gblas.cuda's validated call (bfs_checked) searches with default_key: the knobs
    fused_bfs builds from its own defaults and these arguments, one key object per set."""
    from gblas.formats.csr import bfs_fused

    seen: list[Any] = []
    monkeypatch.setattr(bfs_fused, "check_args", lambda A, source, **kw: int(source))
    monkeypatch.setattr(bfs_fused, "search", lambda A, src, key: seen.append((src, key)))
    for parents, direction, step_log in ((False, "auto", False), (True, "pull", True)):
        bfs_fused.fused_bfs(None, 3, parents=parents, direction=direction, alpha=15,
                            step_log=step_log)
        key = bfs_fused.default_key(direction, parents, 15.0, 8.0, 512.0, step_log)
        assert seen[-1] == (3, key)
        assert type(key[0].alpha) is float and key[0].parents is parents
        assert bfs_fused.default_key(direction, parents, 15.0, 8.0, 512.0, step_log) is key
    with pytest.raises(InvalidValue, match="mark_edges must be a non-negative int"):
        bfs_fused.fused_bfs(None, 0, mark_edges=-1)
    assert len(seen) == 2  # a bad knob never reaches the search


def test_bfs_checked_skips_the_checks(grid: gb.Matrix, monkeypatch: pytest.MonkeyPatch) -> None:
    """bfs_checked runs the fused CSR search with default_key and no check_args (the
    algorithms layer validated the call), wraps its data as bfs does, and records the
    kernel; gblas.cuda.bfs still validates."""
    from gblas.formats.csr import bfs_fused
    from gblas.formats.vector import VecData

    impl = gb.cuda._impl()
    data = VecData.sparse(20, gb.dtypes.INT64, np.array([0]), np.array([0]))
    calls: list[Any] = []
    monkeypatch.setattr(bfs_fused, "check_args", lambda *a, **k: calls.append("check"))
    monkeypatch.setattr(bfs_fused, "search", lambda A, src, key: (
        calls.append((src, key)) or (data, None, {"kernel": bfs_fused.KERNEL_NAME})))
    monkeypatch.setattr(impl.bfs_tc, "applies", lambda A: False)
    lv, pi, info = gb.cuda.bfs_checked(grid, 2, parents=False, direction="push", alpha=8,
                                       beta1=8.0, beta2=512.0, method="fused", step_log=False)
    assert calls == [(2, bfs_fused.default_key("push", False, 8.0, 8.0, 512.0, False))]
    assert isinstance(lv, gb.Vector) and pi is None and lv.nvals == 1
    assert gb.last_plan().kernel == bfs_fused.KERNEL_NAME
    assert gb.last_plan().direction == "push"
    with pytest.raises(NotImplementedForFormat):  # the public call checks first
        gb.cuda.bfs(grid, 2)


def test_fits_kept_until_the_matrix_changes() -> None:
    """applies keeps whether A fits the kernel with A's graph properties; a change of A
    drops it (its shape may change)."""
    from gblas.formats.csr import bfs_fused

    A = generators.grid2d(3, 3)
    assert not bfs_fused.applies(A)  # a CPU matrix
    assert A._props["bfs_fused_fits"] is False
    assert not bfs_fused.applies(A, alpha=-1.0)
    A[0, 8] << 1.0
    assert "bfs_fused_fits" not in A._props
