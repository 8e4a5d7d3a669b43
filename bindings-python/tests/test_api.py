"""The Python surface: types returned, inputs accepted, the container protocol,
for every structure; the classes and their constructors."""

import math
import re
import weakref

import numpy as np
import pytest

import flatquad
from conftest import STRUCTURES, placeholder


def test_basics(make_index):
    tree = make_index((0, 0, 100, 50))
    assert tree.bounds == (0.0, 0.0, 100.0, 50.0)
    assert tree.kind == make_index.__name__ and type(tree) is make_index
    assert isinstance(tree, flatquad.SpatialIndex)
    assert re.fullmatch(rf"<flatquad\.{tree.kind} bounds=\(0\.0, 0\.0, 100\.0, 50\.0\)( \w+=\d+)+ len=0>", repr(tree))
    a = tree.insert((10, 10, 20, 20))
    b = tree.insert([20, 20, 30, 30], id=7)
    c = tree.insert(np.array([50, 5, 50, 5], dtype=np.float64))  # a point
    assert all(type(h) is int and 0 < h < 2**53 for h in (a, b, c))
    assert len({a, b, c}) == 3
    assert len(tree) == 3 and bool(tree)
    assert a in tree and 12345 not in tree and "x" not in tree and -1 not in tree and None not in tree
    assert sorted(tree) == sorted([a, b, c])
    assert (tree.id_of(a), tree.id_of(b)) == (0, 7)
    assert tree.rect_of(c) == (50.0, 5.0, 50.0, 5.0)
    assert tree.query((0, 0, 15, 15)) == [a]
    assert sorted(tree.query((20, 20, 20, 20))) == sorted([a, b])  # touching counts
    assert tree.query((20, 20, 20, 20), omit=a) == [b]
    assert tree.query_point(50, 5) == [c]
    assert tree.query_point(np.float32(20), 20, omit=b) == [a]
    assert tree.query((0.5, 0.5, 1, 1)) == []
    pairs = tree.pairs()
    assert pairs.dtype == np.int64 and pairs.shape == (1, 2) and sorted(pairs[0].tolist()) == [a, b]
    tree.move(b, (40, 40, 45, 45))
    assert tree.pairs().shape == (0, 2)
    tree.remove(a)
    assert a not in tree and len(tree) == 2
    tree.cleanup()
    tree.clear()
    assert len(tree) == 0 and not tree and list(tree) == []
    assert "len=0" in repr(tree)
    assert weakref.ref(tree)() is tree


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", flatquad.__version__)


def test_float32_bounds_and_storage(make_index):
    tree = make_index((0.1, 0.2, 10, 10.3))
    assert tree.bounds == tuple(float(np.float32(v)) for v in (0.1, 0.2, 10, 10.3))
    h = tree.insert((0.1, 0.2, 0.3, 0.4))
    assert tree.rect_of(h) == tuple(float(np.float32(v)) for v in (0.1, 0.2, 0.3, 0.4))


def test_handles_and_ids_are_exact_in_float64_and_int64(make_index):
    tree = make_index((0, 0, 10, 10))
    handles = tree.insert_many(np.zeros((1000, 4), np.float32))
    assert (handles.astype(np.float64).astype(np.int64) == handles).all()


@pytest.mark.parametrize(
    "rects",
    [
        [(0, 0, 1, 1), (2, 2, 3, 3)],
        ((0, 0, 1, 1), (2, 2, 3, 3)),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float32),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float64),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.int32),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float16),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=">f4"),  # big-endian
        np.asfortranarray(np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float32)),
        np.array([[0, 0, 1, 1, 9], [2, 2, 3, 3, 9]], dtype=np.float32)[:, :4],  # strided
        np.array([[0, 0, 1, 1], [9, 9, 9, 9], [2, 2, 3, 3]], dtype=np.float32)[::2],
    ],
    ids=["list", "tuple", "f32", "f64", "i32", "f16", "big-endian", "fortran", "strided-cols", "strided-rows"],
)
def test_rect_array_forms(make_index, rects):
    tree = make_index((0, 0, 10, 10))
    handles = tree.insert_many(rects)
    assert handles.dtype == np.int64 and handles.shape == (2,)
    assert [tree.rect_of(h) for h in handles] == [(0.0, 0.0, 1.0, 1.0), (2.0, 2.0, 3.0, 3.0)]
    tree.move_many(handles, rects)
    offsets, hits = tree.query_many(rects)
    assert offsets.tolist() == [0, 1, 2] and hits.tolist() == handles.tolist()


def test_float32_input_is_not_modified_or_kept(make_index):
    rects = np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float32)
    before = rects.copy()
    tree = make_index((0, 0, 10, 10))
    handles = tree.insert_many(rects)
    rects[:] = 5  # the tree copied the values in: changing the array later is fine
    assert tree.rect_of(handles[0]) == (0.0, 0.0, 1.0, 1.0)
    assert before.flags.writeable
    readonly = before.copy()
    readonly.flags.writeable = False
    tree.move_many(handles, readonly)  # read-only arrays are accepted


@pytest.mark.parametrize(
    "make",
    [
        lambda h: h,
        lambda h: h.tolist(),
        lambda h: h.astype(np.uint64),
        lambda h: h.astype(">i8"),
        lambda h: np.repeat(h, 2)[::2],
        lambda h: tuple(h.tolist()),
    ],
    ids=["int64", "list", "uint64", "big-endian", "strided", "tuple"],
)
def test_handle_array_forms(make_index, make):
    tree = make_index((0, 0, 10, 10))
    handles = tree.insert_many([(0, 0, 1, 1), (2, 2, 3, 3)])
    tree.move_many(make(handles), [(5, 5, 6, 6), (7, 7, 8, 8)])
    assert tree.rect_of(handles[1]) == (7.0, 7.0, 8.0, 8.0)
    offsets, hits = tree.query_many([(5, 5, 6, 6), (7, 7, 8, 8)], omit=make(handles))
    assert hits.tolist() == []
    tree.remove_many(make(handles))
    assert len(tree) == 0


@pytest.mark.parametrize(
    "ids,expect",
    [
        (None, [0, 0, 0]),
        (5, [5, 5, 5]),
        (np.uint8(3), [3, 3, 3]),
        ([1, 2, 3], [1, 2, 3]),
        (np.array([1, 2, 2**32 - 1], dtype=np.uint32), [1, 2, 2**32 - 1]),
        (np.array([1, 2, 3], dtype=np.int8), [1, 2, 3]),
        (np.array([4, 0, 5, 0, 6], dtype=np.uint32)[::2], [4, 5, 6]),
        (np.array([1, 2, 2**32 - 1], dtype=np.uint64), [1, 2, 2**32 - 1]),
    ],
)
def test_id_forms(make_index, ids, expect):
    tree = make_index((0, 0, 10, 10))
    handles = tree.insert_many(np.zeros((3, 4)), ids=ids)
    assert [tree.id_of(h) for h in handles] == expect
    elements = tree.elements()
    assert sorted(elements.ids.tolist()) == sorted(expect)


def test_empty_batches(make_index):
    tree = make_index((0, 0, 10, 10))
    for empty in ([], np.zeros((0, 4), np.float32), np.zeros((0, 4)), np.array([])):
        handles = tree.insert_many(empty)
        assert handles.dtype == np.int64 and handles.shape == (0,)
        tree.move_many([], empty)
        tree.remove_many([])
        offsets, hits = tree.query_many(empty)
        assert offsets.tolist() == [0] and hits.shape == (0,)
    assert tree.pairs().shape == (0, 2)
    e = tree.elements()
    assert e.handles.shape == (0,) and e.rects.shape == (0, 4) and e.ids.shape == (0,)
    assert len(tree) == 0


def test_nodes_and_stats_of_an_empty_quadtree():
    tree = flatquad.Quadtree((0, 0, 10, 20))
    nodes = tree.nodes()
    assert nodes.rects.tolist() == [[0.0, 0.0, 10.0, 20.0]]
    assert nodes.is_leaf.tolist() == [True] and nodes.counts.tolist() == [0]
    indices, rects, depths, is_leaf, counts = nodes  # a plain tuple too
    assert set(tree.stats()) == {
        "elements",
        "nodes",
        "leaves",
        "empty_leaves",
        "max_depth_reached",
        "element_links",
        "bytes",
    }


@pytest.mark.parametrize(
    "make",
    [
        lambda: flatquad.Quadtree(bounds=(0, 0, 10, 10), max_elements=2, max_depth=3),
        lambda: flatquad.Grid(bounds=(0, 0, 10, 10), columns=4, rows=2),
        lambda: flatquad.Grid(bounds=(0, 0, 10, 10), cell_size=2.5),
        lambda: flatquad.Grid(bounds=(0, 0, 10, 10), cell_size=(2.5, 5)),
        lambda: flatquad.LooseGrid(bounds=(0, 0, 10, 10), columns=4, rows=4, tight_columns=2, tight_rows=1),
        lambda: flatquad.LooseGrid(bounds=(0, 0, 10, 10), cell_size=2.5),
    ],
    ids=["Quadtree", "Grid-counts", "Grid-size", "Grid-size-pair", "LooseGrid-counts", "LooseGrid-size"],
)
def test_keyword_arguments(make):
    tree = make()
    h = tree.insert(rect=(1, 1, 2, 2), id=3)
    assert tree.query(rect=(0, 0, 5, 5), omit=None) == [h]
    assert tree.query_point(x=1, y=1, omit=h) == []
    handles = tree.insert_many(rects=[(3, 3, 4, 4)], ids=[9])
    tree.move_many(handles=handles, rects=[(4, 4, 5, 5)])
    tree.query_many(rects=[(0, 0, 9, 9)], omit=[h])
    tree.remove_many(handles=handles)
    tree.traverse(branch=None, leaf=None)


@pytest.mark.parametrize("cls", STRUCTURES, ids=lambda cls: cls.__name__)
def test_docstrings(cls):
    assert "bounds : (x1, y1, x2, y2)" in cls.__doc__
    for name in ["insert", "insert_many", "move_many", "remove_many", "query", "query_point",
                 "query_many", "pairs", "traverse", "nodes", "stats", "to_bytes", "from_bytes"]:
        assert getattr(cls, name).__doc__, name
        assert name not in vars(cls) and name in vars(flatquad.SpatialIndex), "written once, on the base class"
    assert "rects, ids=None)" in cls.insert_many.__text_signature__
    for name in {flatquad.Quadtree: ["max_elements", "max_depth"],
                 flatquad.LooseQuadtree: ["max_elements", "max_depth", "max_extent"],
                 flatquad.Grid: ["columns", "rows", "cell_width", "cell_height"],
                 flatquad.LooseGrid: ["columns", "rows", "tight_columns", "tight_rows"]}[cls]:
        assert getattr(cls, name).__doc__, name


def test_float32_float64_and_int64_inputs_are_read_in_place():
    # numpy reports its allocations to tracemalloc: a batch call on arrays in the
    # core's layout allocates no numpy copy of them; a float64 array is read in
    # place too and rounded by the core (no float32 copy made through numpy).
    import tracemalloc

    n = 200_000
    xy = np.random.default_rng(0).uniform(0, 1000, (n, 2)).astype(np.float32)
    rects32 = np.hstack([xy, xy + 1])
    tree = flatquad.Quadtree((0, 0, 1000, 1000))
    handles = tree.insert_many(rects32)
    ids = np.zeros(n, np.uint32)

    def peak(call):
        tracemalloc.start()
        try:
            call()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    copy_size = rects32.nbytes
    assert peak(lambda: tree.move_many(handles, rects32)) < copy_size // 10
    assert peak(lambda: tree.remove_many(handles)) < copy_size // 10
    assert peak(lambda: tree.insert_many(rects32, ids=ids)) < copy_size // 10 + 8 * n + 4096
    live, rects64 = tree.elements().handles, rects32.astype(np.float64)
    assert peak(lambda: tree.move_many(live, rects64)) < copy_size // 10
    assert peak(lambda: tree.query_bulk(rects64)) < copy_size // 10 + 16 * n + 4096  # the (2, k) result
    fortran = np.asfortranarray(rects64)
    assert peak(lambda: tree.move_many(live, fortran)) >= 2 * copy_size  # not C-ordered: one float64 copy


@pytest.mark.parametrize("cls", [flatquad.SpatialIndex, *STRUCTURES], ids=lambda cls: cls.__name__)
def test_docstring_examples(cls):
    import doctest

    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(cls, cls.__name__, globs={"flatquad": flatquad, "np": np})
    assert sum(len(t.examples) for t in tests) > 0
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_omit_zero_omits_nothing(make_index):
    # 0 is never a handle: as `omit` it leaves nothing out, as in C and Node.
    tree = make_index((0, 0, 10, 10))
    a = tree.insert((1, 1, 2, 2))
    b = tree.insert((2, 2, 3, 3))
    assert sorted(tree.query((0, 0, 5, 5), omit=0)) == sorted(tree.query((0, 0, 5, 5))) == sorted([a, b])
    assert sorted(tree.query_point(2, 2, omit=0)) == sorted([a, b])
    assert tree.query_point(2, 2, omit=np.int64(0)) == tree.query_point(2, 2, omit=None)
    assert tree.query((0, 0, 5, 5), omit=a) == [b]
    with pytest.raises(KeyError, match="handle 0 names no element"):
        tree.remove(0)  # elsewhere 0 is a handle like any other: never issued
    with pytest.raises(KeyError):
        tree.query((0, 0, 5, 5), omit=-1)


def test_classes():
    for cls in STRUCTURES:
        assert issubclass(cls, flatquad.SpatialIndex) and cls.__module__ == "flatquad"
    with pytest.raises(TypeError):
        flatquad.SpatialIndex()  # the base class only serves the others
    assert flatquad.Quadtree((0, 0, 1, 1)).kind == "Quadtree"
    assert flatquad.Grid((0, 0, 1, 1)).kind == "Grid"
    assert flatquad.LooseGrid((0, 0, 1, 1)).kind == "LooseGrid"


def test_quadtree_parameters():
    tree = flatquad.Quadtree((-10, 0, 100, 50))
    assert (tree.bounds, tree.max_elements, tree.max_depth) == ((-10.0, 0.0, 100.0, 50.0), 8, 8)
    assert repr(tree) == "<flatquad.Quadtree bounds=(-10.0, 0.0, 100.0, 50.0) max_elements=8 max_depth=8 len=0>"
    tree = flatquad.Quadtree((0, 0, 1, 1), 3, max_depth=5)
    assert (tree.max_elements, tree.max_depth) == (3, 5)
    assert "max_elements=3 max_depth=5" in repr(tree)


def test_grid_parameters_have_their_types():
    # Every way to construct gives ints and floats (values: see the next test).
    for grid in [
        flatquad.Grid((0, 0, 100, 50)),
        flatquad.Grid((0, 0, 100, 50), columns=4, rows=3),
        flatquad.Grid((0, 0, 100, 50), 4, 3),
        flatquad.Grid((0, 0, 100, 50), cell_size=16),
        flatquad.Grid((0, 0, 100, 50), cell_size=np.float32(16)),
        flatquad.Grid((0, 0, 100, 50), cell_size=(16, 10)),
        flatquad.Grid((0, 0, 100, 50), None, None, None),
    ]:
        assert all(type(v) is int and v >= 1 for v in (grid.columns, grid.rows))
        assert all(type(v) is float and v > 0 for v in (grid.cell_width, grid.cell_height))
        assert f"columns={grid.columns} rows={grid.rows} len=0>" in repr(grid)
    for grid in [
        flatquad.LooseGrid((0, 0, 100, 50)),
        flatquad.LooseGrid((0, 0, 100, 50), columns=8, rows=6, tight_columns=4, tight_rows=3),
        flatquad.LooseGrid((0, 0, 100, 50), 8, 6, 4, 3),
        flatquad.LooseGrid((0, 0, 100, 50), cell_size=12.5),
    ]:
        values = (grid.columns, grid.rows, grid.tight_columns, grid.tight_rows)
        assert all(type(v) is int and v >= 1 for v in values)
        assert "columns={} rows={} tight_columns={} tight_rows={} len=0>".format(*values) in repr(grid)


@pytest.mark.skipif(placeholder(flatquad.Grid), reason="the core's Grid is a placeholder")
def test_grid_parameters_round_trip():
    grid = flatquad.Grid((0, 0, 100, 50), columns=4, rows=5)
    assert (grid.columns, grid.rows, grid.cell_width, grid.cell_height) == (4, 5, 25.0, 10.0)
    grid = flatquad.Grid((0, 0, 100, 50), cell_size=16)  # cells of at most 16, stretched to fit
    assert (grid.columns, grid.rows, grid.cell_height) == (7, 4, 12.5)
    grid = flatquad.Grid((0, 0, 100, 50), cell_size=(50, 25))
    assert (grid.columns, grid.rows) == (2, 2)
    for bad, name in [(dict(columns=0, rows=4), "columns = 0"), (dict(columns=4, rows=2**17), "rows"),
                      (dict(cell_size=0), "cell_width"), (dict(cell_size=(1, math.nan)), "cell_height"),
                      (dict(cell_size=-2), "cell_width")]:
        with pytest.raises(ValueError, match=f"invalid parameter {re.escape(name)}") as info:
            flatquad.Grid((0, 0, 100, 50), **bad)
        assert info.value.kind == "InvalidParameter"


@pytest.mark.skipif(placeholder(flatquad.LooseGrid), reason="the core's LooseGrid is a placeholder")
def test_loose_grid_parameters_round_trip():
    grid = flatquad.LooseGrid((0, 0, 100, 50), 8, 6, 4, 3)
    assert (grid.columns, grid.rows, grid.tight_columns, grid.tight_rows) == (8, 6, 4, 3)
    assert flatquad.LooseGrid((0, 0, 100, 50), cell_size=25).columns == 4
    for bad, name in [((0, 6, 1, 1), "columns = 0"), ((8, 6, 9, 3), "tight_columns = 9"),
                      ((8, 6, 4, 0), "tight_rows = 0")]:
        with pytest.raises(ValueError, match=f"invalid parameter {re.escape(name)}"):
            flatquad.LooseGrid((0, 0, 100, 50), *bad)
    for side in (0, -1, math.inf, math.nan):
        with pytest.raises(ValueError, match="invalid parameter cell_size"):
            flatquad.LooseGrid((0, 0, 100, 50), cell_size=side)


@pytest.mark.parametrize(
    "make,exception,pattern",
    [
        (lambda: flatquad.Grid((0, 0, 1, 1), columns=4), ValueError, r"Grid takes columns and rows \(both\), or cell_size"),
        (lambda: flatquad.Grid((0, 0, 1, 1), rows=4), ValueError, r"not a mix"),
        (lambda: flatquad.Grid((0, 0, 1, 1), columns=4, rows=4, cell_size=1), ValueError, r"not a mix"),
        (lambda: flatquad.Grid((0, 0, 1, 1), columns=-1, rows=4), ValueError, r"invalid parameter columns = -1: expected an unsigned 32-bit integer"),
        (lambda: flatquad.Grid((0, 0, 1, 1), columns=4, rows=2**32), ValueError, r"invalid parameter rows = 4294967296"),
        (lambda: flatquad.Grid((0, 0, 1, 1), cell_size="big"), TypeError, r"cell_size must be a sequence of 2 numbers \(width, height\), or one number, got str"),
        (lambda: flatquad.Grid((0, 0, 1, 1), cell_size=(1, 2, 3)), ValueError, r"cell_size must have 2 numbers \(width, height\), or one number, got 3"),
        (lambda: flatquad.Grid((0, 0, 1, 1), columns=2.0, rows=2), TypeError, r"columns"),
        (lambda: flatquad.LooseGrid((0, 0, 1, 1), columns=4, rows=4), ValueError, r"LooseGrid takes columns, rows, tight_columns and tight_rows \(all four\)"),
        (lambda: flatquad.LooseGrid((0, 0, 1, 1), 4, 4, 2, 2, cell_size=1), ValueError, r"not a mix"),
        (lambda: flatquad.LooseGrid((0, 0, 1, 1), 4, 4, 2, -2), ValueError, r"invalid parameter tight_rows = -2"),
        (lambda: flatquad.LooseGrid((0, 0, 1, 1), cell_size=(1, 1)), TypeError, r"cell_size must be a real number, got tuple"),
        (lambda: flatquad.Quadtree((0, 0, 1, 1), max_depth=-1), ValueError, r"invalid parameter max_depth = -1"),
    ],
)
def test_bad_parameters_in_the_binding(make, exception, pattern):
    with pytest.raises(exception, match=pattern) as info:
        make()
    if "invalid parameter" in pattern or "not a mix" in pattern or "takes" in pattern:
        assert info.value.kind == "InvalidParameter"


def test_float64_input_is_rounded_once_to_nearest_float32(make_index):
    # The core's one rule (Rect::from_f64): each coordinate to the nearest
    # float32, the same for single values, batches and the world.
    values = [0.1, 1 / 3, 2 / 3, 16777217.0, 0.30000001192092896 + 1e-17]
    rect = (values[0], values[1], values[3], values[3])
    tree = make_index((0.1, 1 / 3, 2 / 3 + 1e6, 16777217.0))
    assert tree.bounds == tuple(float(np.float32(v)) for v in (0.1, 1 / 3, 2 / 3 + 1e6, 16777217.0))
    a = tree.insert(rect)
    (b,) = tree.insert_many(np.array([rect], dtype=np.float64))
    assert tree.rect_of(a) == tree.rect_of(b) == tuple(float(np.float32(v)) for v in rect)
    x = values[4]
    tree.move(a, (x, x, x, x))
    assert tree.rect_of(a) == (float(np.float32(x)),) * 4
    assert a in tree.query_point(x, x) and a in tree.query((x, x, x, x))
    with pytest.raises(ValueError, match="invalid rectangle"):
        tree.insert((0, 0, 1e39, 1))  # rounds to inf
