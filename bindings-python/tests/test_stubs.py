"""The committed stubs (_native.pyi) describe the compiled module as it is:
the same classes, bases and methods, with the same parameter names and
defaults. The shared methods are stubbed once, on SpatialIndex."""

import ast
import inspect
import pathlib

import pytest

import flatquad
from flatquad import _native

STUB = pathlib.Path(flatquad.__file__).with_name("_native.pyi")
CLASSES = ["SpatialIndex", "Quadtree", "Grid", "LooseGrid", "LooseQuadtree", "BoxIndex", "Octree", "PairTracker"]
#: Classes with no base of ours.
ROOTS = {"SpatialIndex", "BoxIndex", "Octree", "PairTracker"}
DUNDERS = {"__len__", "__contains__", "__iter__", "__getstate__", "__setstate__", "__reduce__",
           "__copy__", "__deepcopy__", "__reduce_ex__"}


def stub_classes():
    tree = ast.parse(STUB.read_text())
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def functions(cls):
    return [n for n in cls.body if isinstance(n, ast.FunctionDef)]


def test_stub_and_py_typed_ship_with_the_package():
    assert STUB.is_file()
    assert STUB.with_name("py.typed").is_file()


def test_the_classes_and_their_bases():
    classes = stub_classes()
    assert sorted(classes) == sorted(CLASSES)
    assert sorted(flatquad.__all__) == sorted(CLASSES + ["Elements", "Nodes", "RayHit", "__version__", "join_bounds"])
    # The stub's own list names every public name of the extension module.
    stub_all = next(
        ast.literal_eval(n.value)
        for n in ast.parse(STUB.read_text()).body
        if isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in n.targets)
    )
    public = [k for k in dir(_native) if not k.startswith("_")] + ["__version__"]
    assert sorted(stub_all) == sorted(public)
    for name, node in classes.items():
        runtime = getattr(_native, name)
        assert getattr(flatquad, name) is runtime
        bases = [b.id for b in node.bases]
        assert bases == ([] if name in ROOTS else ["SpatialIndex"]), name
        assert runtime.__bases__ == ((object,) if name in ROOTS else (_native.SpatialIndex,))


@pytest.mark.parametrize("name", CLASSES)
def test_every_method_is_in_the_stub_and_back(name):
    stubbed = {n.name for n in functions(stub_classes()[name])}
    runtime_class = getattr(_native, name)
    runtime = {
        attr
        for attr in vars(runtime_class)
        if (not attr.startswith("__") or attr in DUNDERS) and attr not in ("__doc__", "__module__")
    }
    if name != "SpatialIndex":
        runtime.add("__init__")  # the subclasses construct themselves; nothing else
    if name == "Octree":
        runtime.discard("__new__")
    assert stubbed == runtime


@pytest.mark.parametrize("name", CLASSES)
def test_parameters_match(name):
    cls = stub_classes()[name]
    runtime_class = getattr(_native, name)
    for node in functions(cls):
        if node.name.startswith("__"):
            continue
        if any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
            assert isinstance(vars(runtime_class)[node.name], type(_native.SpatialIndex.bounds)), node.name
            continue
        if any(isinstance(d, ast.Attribute) and d.attr == "setter" for d in node.decorator_list):
            # A property's setter (test_margin.py sets it on every class).
            assert isinstance(vars(runtime_class)[node.name], type(_native.SpatialIndex.bounds)), node.name
            continue
        stub_params = [a.arg for a in node.args.args + node.args.kwonlyargs if a.arg not in ("self", "cls")]
        stub_defaults = [ast.literal_eval(d) for d in node.args.defaults + node.args.kw_defaults if d is not None]
        sig = inspect.signature(getattr(runtime_class, node.name))
        params = [p for p in sig.parameters.values() if p.name not in ("self", "$self", "cls", "$cls")]
        assert [p.name for p in params] == stub_params, node.name
        defaults = [p.default for p in params if p.default is not inspect.Parameter.empty]
        assert defaults == stub_defaults, node.name
    inits = [n for n in functions(cls) if n.name == "__init__"]
    if name == "SpatialIndex":
        assert not inits  # no constructor of its own
        return
    (init,) = inits
    sig = inspect.signature(runtime_class)
    assert list(sig.parameters) == [a.arg for a in init.args.args + init.args.kwonlyargs if a.arg != "self"]
    assert [p.default for p in sig.parameters.values()][1:] == [
        ast.literal_eval(d) for d in init.args.defaults + init.args.kw_defaults if d is not None
    ]
