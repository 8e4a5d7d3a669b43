//! Replays the shared test vectors (`tests/vectors/*.json`) on every structure
//! they list, as the C, Python and Node suites do, and checks that the
//! committed files are exactly what `examples/make_vectors.rs` writes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use flatquad::{
    AnyIndex, Error, Grid, Handle, LooseGrid, LooseQuadtree, PairTracker, Quadtree, Query, Rect,
    SpatialIndex,
};
use serde_json::Value;

#[allow(dead_code)]
#[path = "../examples/make_vectors.rs"]
mod make_vectors;

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn num(v: &Value) -> f32 {
    match v {
        Value::String(s) if s == "nan" => f32::NAN,
        Value::String(s) if s == "inf" => f32::INFINITY,
        Value::String(s) if s == "-inf" => f32::NEG_INFINITY,
        v => v.as_f64().expect("a number") as f32,
    }
}

fn rect(v: &Value) -> Rect {
    let a = v.as_array().expect("a rectangle");
    Rect::new(num(&a[0]), num(&a[1]), num(&a[2]), num(&a[3]))
}

fn rects(v: &Value) -> Vec<Rect> {
    v.as_array().expect("rectangles").iter().map(rect).collect()
}

fn build(kind: &str, world: Rect, params: &Value) -> AnyIndex {
    let p = |name: &str| params[name].as_u64().expect(name) as u32;
    let index: Result<AnyIndex, Error> = match (kind, params.is_null()) {
        ("Quadtree", true) => Quadtree::for_world(world).map(Into::into),
        ("Quadtree", false) => {
            Quadtree::new(world, p("max_elements"), p("max_depth")).map(Into::into)
        }
        ("Grid", true) => Grid::for_world(world).map(Into::into),
        ("Grid", false) => Grid::new(world, p("columns"), p("rows")).map(Into::into),
        ("LooseGrid", true) => LooseGrid::for_world(world).map(Into::into),
        ("LooseGrid", false) => LooseGrid::new(
            world,
            p("columns"),
            p("rows"),
            p("tight_columns"),
            p("tight_rows"),
        )
        .map(Into::into),
        ("LooseQuadtree", true) => LooseQuadtree::for_world(world).map(Into::into),
        ("LooseQuadtree", false) => {
            LooseQuadtree::new(world, p("max_elements"), p("max_depth")).map(Into::into)
        }
        _ => panic!("unknown structure {kind}"),
    };
    index.expect("the vector's structure")
}

/// Names of handles, both ways.
struct Names {
    by_name: BTreeMap<String, Handle>,
    by_handle: BTreeMap<Handle, String>,
}

impl Names {
    fn new() -> Names {
        let never = Handle::from_raw((1 << 32) | 999_999);
        Names {
            by_name: [("never".to_string(), never)].into(),
            by_handle: BTreeMap::new(),
        }
    }
    fn bind(&mut self, name: &str, handle: Handle) {
        assert!(
            self.by_name.insert(name.to_string(), handle).is_none(),
            "{name} bound twice"
        );
        self.by_handle.insert(handle, name.to_string());
    }
    fn get(&self, v: &Value) -> Handle {
        self.by_name[v.as_str().expect("a handle name")]
    }
    fn opt(&self, v: &Value) -> Option<Handle> {
        (!v.is_null()).then(|| self.get(v))
    }
    fn list(&self, v: &Value) -> Vec<Handle> {
        v.as_array()
            .expect("names")
            .iter()
            .map(|n| self.get(n))
            .collect()
    }
    fn sorted(&self, handles: &[Handle]) -> Vec<String> {
        let mut names: Vec<String> = handles.iter().map(|h| self.by_handle[h].clone()).collect();
        names.sort();
        names
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("names")
        .iter()
        .map(|n| n.as_str().expect("a name").to_string())
        .collect()
}

/// Runs one op; `Err` carries the error the call gave.
fn step(
    index: &mut AnyIndex,
    names: &mut Names,
    tracker: &mut PairTracker,
    op: &Value,
    at: &str,
) -> Result<(), Error> {
    let expect = &op["expect"];
    match op["op"].as_str().expect("op") {
        "insert" => {
            let h = index.insert(rect(&op["rect"]), op["id"].as_u64().unwrap() as u32)?;
            names.bind(op["as"].as_str().unwrap(), h);
        }
        "insert_many" => {
            let ids: Vec<u32> = op["ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u32)
                .collect();
            let mut handles = Vec::new();
            index.insert_many(&rects(&op["rects"]), &ids, &mut handles)?;
            for (name, h) in strings(&op["as"]).iter().zip(handles) {
                names.bind(name, h);
            }
        }
        "remove" => index.remove(names.get(&op["handle"]))?,
        "remove_many" => index.remove_many(&names.list(&op["handles"]))?,
        "move" => index.update(names.get(&op["handle"]), rect(&op["rect"]))?,
        "move_many" => index.update_many(&names.list(&op["handles"]), &rects(&op["rects"]))?,
        "cleanup" => index.cleanup(),
        "clear" => index.clear(),
        "query" => {
            let mut hits = Vec::new();
            index.query(
                &Query {
                    omit: names.opt(&op["omit"]),
                    ..Query::rect(rect(&op["rect"]))
                },
                &mut hits,
            )?;
            assert_eq!(names.sorted(&hits), strings(expect), "{at}");
        }
        "query_point" => {
            let p = op["point"].as_array().unwrap();
            let mut hits = Vec::new();
            index.query(
                &Query {
                    omit: names.opt(&op["omit"]),
                    ..Query::point([num(&p[0]), num(&p[1])])
                },
                &mut hits,
            )?;
            assert_eq!(names.sorted(&hits), strings(expect), "{at}");
        }
        "overlapping" => {
            let mut hits = Vec::new();
            index.query(&Query::element(names.get(&op["handle"])), &mut hits)?;
            assert_eq!(names.sorted(&hits), strings(expect), "{at}");
        }
        "pairs" => {
            let mut pairs = Vec::new();
            index.pairs(&mut pairs);
            let mut found: Vec<Vec<String>> =
                pairs.iter().map(|&(a, b)| names.sorted(&[a, b])).collect();
            found.sort();
            let wanted: Vec<Vec<String>> = expect.as_array().unwrap().iter().map(strings).collect();
            assert_eq!(found, wanted, "{at}");
        }
        "events" => {
            let (began, ended) = tracker.update(index);
            for (events, wanted) in [(began, &op["began"]), (ended, &op["ended"])] {
                let mut found: Vec<Vec<String>> =
                    events.iter().map(|&[a, b]| names.sorted(&[a, b])).collect();
                found.sort();
                let wanted: Vec<Vec<String>> =
                    wanted.as_array().unwrap().iter().map(strings).collect();
                assert_eq!(found, wanted, "{at}");
            }
        }
        "len" => assert_eq!(index.len() as u64, expect.as_u64().unwrap(), "{at}"),
        "contains" => assert_eq!(
            index.contains(names.get(&op["handle"])),
            expect.as_bool().unwrap(),
            "{at}"
        ),
        "id" => assert_eq!(
            index.id(names.get(&op["handle"]))? as u64,
            expect.as_u64().unwrap(),
            "{at}"
        ),
        "rect" => {
            let r = index.rect(names.get(&op["handle"]))?;
            assert_eq!(r, rect(expect), "{at}");
        }
        other => panic!("{at}: unknown op {other}"),
    }
    Ok(())
}

fn replay(file: &str, vector: &Value) {
    let world = rect(&vector["world"]);
    for structure in vector["structures"].as_array().expect("structures") {
        let kind = structure["kind"].as_str().unwrap();
        let mut index = build(kind, world, &structure["params"]);
        let mut names = Names::new();
        let mut tracker = PairTracker::new();
        for (i, op) in vector["ops"].as_array().unwrap().iter().enumerate() {
            let at = format!("{file} op {i} on {kind} {}: {op}", structure["params"]);
            let before = index.to_bytes();
            match (
                step(&mut index, &mut names, &mut tracker, op, &at),
                op.get("error"),
            ) {
                (Ok(()), None) => {}
                (Err(e), Some(kind)) => {
                    assert_eq!(e.kind().name(), kind.as_str().unwrap(), "{at}: {e}");
                    assert_eq!(
                        e.batch_index().map(|i| i as u64),
                        op.get("index").and_then(Value::as_u64),
                        "{at}: {e}"
                    );
                    assert!(
                        index.to_bytes() == before,
                        "{at}: the error changed the structure"
                    );
                }
                (Ok(()), Some(kind)) => panic!("{at}: expected {kind}, the call succeeded"),
                (Err(e), None) => panic!("{at}: unexpected error {e}"),
            }
            index
                .validate()
                .unwrap_or_else(|e| panic!("{at}: invalid after the op: {e}"));
        }
    }
}

#[test]
fn every_vector_on_every_structure() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .expect("tests/vectors")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "vector files missing: {files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let vector: Value = serde_json::from_str(&text).unwrap();
        replay(&path.file_name().unwrap().to_string_lossy(), &vector);
    }
}

#[test]
fn committed_vectors_are_what_the_generator_writes() {
    for (name, value) in make_vectors::vectors() {
        let path = vectors_dir().join(format!("{name}.json"));
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == make_vectors::to_text(&value),
            "{} differs from what `cargo run -p flatquad --example make_vectors` writes: run it and commit",
            path.display()
        );
    }
}
