"""The shared test vectors (tests/vectors/*.json, see tests/vectors/README.md),
replayed against every structure each file lists: the same operations and
answers as in the Rust, C and Node suites, so the languages cannot drift apart."""

import json
import os
import pathlib

import pytest

import flatquad

# FLATQUAD_VECTORS=DIR replays another folder (a vector file being written, say).
VECTORS = pathlib.Path(
    os.environ.get("FLATQUAD_VECTORS", pathlib.Path(__file__).resolve().parents[2] / "tests" / "vectors")
)
FILES = sorted(VECTORS.glob("*.json"))

#: The handle that was never issued: slot 999999, generation 1.
NEVER = (1 << 32) | 999999

CLASSES = {
    "Quadtree": flatquad.Quadtree,
    "Grid": flatquad.Grid,
    "LooseGrid": flatquad.LooseGrid,
    "LooseQuadtree": flatquad.LooseQuadtree,
}

#: The exception class for each of the core's error kinds (errors.rs's table).
EXCEPTIONS = {
    "InvalidRect": ValueError,
    "InvalidPoint": ValueError,
    "InvalidHandle": KeyError,
    "DuplicateHandle": KeyError,
    "LengthMismatch": ValueError,
    "InvalidWorld": ValueError,
    "InvalidParameter": ValueError,
    "CapacityExceeded": OverflowError,
    "InvalidBytes": ValueError,
}


def cases():
    for path in FILES:
        vector = json.loads(path.read_text())
        for i, structure in enumerate(vector["structures"]):
            yield pytest.param(path, i, id=f"{path.stem}-{i}-{structure['kind']}")


def number(value):
    """A JSON number, or one of the strings "nan", "inf", "-inf"."""
    return float(value) if isinstance(value, str) else value


def numbers(values):
    return tuple(number(v) for v in values)


class Replay:
    """One structure of one vector file, and the names of its handles."""

    def __init__(self, world, structure):
        cls = CLASSES[structure["kind"]]
        self.index = cls(numbers(world), **(structure["params"] or {}))
        assert type(self.index) is cls
        # One tracker per replay, made with the structure (the `events` op).
        self.tracker = flatquad.PairTracker(self.index)
        self.handles = {"never": NEVER}  # name -> handle
        self.names = {}  # handle -> name

    def handle(self, name):
        return self.handles[name]

    def name_all(self, handles):
        """Names of the handles a query gave, sorted as strings."""
        return sorted(self.names[h] for h in handles)

    def name_pairs(self, pairs):
        """Handle pairs as sorted name pairs (a removed handle keeps its name)."""
        return sorted(sorted((self.names[a], self.names[b])) for a, b in pairs.tolist())

    def bind(self, name, handle):
        assert handle not in self.names, "a handle value was issued twice"
        self.handles[name] = handle
        self.names[handle] = name

    def run(self, op):
        """Runs one operation; returns its result in the vectors' terms."""
        kind, index = op["op"], self.index
        if kind == "insert":
            self.bind(op["as"], index.insert(numbers(op["rect"]), id=op["id"]))
        elif kind == "insert_many":
            handles = index.insert_many([numbers(r) for r in op["rects"]], ids=op.get("ids"))
            assert len(handles) == len(op["as"])
            for name, handle in zip(op["as"], handles.tolist()):
                self.bind(name, handle)
        elif kind == "remove":
            index.remove(self.handle(op["handle"]))
        elif kind == "remove_many":
            index.remove_many([self.handle(n) for n in op["handles"]])
        elif kind == "move":
            index.move(self.handle(op["handle"]), numbers(op["rect"]))
        elif kind == "move_many":
            index.move_many([self.handle(n) for n in op["handles"]], [numbers(r) for r in op["rects"]])
        elif kind == "cleanup":
            index.cleanup()
        elif kind == "clear":
            index.clear()
        elif kind == "query":
            omit = None if op["omit"] is None else self.handle(op["omit"])
            return self.name_all(index.query(numbers(op["rect"]), omit=omit))
        elif kind == "query_point":
            omit = None if op["omit"] is None else self.handle(op["omit"])
            return self.name_all(index.query_point(*numbers(op["point"]), omit=omit))
        elif kind == "overlapping":
            return self.name_all(index.overlapping(self.handle(op["handle"])))
        elif kind == "pairs":
            pairs = index.pairs().tolist()
            return sorted(sorted((self.names[a], self.names[b])) for a, b in pairs)
        elif kind == "events":
            began, ended = self.tracker.update()
            return {"began": self.name_pairs(began), "ended": self.name_pairs(ended)}
        elif kind == "len":
            return len(index)
        elif kind == "contains":
            return self.handle(op["handle"]) in index
        elif kind == "id":
            return index.id_of(self.handle(op["handle"]))
        elif kind == "rect":
            return index.rect_of(self.handle(op["handle"]))
        else:
            pytest.fail(f"an operation this runner does not know: {op}")
        return None


def expected(op):
    """The vector's expected result in the runner's terms."""
    value = op["expect"]
    if op["op"] == "rect":
        return numbers(value)
    if op["op"] == "pairs":
        return [list(p) for p in value]
    return value


def expected_events(op):
    return {"began": [list(p) for p in op["began"]], "ended": [list(p) for p in op["ended"]]}


def test_the_vectors_are_there():
    # Fails rather than skips: a suite that replays nothing must not pass.
    assert FILES, f"no shared test vectors (*.json) in {VECTORS}"


@pytest.mark.parametrize("path,which", list(cases()))
def test_vector(path, which):
    vector = json.loads(path.read_text())
    replay = Replay(vector["world"], vector["structures"][which])
    for step, op in enumerate(vector["ops"]):
        where = f"{path.name} op {step}: {json.dumps(op)}"
        if "error" in op:
            before = replay.index.to_bytes()
            with pytest.raises(EXCEPTIONS[op["error"]]) as info:
                replay.run(op)
            err = info.value
            assert getattr(err, "kind", None) == op["error"], f"{where}: raised {err!r}"
            if "index" in op:
                assert err.index == op["index"], where
            assert replay.index.to_bytes() == before, f"{where}: a call that raised changed the structure"
        else:
            result = replay.run(op)
            if "expect" in op:
                assert result == expected(op), where
            elif op["op"] == "events":
                assert result == expected_events(op), where
        replay.index._validate()
