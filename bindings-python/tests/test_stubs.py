"""The committed stubs (_native.pyi) describe the compiled module as it is:
the same methods, with the same parameter names and defaults."""

import ast
import inspect
import pathlib

import flatquad
from flatquad import _native

STUB = pathlib.Path(flatquad.__file__).with_name("_native.pyi")


def stub_class():
    tree = ast.parse(STUB.read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Quadtree"]
    return cls


def test_stub_and_py_typed_ship_with_the_package():
    assert STUB.is_file()
    assert STUB.with_name("py.typed").is_file()


def test_every_method_is_in_the_stub_and_back():
    cls = stub_class()
    stubbed = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    runtime = {
        name
        for name, value in vars(_native.Quadtree).items()
        if not name.startswith("__") or name in {"__len__", "__contains__", "__iter__", "__getstate__",
                                                  "__setstate__", "__reduce__", "__copy__", "__deepcopy__", "__init__"}
    }
    runtime.add("__init__")
    runtime.discard("__doc__")
    runtime.discard("__module__")
    assert stubbed == runtime


def test_parameters_match():
    cls = stub_class()
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef) or node.name.startswith("__"):
            continue
        if any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
            continue
        stub_params = [a.arg for a in node.args.args if a.arg != "self"]
        stub_defaults = [ast.literal_eval(d) for d in node.args.defaults]
        sig = inspect.signature(getattr(_native.Quadtree, node.name))
        params = [p for p in sig.parameters.values() if p.name not in ("self", "$self")]
        assert [p.name for p in params] == stub_params, node.name
        defaults = [p.default for p in params if p.default is not inspect.Parameter.empty]
        assert defaults == stub_defaults, node.name
    init = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"][0]
    sig = inspect.signature(_native.Quadtree)
    assert list(sig.parameters) == [a.arg for a in init.args.args if a.arg != "self"]
    assert [p.default for p in sig.parameters.values()][1:] == [8, 8]
