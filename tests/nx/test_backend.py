"""The gblas NetworkX backend against NetworkX itself, called as users call it
(``nx.f(G, backend="gblas")``): nodes with labels other than 0..n-1 in a scrambled order,
directed and undirected graphs, multigraphs, edge weights."""

from __future__ import annotations

import math
import random
from functools import partial
from importlib.metadata import EntryPoint, entry_points

import networkx as nx
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from nx_backend_registration import declared_entry_points

import gblas.nx
from gblas.nx import GblasGraph, dispatch_counts, from_networkx, to_networkx

CLASSES = {"Graph": nx.Graph, "DiGraph": nx.DiGraph, "MultiGraph": nx.MultiGraph,
           "MultiDiGraph": nx.MultiDiGraph}


def label(i: int):
    """Node labels of mixed kinds (str, tuple, negative int), none equal to its id."""
    return (f"v{i}", (i, "t"), -i - 1)[i % 3]


@st.composite
def graphs(draw, classes=tuple(CLASSES), max_n: int = 14):
    """A NetworkX graph whose nodes are labels in a shuffled order, with self-loops,
    parallel edges (multigraphs) and integer weights on most edges (some edges lack one)."""
    cls = CLASSES[draw(st.sampled_from(classes))]
    n = draw(st.integers(1, max_n))
    G = cls()  # noqa: N806
    order = draw(st.permutations(range(n)))
    G.add_nodes_from(label(i) for i in order)
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                    st.one_of(st.none(), st.integers(1, 9))),
                             max_size=3 * n))
    for u, v, w in edges:
        G.add_edge(label(u), label(v), **({} if w is None else {"weight": w}))
    return G


def some_node(G, data):  # noqa: N803
    return data.draw(st.sampled_from(list(G)))


# ---------------------------------------------------------------- traversals
@given(graphs(), st.data())
def test_bfs_edges_and_layers_in_networkx_order(G, data):  # noqa: N803
    s = some_node(G, data)
    depth = data.draw(st.one_of(st.none(), st.integers(0, 4)))
    for reverse in (False, True):
        assert list(nx.bfs_edges(G, s, reverse=reverse, depth_limit=depth, backend="gblas")) \
            == list(nx.bfs_edges(G, s, reverse=reverse, depth_limit=depth))
    sources = data.draw(st.lists(st.sampled_from(list(G)), min_size=1, max_size=3))
    assert list(nx.bfs_layers(G, sources, backend="gblas")) == list(nx.bfs_layers(G, sources))
    assert list(nx.bfs_layers(G, s, backend="gblas")) == list(nx.bfs_layers(G, s))


@given(graphs(classes=("Graph", "DiGraph")), st.data())
def test_bfs_edges_sort_neighbors(G, data):  # noqa: N803
    s = some_node(G, data)
    key = partial(sorted, key=repr)
    rkey = partial(sorted, key=repr, reverse=True)
    for order in (key, rkey, lambda it: list(it)[::-1]):
        for reverse in (False, True):
            assert list(nx.bfs_edges(G, s, reverse=reverse, sort_neighbors=order,
                                     backend="gblas")) \
                == list(nx.bfs_edges(G, s, reverse=reverse, sort_neighbors=order))


@given(graphs(), st.data())
def test_shortest_path_lengths(G, data):  # noqa: N803
    s = some_node(G, data)
    cutoff = data.draw(st.one_of(st.none(), st.integers(-1, 4), st.floats(0, 4)))
    got = nx.single_source_shortest_path_length(G, s, cutoff=cutoff, backend="gblas")
    assert got == nx.single_source_shortest_path_length(G, s, cutoff=cutoff)
    assert list(got.values()) == sorted(got.values())  # ordered by distance


@given(graphs(), st.data())
def test_bellman_ford_lengths_with_weights(G, data):  # noqa: N803
    s = some_node(G, data)
    for weight in ("weight", None, "missing"):
        got = nx.single_source_bellman_ford_path_length(G, s, weight=weight, backend="gblas")
        expected = nx.single_source_bellman_ford_path_length(G, s, weight=weight)
        assert got == expected
        assert all(type(got[v]) is type(expected[v]) for v in got)  # ints stay ints


def test_bellman_ford_negative_weights_and_cycles():
    D = nx.DiGraph()  # noqa: N806
    D.add_weighted_edges_from([("a", "b", 4), ("a", "c", 1), ("c", "b", -2), ("b", "d", 1.5)])
    assert nx.single_source_bellman_ford_path_length(D, "a", backend="gblas") \
        == {"a": 0, "b": -1.0, "c": 1.0, "d": 0.5}
    D.add_edge("d", "c", weight=-1)
    with pytest.raises(nx.NetworkXUnbounded, match="Negative cycle"):
        nx.single_source_bellman_ford_path_length(D, "a", backend="gblas")
    U = nx.Graph([("x", "y", {"weight": -1})])  # noqa: N806 - an undirected negative edge
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(U, "x", backend="gblas")


# ---------------------------------------------------------------- PageRank
@given(graphs(), st.data())
def test_pagerank(G, data):  # noqa: N803
    kw = {"weight": data.draw(st.sampled_from(["weight", None])), "tol": 1e-10,
          "alpha": data.draw(st.sampled_from([0.85, 0.5]))}
    nodes = st.sampled_from(list(G))
    for name in data.draw(st.sets(st.sampled_from(["personalization", "nstart", "dangling"]))):
        kw[name] = data.draw(st.dictionaries(nodes, st.integers(1, 5), min_size=1))
    try:
        expected = nx.pagerank(G, **kw)
    except nx.PowerIterationFailedConvergence:
        assume(False)
    got = nx.pagerank(G, backend="gblas", **kw)
    assert list(got) == list(expected)
    assert got == pytest.approx(expected, abs=1e-9)


def test_pagerank_failures_as_networkx():
    G = nx.cycle_graph(["a", "b", "c", "d"], create_using=nx.DiGraph)  # noqa: N806
    G.add_edge("a", "c")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=2, tol=1e-12, backend="gblas")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=0, backend="gblas")
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(G, personalization={"zz": 1}, backend="gblas")
    assert nx.pagerank(nx.Graph(), backend="gblas") == {}


# ---------------------------------------------------------------- components, triangles
@given(graphs(classes=("Graph", "MultiGraph")))
def test_connected_components_in_networkx_order(G):  # noqa: N803
    assert list(nx.connected_components(G, backend="gblas")) == \
        list(nx.connected_components(G))
    assert nx.number_connected_components(G, backend="gblas") == \
        nx.number_connected_components(G)


@given(graphs(classes=("Graph", "MultiGraph")), st.data())
def test_triangles(G, data):  # noqa: N803
    assert nx.triangles(G, backend="gblas") == nx.triangles(G)
    if not G.is_multigraph():
        some = data.draw(st.lists(st.sampled_from(list(G)) | st.just("not a node")))
        assert nx.triangles(G, some, backend="gblas") == nx.triangles(G, some)
        s = some_node(G, data)
        got = nx.triangles(G, s, backend="gblas")
        assert got == nx.triangles(G, s) and type(got) is int


@given(graphs(classes=("Graph", "DiGraph")))
def test_transitivity(G):  # noqa: N803
    got, expected = nx.transitivity(G, backend="gblas"), nx.transitivity(G)
    assert got == pytest.approx(expected, rel=1e-12) and type(got) is type(expected)


def test_triangles_nbunch_errors_as_networkx():
    G = nx.complete_graph(["a", "b", "c"])  # noqa: N806
    with pytest.raises(nx.NetworkXError, match="not a node or a sequence"):
        nx.triangles(G, 3.5, backend="gblas")
    with pytest.raises(nx.NetworkXError, match="not a valid node"):
        nx.triangles(G, ["a", ["unhashable"]], backend="gblas")
    with pytest.raises(nx.NetworkXNotImplemented):  # NetworkX's decorator, before dispatch
        nx.triangles(nx.DiGraph(G), backend="gblas")
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.connected_components(nx.DiGraph(G), backend="gblas"))


# ---------------------------------------------------------------- betweenness
@given(graphs(), st.booleans(), st.booleans(), st.data())
def test_betweenness(G, normalized, endpoints, data):  # noqa: N803
    k = data.draw(st.one_of(st.none(), st.integers(1, len(G))))
    seed = data.draw(st.integers(0, 99))
    got = nx.betweenness_centrality(G, k=k, normalized=normalized, endpoints=endpoints,
                                    seed=seed, backend="gblas")
    expected = nx.betweenness_centrality(G, k=k, normalized=normalized, endpoints=endpoints,
                                         seed=seed)
    assert list(got) == list(expected)
    assert got == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_betweenness_seed_as_random_instance():
    """NetworkX draws the k sources from ``seed`` (a Random after its decorator): the
    backend draws the same ones and leaves the generator in the same state."""
    G = nx.relabel_nodes(nx.karate_club_graph(), {i: f"m{i}" for i in range(34)})  # noqa: N806
    ours, theirs = random.Random(5), random.Random(5)
    got = nx.betweenness_centrality(G, k=6, seed=ours, backend="gblas")
    assert got == pytest.approx(nx.betweenness_centrality(G, k=6, seed=theirs), abs=1e-12)
    assert ours.random() == theirs.random()


# ---------------------------------------------------------------- errors as NetworkX's
def test_missing_sources_raise_networkx_errors():
    G = nx.path_graph(["a", "b", "c"])  # noqa: N806
    edges = nx.bfs_edges(G, "zz", backend="gblas")  # lazy, as NetworkX's generator
    with pytest.raises(nx.NetworkXError, match="The node zz is not in the graph"):
        next(edges)
    with pytest.raises(nx.NetworkXError, match="not in the digraph"):
        list(nx.bfs_edges(nx.DiGraph(G), "zz", backend="gblas"))
    with pytest.raises(nx.NetworkXError):
        next(nx.bfs_layers(G, ["a", "zz"], backend="gblas"))
    with pytest.raises(nx.NodeNotFound, match="Source zz is not in G"):
        nx.single_source_shortest_path_length(G, "zz", backend="gblas")
    with pytest.raises(nx.NodeNotFound, match="Source zz not in G"):
        nx.single_source_bellman_ford_path_length(G, "zz", backend="gblas")
    with pytest.raises(ValueError, match="Sample larger than population"):
        nx.betweenness_centrality(G, k=4, backend="gblas")


# ---------------------------------------------------------------- conversion and caching
def test_conversion_is_cached_and_done_once(monkeypatch):
    made: list[GblasGraph] = []

    def counting(*args, **kwargs):
        made.append(from_networkx(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(gblas.nx.interface, "from_networkx", counting)
    G = nx.les_miserables_graph()  # noqa: N806 - string labels, weighted
    pr = nx.pagerank(G, backend="gblas")
    assert pr == pytest.approx(nx.pagerank(G), abs=1e-9)
    assert nx.number_connected_components(G, backend="gblas") == 1
    tri = nx.triangles(G, backend="gblas")
    assert len(made) == 1  # the weighted conversion serves the unweighted calls too
    cached = G.__networkx_cache__["backends"]["gblas"]
    assert list(cached.values()) == made
    # the adjacency pattern was built once and read by both unweighted calls
    assert [k for k in made[0]._matrices if k[0] == "structure"] == [("structure", "cpu")]
    assert tri == nx.triangles(G)
    G.add_edge("Valjean", "new node")  # NetworkX's mutators clear the cache
    nx.pagerank(G, backend="gblas")
    assert len(made) == 2


def test_converted_graph_runs_without_converting_again():
    G = nx.DiGraph([("a", "b", {"w": 2.5}), ("b", "c", {}), ("c", "a", {"w": 1})])  # noqa: N806
    Gb = from_networkx(G, {"w": 1})  # noqa: N806
    assert isinstance(Gb, GblasGraph) and Gb.is_directed() and not Gb.is_multigraph()
    assert len(Gb) == 3 and "a" in Gb and ["x"] not in Gb and list(Gb) == ["a", "b", "c"]
    before = dispatch_counts().get("pagerank", {}).get("gblas", 0)
    assert nx.pagerank(Gb, weight="w") == pytest.approx(nx.pagerank(G, weight="w"), abs=1e-9)
    assert dispatch_counts()["pagerank"]["gblas"] == before + 1  # dispatched by its type
    assert nx.single_source_bellman_ford_path_length(Gb, "a", weight="w") == \
        nx.single_source_bellman_ford_path_length(G, "a", weight="w")
    with pytest.raises(NotImplementedError):  # an attribute it was not converted with
        nx.pagerank(Gb, weight="other")


@pytest.mark.parametrize("cls", list(CLASSES))
def test_round_trip_to_networkx(cls):
    G = CLASSES[cls]()  # noqa: N806
    G.add_nodes_from(["z", "a", ("t", 1)])
    G.add_edge("z", "a", weight=2)
    G.add_edge("a", "a", weight=-1)
    G.add_edge(("t", 1), "z")
    if G.is_multigraph():
        G.add_edge("z", "a", weight=5)
    G.graph["name"] = "g"
    back = to_networkx(from_networkx(G, {"weight": 7}, preserve_graph_attrs=True))
    assert type(back) is type(G) and list(back) == list(G) and back.graph == G.graph
    assert back.number_of_edges() == G.number_of_edges()
    want = sorted((repr(u), repr(v), d.get("weight", 7)) for u, v, d in G.edges(data=True))
    got = sorted((repr(u), repr(v), d["weight"]) for u, v, d in back.edges(data=True))
    if not G.is_directed():  # an undirected edge may come back as (v, u)
        want = sorted(tuple(sorted(e[:2])) + e[2:] for e in want)
        got = sorted(tuple(sorted(e[:2])) + e[2:] for e in got)
    assert got == want
    assert from_networkx(G).number_of_edges() == G.number_of_edges()


def test_non_numeric_weights_are_left_to_networkx():
    from fractions import Fraction

    G = nx.Graph([("a", "b", {"weight": Fraction(1, 3)}), ("b", "c", {"weight": "x"})])  # noqa: N806
    with pytest.raises(NotImplementedError, match="not all real numbers"):
        from_networkx(G, {"weight": 1})
    nx.config.backend_priority.algos = ["gblas"]
    nx.config.fallback_to_nx = True
    H = nx.Graph([("a", "b", {"weight": Fraction(1, 3)})])  # noqa: N806
    assert nx.single_source_bellman_ford_path_length(H, "a") == {"a": 0, "b": Fraction(1, 3)}


# ---------------------------------------------------------------- declining a call
def test_declined_calls_fall_back_to_networkx():
    G = nx.les_miserables_graph()  # noqa: N806
    with pytest.raises(NotImplementedError, match="not implemented by 'gblas'"):
        nx.betweenness_centrality(G, weight="weight", backend="gblas")
    before = dispatch_counts().get("betweenness_centrality", {}).get("declined", 0)
    nx.config.backend_priority.algos = ["gblas"]
    nx.config.fallback_to_nx = True
    assert nx.betweenness_centrality(G, weight="weight") == \
        pytest.approx(nx.betweenness_centrality(G, weight="weight", backend="networkx"))
    assert dispatch_counts()["betweenness_centrality"]["declined"] == before + 1
    assert nx.pagerank(G, weight=lambda u, v, d: 1) == \
        pytest.approx(nx.pagerank(G, weight=None), abs=1e-9)
    with pytest.raises(nx.NetworkXNotImplemented):  # declined here, refused by NetworkX
        nx.transitivity(nx.MultiGraph(G))


def test_backend_info():
    info = gblas.nx.get_info()
    assert info["backend_name"] == "gblas" and info["default_config"] == {"device": None}
    assert set(info["functions"]) == set(gblas.nx.interface.FUNCTIONS)
    for name in info["functions"]:
        assert hasattr(gblas.nx.backend_interface, name)
        assert name in nx.utils.backends._registered_algorithms  # a NetworkX function


def test_entry_points():
    """pyproject.toml declares both entry points; they load the backend and its info; an
    installed gblas carries the same ones."""
    declared = declared_entry_points()
    assert declared == {"networkx.backends": "gblas.nx.interface:backend_interface",
                        "networkx.backend_info": "gblas.nx.interface:get_info"}
    for group, value in declared.items():
        obj = EntryPoint(name="gblas", value=value, group=group).load()
        assert obj is {"networkx.backends": gblas.nx.backend_interface,
                       "networkx.backend_info": gblas.nx.get_info}[group]
        installed = [ep.value for ep in entry_points(group=group, name="gblas")]
        assert installed in ([], [value])  # [] only in a source tree (PYTHONPATH=.)


# ---------------------------------------------------------------- device
def test_device_config_cpu_and_errors():
    from gblas.exceptions import InvalidValue

    G = nx.karate_club_graph()  # noqa: N806
    nx.config.backends.gblas.device = "cpu"
    assert nx.number_connected_components(G, backend="gblas") == 1
    assert gblas.nx.graph_device() == "cpu"
    nx.config.backends.gblas.device = "tpu"
    with pytest.raises(InvalidValue, match="unknown device 'tpu'"):
        nx.number_connected_components(G, backend="gblas")
    if not gblas.cuda_available():
        nx.config.backends.gblas.device = "cuda"
        with pytest.raises(InvalidValue, match="no CUDA GPU is usable"):
            nx.pagerank(G, backend="gblas")


@pytest.mark.gpu
def test_device_cuda_runs_on_the_gpu():
    if not gblas.cuda_available():
        pytest.skip("GPU test: no CUDA device answers")
    G = nx.relabel_nodes(nx.karate_club_graph(), str)  # noqa: N806
    nx.config.backends.gblas.device = "cuda"
    Gb = from_networkx(G, {"weight": 1})  # noqa: N806
    assert nx.pagerank(Gb) == pytest.approx(nx.pagerank(G), abs=1e-9)
    assert nx.betweenness_centrality(Gb, k=5, seed=1) == \
        pytest.approx(nx.betweenness_centrality(G, k=5, seed=1), abs=1e-12)
    assert list(nx.bfs_edges(Gb, "0")) == list(nx.bfs_edges(G, "0"))
    assert nx.triangles(Gb) == nx.triangles(G)
    assert list(nx.connected_components(Gb)) == list(nx.connected_components(G))
    assert nx.single_source_bellman_ford_path_length(Gb, "0") == \
        nx.single_source_bellman_ford_path_length(G, "0")
    devices = {key[-1] for key in Gb._matrices}
    assert "cuda:0" in devices  # the converted matrices were moved and cached there
    assert math.isclose(nx.transitivity(Gb), nx.transitivity(G))
