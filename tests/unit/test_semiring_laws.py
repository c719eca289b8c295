"""Algebraic laws of the built-in monoids and semirings, the Numba scalar functions, flips,
BOOL aliases and user-defined operators.

The laws are checked with each BinaryOp's ``np_func`` on random arrays (Hypothesis), in the
domains where they hold: exact float addition/multiplication is not associative, so those
laws use integers (wrap-around integer arithmetic is a ring, so plus/times stay associative
and distributive there).
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gblas as gb
from gblas import Matrix, Vector, binary, monoid, semiring
from gblas.dtypes import BOOL, FP32, FP64, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64
from gblas.exceptions import DomainMismatch
from gblas.semirings import codegen_numba as cg
from gblas.semirings.families import BFS, BFS_VXM

INTS = [INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64]
FLOATS = [FP32, FP64]

MONOIDS = ["plus", "times", "min", "max", "lor", "land", "lxor", "lxnor", "any", "bor",
           "band", "bxor"]

# domains where associativity/commutativity/identity are exact
LAW_DOMAINS = {
    "plus": INTS + [BOOL],
    "times": INTS + [BOOL],
    "min": INTS + FLOATS + [BOOL],
    "max": INTS + FLOATS + [BOOL],
    "lor": [BOOL],
    "land": [BOOL],
    "lxor": [BOOL],
    "lxnor": [BOOL],
    "any": INTS + FLOATS + [BOOL],
    "bor": INTS,
    "band": INTS,
    "bxor": INTS,
}
# commutativity and identity also hold exactly for float plus/times
COMM_DOMAINS = {k: v + (FLOATS if k in ("plus", "times") else [])
                for k, v in LAW_DOMAINS.items()}

IDEMPOTENT = {"plus": False, "times": False, "min": True, "max": True, "lor": True,
              "land": True, "lxor": False, "lxnor": False, "any": True, "bor": True,
              "band": True, "bxor": False}


def _all_ones(dt):
    if dt.is_bool:
        return True
    return -1 if dt.is_signed else np.iinfo(dt.np_type).max


def _hi(dt):
    if dt.is_bool:
        return True
    return np.inf if dt.is_float else np.iinfo(dt.np_type).max


def _lo(dt):
    if dt.is_bool:
        return False
    return -np.inf if dt.is_float else np.iinfo(dt.np_type).min


# GraphBLAS C API / SuiteSparse identities and terminal values
EXPECTED_IDENTITY = {
    "plus": lambda dt: 0, "times": lambda dt: 1, "min": _hi, "max": _lo,
    "lor": lambda dt: False, "land": lambda dt: True, "lxor": lambda dt: False,
    "lxnor": lambda dt: True, "bor": lambda dt: 0, "band": _all_ones, "bxor": lambda dt: 0,
}
EXPECTED_TERMINAL = {
    "plus": lambda dt: None, "times": lambda dt: None if dt.is_float else 0,
    "min": _lo, "max": _hi, "lor": lambda dt: True, "land": lambda dt: False,
    "lxor": lambda dt: None, "lxnor": lambda dt: None, "bor": _all_ones,
    "band": lambda dt: 0, "bxor": lambda dt: None,
}


def elements(dt, lo=None, hi=None, finite=False, allow_nan=False):
    if dt.is_bool:
        return st.booleans()
    if dt.is_float:
        return st.floats(min_value=lo, max_value=hi, allow_nan=allow_nan,
                         allow_infinity=not finite, width=dt.itemsize * 8)
    info = np.iinfo(dt.np_type)
    return st.integers(info.min if lo is None else max(lo, info.min),
                       info.max if hi is None else min(hi, info.max))


def triples(dt, **kw):
    """Three arrays of the same length and dtype (shape (3, n))."""
    return hnp.arrays(dt.np_type, st.tuples(st.just(3), st.integers(1, 24)),
                      elements=elements(dt, **kw))


def fn(op, dt):
    """op on domain dt, as the kernels see it: f(x, y) cast back to dt."""
    concrete = op.for_domain(dt)

    def f(x, y):
        x = np.asarray(x, dtype=dt.np_type)
        y = np.asarray(y, dtype=dt.np_type)
        return np.asarray(concrete.np_func(x, y)).astype(dt.np_type, copy=False)

    return f


def eq(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def cases(table):
    return [pytest.param(m, dt, id=f"{m}-{dt}") for m, dts in table.items() for dt in dts]


# ----------------------------------------------------------------------------- monoid laws
# Hypothesis examples per test scale with the profile (conftest: dev 60, ci 25, thorough 500)
FEW = settings(max_examples=max(8, settings.default.max_examples // 3))


@pytest.mark.parametrize("name", MONOIDS)
@FEW
@given(data=st.data())
def test_monoid_laws(name, data):
    """Associativity, commutativity, identity and terminal absorption of one monoid."""
    m0 = getattr(monoid, name)
    assert m0.binaryop.commutative and m0.binaryop.associative
    dt = data.draw(st.sampled_from(COMM_DOMAINS[name]), label="dtype")
    x, y, z = data.draw(triples(dt), label="xyz")
    m = m0.for_domain(dt)
    f = fn(m.binaryop, dt)
    if dt in LAW_DOMAINS[name]:
        assert eq(f(f(x, y), z), f(x, f(y, z))), "associativity"
    if m.is_any:
        # any: the result is one of the operands (which one is unspecified)
        r = f(x, y)
        assert np.all((r == x) | (r == y) | (r != r)), "any picks an operand"
        return
    assert eq(f(x, y), f(y, x)), "commutativity"
    e = np.full(x.shape, m.identity(dt), dtype=dt.np_type)
    assert eq(f(x, e), x) and eq(f(e, x), x), "identity"
    t = m.terminal(dt)
    if t is not None:
        tt = np.full(x.shape, t, dtype=dt.np_type)
        assert eq(f(x, tt), tt) and eq(f(tt, x), tt), "terminal absorbs"


@pytest.mark.parametrize("name,dt", cases({k: v for k, v in COMM_DOMAINS.items()
                                           if k != "any"}))
def test_monoid_identity_value(name, dt):
    m = getattr(monoid, name)
    expected = EXPECTED_IDENTITY[name](dt)
    got = m.for_domain(dt).identity(dt)
    assert got == dt.cast(expected)
    assert type(got) is type(dt.cast(expected))


@pytest.mark.parametrize("name,dt", cases({k: v for k, v in COMM_DOMAINS.items()
                                           if k != "any"}))
def test_monoid_terminal_value(name, dt):
    m = getattr(monoid, name).for_domain(dt)
    # on BOOL, plus is lor and times is land: their terminals apply
    base = m.name
    expected = EXPECTED_TERMINAL[base](dt)
    got = m.terminal(dt)
    if expected is None:
        assert got is None
    else:
        assert got == dt.cast(expected)


@pytest.mark.parametrize("name", MONOIDS)
def test_idempotent_flag(name):
    m = getattr(monoid, name)
    assert m.idempotent is IDEMPOTENT[name]
    for dt in LAW_DOMAINS[name]:
        if dt.is_bool:
            x = np.array([False, True])
        else:
            x = np.array([0, 1, 2, 3, 5, 100], dtype=dt.np_type)
        f = fn(m.binaryop, dt)
        assert eq(f(x, x), x) is m.for_domain(dt).idempotent, (name, dt)


def test_any_monoid_traits():
    assert monoid.any.is_any
    assert monoid.any.idempotent
    assert not monoid.plus.is_any


def test_lxnor_identity_on_bool():
    f = fn(monoid.lxnor.binaryop, BOOL)
    x = np.array([False, True])
    assert eq(f(x, np.array([True, True])), x)


# ----------------------------------------------------------------------------- semirings
SEMIRINGS = ["lor_land", "plus_times", "min_plus", "max_plus", "max_times", "min_max",
             "max_min", "plus_min", "land_lor", "lxor_land"]

BOUNDED = {"lo": -(2**20), "hi": 2**20}
# (semiring, dtype, element kwargs): ⊗ distributes over ⊕ here
DISTRIBUTIVE = [
    ("lor_land", BOOL, {}), ("land_lor", BOOL, {}), ("lxor_land", BOOL, {}),
    *[("plus_times", dt, {}) for dt in INTS + [BOOL]],
    *[("min_plus", dt, BOUNDED) for dt in (INT32, INT64)],
    *[("max_plus", dt, BOUNDED) for dt in (INT32, INT64)],
    *[("min_plus", dt, {"finite": True}) for dt in FLOATS],
    *[("max_plus", dt, {"finite": True}) for dt in FLOATS],
    *[("max_times", dt, {"lo": 0, "hi": 2**15}) for dt in (UINT32, UINT64, INT64)],
    ("max_times", FP64, {"lo": 0.0, "finite": True}),
    *[("min_max", dt, {}) for dt in INTS + FLOATS + [BOOL]],
    *[("max_min", dt, {}) for dt in INTS + FLOATS + [BOOL]],
]


@pytest.mark.parametrize("name", SEMIRINGS)
def test_semiring_parts(name):
    sr = getattr(semiring, name)
    add, mult = name.split("_")
    assert isinstance(sr, gb.Semiring)
    assert sr.monoid is getattr(monoid, add)
    assert sr.binaryop is getattr(binary, mult)
    assert sr.name == name
    assert semiring[name] is sr
    assert name in semiring


# ⊕'s identity annihilates ⊗ (the "zero" of the semiring)
ANNIHILATOR = [
    ("lor_land", BOOL, {}), ("land_lor", BOOL, {}), ("lxor_land", BOOL, {}),
    *[("plus_times", dt, {}) for dt in INTS],
    *[("min_plus", dt, {"finite": True}) for dt in FLOATS],
    *[("max_plus", dt, {"finite": True}) for dt in FLOATS],
    *[("min_max", dt, {}) for dt in INTS + FLOATS],
    *[("max_min", dt, {}) for dt in INTS + FLOATS],
    *[("max_times", dt, {}) for dt in (UINT8, UINT64)],
    *[("plus_min", dt, {}) for dt in (UINT8, UINT64)],
]


@pytest.mark.parametrize("name", SEMIRINGS)
@FEW
@given(data=st.data())
def test_semiring_laws(name, data):
    """Mult distributes over add (left and right); add's identity annihilates mult."""
    sr = getattr(semiring, name)
    dist = [(dt, kw) for n, dt, kw in DISTRIBUTIVE if n == name]
    zero = [(dt, kw) for n, dt, kw in ANNIHILATOR if n == name]
    assert dist or zero or name == "plus_min"
    if dist:
        dt, kw = data.draw(st.sampled_from(dist), label="distributive domain")
        a, b, c = data.draw(triples(dt, **kw), label="abc")
        add = fn(sr.monoid.binaryop, dt)
        mul = fn(sr.binaryop, dt)
        assert eq(mul(a, add(b, c)), add(mul(a, b), mul(a, c))), f"left-distributive {dt}"
        assert eq(mul(add(b, c), a), add(mul(b, a), mul(c, a))), f"right-distributive {dt}"
    if zero:
        dt, kw = data.draw(st.sampled_from(zero), label="annihilator domain")
        x, _, _ = data.draw(triples(dt, **kw), label="x")
        z = np.full(x.shape, sr.monoid.for_domain(dt).identity(dt), dtype=dt.np_type)
        mul = fn(sr.binaryop, dt)
        assert eq(mul(x, z), z) and eq(mul(z, x), z), f"zero annihilates {dt}"


def test_plus_min_is_not_distributive():
    """plus_min is a valid monoid + operator pair but not a distributive semiring."""
    add, mul = fn(monoid.plus.binaryop, INT64), fn(binary.min, INT64)
    a, b, c = np.array([1]), np.array([1]), np.array([1])
    assert not eq(mul(a, add(b, c)), add(mul(a, b), mul(a, c)))


def _dense_mxv(sr, A, present, x, xpresent, dt):
    """Reference: w_i = ⊕_k A_ik ⊗ x_k over the present pairs (np_func only)."""
    add = fn(sr.monoid.binaryop, dt)
    mul = fn(sr.binaryop, dt)
    out, out_present = np.zeros(A.shape[0], dtype=dt.np_type), np.zeros(A.shape[0], bool)
    for i in range(A.shape[0]):
        acc = None
        for k in range(A.shape[1]):
            if present[i, k] and xpresent[k]:
                t = mul(A[i, k], x[k])
                acc = t if acc is None else add(acc, t)
        if acc is not None:
            out[i], out_present[i] = acc, True
    return out, out_present


@pytest.mark.parametrize("name", SEMIRINGS)
@pytest.mark.parametrize("direction", ["push", "pull"])
def test_semiring_mxv_matches_np_func(name, direction):
    sr = getattr(semiring, name)
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    logical = name in ("lor_land", "land_lor", "lxor_land")
    dt = BOOL if logical else INT64
    n = 12
    present = rng.random((n, n)) < 0.4
    xpresent = rng.random(n) < 0.6
    if logical:
        A, x = rng.random((n, n)) < 0.5, rng.random(n) < 0.5
    else:
        A, x = rng.integers(-9, 10, (n, n)), rng.integers(-9, 10, n)
    r, c = np.nonzero(present)
    M = Matrix.from_coo(r, c, A[r, c], dtype=dt, nrows=n, ncols=n)
    (xi,) = np.nonzero(xpresent)
    u = Vector.from_coo(xi, x[xi], dtype=dt, size=n)
    d = gb.Descriptor(direction=direction)
    w = M.mxv(u, sr).new(desc=d)
    assert d.last_direction == direction
    ref, ref_present = _dense_mxv(sr, A.astype(dt.np_type), present, x.astype(dt.np_type),
                                  xpresent, dt)
    assert w.dtype == dt
    idx, vals = w.to_coo()
    assert idx.tolist() == np.flatnonzero(ref_present).tolist()
    np.testing.assert_array_equal(vals, ref[ref_present])


# ----------------------------------------------------------------------------- BOOL aliases
def test_bool_alias():
    assert binary.plus.bool_alias == "lor"
    assert binary.plus.for_domain(BOOL) is binary.lor
    assert binary.times.for_domain(BOOL) is binary.land
    assert binary.minus.for_domain(BOOL) is binary.lxor
    assert binary.plus.for_domain(INT64) is binary.plus
    assert monoid.plus.for_domain(BOOL) is monoid.lor
    assert monoid.times.for_domain(BOOL) is monoid.land
    assert monoid.plus.for_domain(FP64) is monoid.plus


def test_bool_alias_in_operations():
    v = Vector.from_coo([0, 1, 2], [True, True, False], size=3)
    s = v.reduce(monoid.plus).new()
    assert s.dtype == BOOL and s.value is True
    w = v.ewise_add(v, binary.plus).new()
    assert w.dtype == BOOL and w.to_coo()[1].tolist() == [True, True, False]
    A = Matrix.from_coo([0, 0], [0, 1], True, nrows=1, ncols=3)
    r = A.mxv(v, semiring.plus_times).new()
    assert r.dtype == BOOL and r[0].value is True  # 1 + 1 is True, not 2
    assert semiring.plus_times.types(BOOL, BOOL) == (BOOL, BOOL)


# ----------------------------------------------------------------------------- flip table
BUILTIN_BINARY = [name for name in binary if not binary[name].is_udf]


@pytest.mark.parametrize("name", BUILTIN_BINARY)
def test_flip_involution(name):
    op = binary[name]
    try:
        g = op.flipped
    except DomainMismatch:
        assert not op.commutative and op.flip_name is None
        return
    assert g.flipped.name == op.name
    if op.commutative:
        assert g is op
    if op.positional:
        swap = {"firsti": "secondj", "secondj": "firsti", "firstj": "secondi",
                "secondi": "firstj"}
        assert g.positional == swap[op.positional]
        assert g.offset == op.offset


@pytest.mark.parametrize("name", [n for n in BUILTIN_BINARY if binary[n].np_func is not None])
@pytest.mark.parametrize("dt", [INT64, FP64, BOOL], ids=str)
def test_flip_values(name, dt):
    op = binary[name]
    if dt.is_float and name in ("bor", "band", "bxor"):
        return  # bitwise operators are not defined on floats
    try:
        g = op.flipped
    except DomainMismatch:
        return
    rng = np.random.default_rng(7)
    if dt.is_bool:
        x, y = rng.random(50) < 0.5, rng.random(50) < 0.5
    elif dt.is_float:
        x, y = rng.normal(size=50) * 4, rng.normal(size=50) * 4
    else:
        x, y = rng.integers(-6, 7, 50), rng.integers(-6, 7, 50)
    if op.name == "any":
        return  # any(x, y) may be either operand
    assert eq(fn(g, dt)(y, x), fn(op, dt)(x, y))


def test_semiring_flipped():
    assert semiring.plus_times.flipped is semiring.plus_times
    f = semiring.min_first.flipped
    assert f.binaryop.name == "second" and f.monoid is monoid.min
    assert semiring.any_secondi.flipped.binaryop.name == "firstj"
    for key in BFS:
        assert BFS[key].flipped.binaryop.name == BFS_VXM[key].binaryop.name
        assert BFS[key].monoid is BFS_VXM[key].monoid


@pytest.mark.parametrize("op", ["pow", "truediv", "minus", "div", "first", "lt"])
def test_vxm_non_commutative_multiply(op):
    """u.vxm(A, sr) is w_j = ⊕_i u_i ⊗ A_ij for any semiring (the multiply's order kept)."""
    A = Matrix.from_coo([0, 1, 1], [1, 0, 1], [2, 3, 4], nrows=2, ncols=2)
    u = Vector.from_coo([0, 1], [5, 6], size=2)
    sr = getattr(semiring, f"plus_{op}")
    w = u.vxm(A, sr).new()
    f = binary[op]
    col0 = f.np_func(np.array([6]), np.array([3]))
    col1 = f.np_func(np.array([5, 6]), np.array([2, 4]))
    assert w.nvals == 2
    np.testing.assert_allclose(w.to_coo()[1], [col0.sum(), col1.sum()])


# ----------------------------------------------------------------------------- families
def test_bfs_families():
    assert BFS["boolean"] is semiring.lor_land
    assert BFS["real"] is semiring.plus_times
    assert BFS["tropical"] is semiring.min_plus
    assert BFS["selmax"].monoid is monoid.max
    assert BFS["selmax"].binaryop is binary.second
    assert BFS_VXM["selmax"].binaryop is binary.first
    assert gb.semirings.families.BFS is BFS
    assert set(BFS) == {"boolean", "real", "tropical", "selmax"} == set(BFS_VXM)


def test_bfs_families_give_same_frontier():
    # path 0 -> 1 -> 2 and 0 -> 3; one pull step from frontier {0}
    n = 4
    A = Matrix.from_coo([0, 1, 0], [1, 2, 3], True, nrows=n, ncols=n)
    AT = A.T.new()
    fronts = {}
    for key, sr in BFS.items():
        dt = BOOL if key == "boolean" else FP64
        x = Vector.from_coo([0], [1], dtype=dt, size=n)
        fronts[key] = AT.mxv(x, sr).new().to_coo()[0].tolist()
        fronts[key + "_vxm"] = x.vxm(A, BFS_VXM[key]).new().to_coo()[0].tolist()
    assert all(f == [1, 3] for f in fronts.values()), fronts


# ----------------------------------------------------------------------------- Numba functions
@numba.njit(error_model="numpy")
def _nb_binop(op, a, b, is_float, out):
    for t in range(a.shape[0]):
        out[t] = cg.mult_op(op, a[t], b[t], 0, 0, 0, out[t])
    return out


@numba.njit(error_model="numpy")
def _nb_monoid(op, a, b, out):
    for t in range(a.shape[0]):
        out[t] = cg.add_op(op, a[t], b[t])
    return out


@numba.njit
def _nb_positional(op, i, k, j):
    return cg.mult_op(op, np.int64(0), np.int64(0), i, k, j, np.int64(0))


def _random_inputs(dt, n=64):
    rng = np.random.default_rng(11)
    if dt.is_bool:
        return rng.random(n) < 0.5, rng.random(n) < 0.5
    if dt.is_float:
        a = np.round(rng.normal(size=n) * 5, 1)
        b = np.round(rng.normal(size=n) * 5, 1)
        a[:4], b[:4] = [0.0, np.nan, 2.0, -0.0], [0.0, 1.0, np.nan, 3.0]
        return a, b
    a, b = rng.integers(-20, 21, n), rng.integers(-20, 21, n)
    b[:3] = 0  # division by zero
    return a, b


OPCODE_OPS = [name for name in BUILTIN_BINARY
              if binary[name].opcode >= 0 and not binary[name].positional]


@pytest.mark.parametrize("dt", [INT64, FP64, BOOL], ids=str)
def test_numba_mult_op_matches_numpy(dt):
    bad = []
    a, b = _random_inputs(dt)
    for name in OPCODE_OPS:
        op = binary[name].for_domain(dt)
        if dt.is_float and name in ("bor", "band", "bxor"):
            continue  # bitwise operators are not defined on floats
        if name == "pow" and not dt.is_float:
            bb = np.abs(b) % 4
        else:
            bb = b
        if name == "pow" and dt.is_float:
            aa, bb = np.abs(a), np.round(np.abs(bb)) % 4
        else:
            aa = a
        expected = np.asarray(op.np_func(aa.astype(dt.np_type), bb.astype(dt.np_type)))
        expected = expected.astype(dt.np_type)
        got = _nb_binop(op.opcode, aa.astype(dt.np_type), bb.astype(dt.np_type),
                        dt.is_float, np.empty(aa.shape[0], dtype=dt.np_type))
        if name == "pow" and dt.is_float:
            # libm's pow and NumPy's (which squares by multiplying) may differ in the last bit
            if not np.allclose(got, expected, rtol=4e-16, atol=0, equal_nan=True):
                bad.append(name)
        elif not eq(got, expected):
            bad.append(name)
    assert not bad, f"mult_op disagrees with np_func on {dt}: {bad}"


@pytest.mark.parametrize("dt", [INT64, FP64, BOOL], ids=str)
def test_numba_add_op_matches_numpy(dt):
    bad = []
    a, b = _random_inputs(dt)
    for name in MONOIDS:
        if dt.is_float and name in ("bor", "band", "bxor"):
            with pytest.raises(DomainMismatch):
                monoid[name].for_domain(dt)
            continue
        m = monoid[name].for_domain(dt)
        op = m.binaryop
        expected = np.asarray(op.np_func(a.astype(dt.np_type), b.astype(dt.np_type)))
        expected = expected.astype(dt.np_type)
        got = _nb_monoid(op.opcode, a.astype(dt.np_type), b.astype(dt.np_type),
                         np.empty(a.shape[0], dtype=dt.np_type))
        if m.is_any:
            ok = np.all((got == a) | (got == b) | (np.isnan(got) if dt.is_float else False))
        else:
            ok = eq(got, expected)
        if not ok:
            bad.append(name)
    assert not bad, f"add_op disagrees with np_func on {dt}: {bad}"


def test_numba_positional_opcodes():
    i, k, j = 3, 5, 7
    expected = {"firsti": i, "firsti1": i + 1, "firstj": k, "firstj1": k + 1,
                "secondi": k, "secondi1": k + 1, "secondj": j, "secondj1": j + 1}
    for name, want in expected.items():
        assert binary[name].opcode == cg.OPCODES[name]
        assert _nb_positional(binary[name].opcode, i, k, j) == want, name


def test_opcodes_unique_per_operator():
    seen = {}
    for name, code in cg.OPCODES.items():
        assert binary[name].opcode == code
        seen.setdefault(code, set()).add(name)
    # only aliases share an opcode (oneb is pair)
    assert all(len(v) == 1 or v == {"pair", "oneb"} for v in seen.values())


# ----------------------------------------------------------------------------- user-defined ops
@pytest.fixture(scope="module")
def absdiff():
    return gb.BinaryOp.register_new("my_absdiff", lambda x, y: abs(x - y))


def test_udf_binary_registered(absdiff):
    assert binary.my_absdiff is absdiff
    assert "my_absdiff" in binary
    assert absdiff.is_udf and absdiff.opcode == -1
    assert absdiff.return_type(INT64, INT64) == INT64
    assert absdiff.return_type(FP64, FP64) == FP64


def test_udf_ewise_mult(absdiff):
    u = Vector.from_coo([0, 1, 3], [1, 10, 3], size=5)
    v = Vector.from_coo([1, 2, 3], [4, 7, 8], size=5)
    w = u.ewise_mult(v, binary.my_absdiff).new()
    assert w.to_coo()[0].tolist() == [1, 3]
    assert w.to_coo()[1].tolist() == [6, 5]
    assert w.dtype == INT64
    wf = u.dup(float).ewise_add(v.dup(float), absdiff).new()
    assert wf.dtype == FP64
    got = dict(zip(*[a.tolist() for a in wf.to_coo()], strict=True))
    assert got == {0: 1.0, 1: 6.0, 2: 7.0, 3: 5.0}


def test_udf_flipped():
    op = gb.BinaryOp.register_new("my_lin", lambda x, y: x - 2 * y)
    g = op.flipped
    x, y = np.arange(5), np.arange(5, 10)
    assert eq(g.np_func(y, x), op.np_func(x, y))


def test_udf_vxm_non_commutative():
    """vxm with a user-defined, non-commutative multiply keeps the operand order."""
    op = gb.BinaryOp.register_new("my_lin2", lambda x, y: x - 2 * y)
    sr = gb.Semiring.register_anonymous(monoid.plus, op)
    A = Matrix.from_coo([0, 1], [1, 0], [1, 2], nrows=2, ncols=2)
    u = Vector.from_coo([0, 1], [10, 20], size=2)
    w = u.vxm(A, sr).new()
    # w_j = sum_i u_i (x) A_ij: w_0 = 20 - 2*2, w_1 = 10 - 2*1
    assert w.to_coo()[1].tolist() == [16, 8]


def test_udf_monoid_semiring_mxv(absdiff):
    mymax = gb.BinaryOp.register_new("my_max2", lambda x, y: x if x > y else y)
    m = gb.Monoid.register_new("my_max2", mymax, -(2**62), idempotent=True)
    assert monoid.my_max2 is m
    sr = gb.Semiring.register_new("my_max2_absdiff", m, absdiff)
    assert semiring.my_max2_absdiff is sr
    assert sr.is_udf
    A = Matrix.from_coo([0, 0, 1, 2], [0, 2, 1, 2], [1, 9, 5, 0], nrows=3, ncols=3)
    u = Vector.from_coo([0, 1, 2], [4, 5, 6], size=3)
    for direction in ("push", "pull"):
        w = A.mxv(u, sr).new(desc=gb.Descriptor(direction=direction))
        # row0: max(|1-4|, |9-6|) = 3; row1: |5-5| = 0; row2: |0-6| = 6
        assert w.to_coo()[1].tolist() == [3, 0, 6], direction
    # the same semiring with a built-in ⊕ and a UDF ⊗, and reduce with the UDF monoid
    w2 = A.mxv(u, gb.Semiring.register_anonymous(monoid.plus, absdiff)).new()
    assert w2.to_coo()[1].tolist() == [6, 0, 6]
    assert Vector.from_coo([0, 1, 2], [3, 7, 5], size=3).reduce(m).new().value == 7


def test_udf_unary_apply():
    sq = gb.UnaryOp.register_new("my_square", lambda x: x * x)
    assert gb.unary.my_square is sq
    v = Vector.from_coo([0, 2], [-3, 4], size=3)
    w = v.apply(sq).new()
    assert w.to_coo()[1].tolist() == [9, 16] and w.dtype == INT64
    A = Matrix.from_coo([0, 1], [1, 0], [1.5, -2.0], nrows=2, ncols=2)
    B = A.apply(gb.unary.my_square).new()
    assert B.dtype == FP64 and B.to_coo()[2].tolist() == [2.25, 4.0]


def test_udf_indexunary_select():
    op = gb.IndexUnaryOp.register_new("my_even_big", lambda x, i, j, t: i % 2 == 0 and x > t)
    assert gb.select.my_even_big is op
    v = Vector.from_coo([0, 1, 2, 4, 5], [5, 9, 1, 7, 8], size=6)
    w = v.select(op, 2).new()
    assert dict(zip(*[a.tolist() for a in w.to_coo()], strict=True)) == {0: 5, 4: 7}
    A = Matrix.from_coo([0, 1, 2], [0, 0, 1], [3, 4, 5], nrows=3, ncols=2)
    B = A.select("my_even_big", 0).new()
    assert B.to_coo()[0].tolist() == [0, 2]
