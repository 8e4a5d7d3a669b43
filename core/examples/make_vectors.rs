//! Writes the shared test vectors (`tests/vectors/*.json`, format in that
//! folder's README): operation sequences whose expected results come from a
//! brute-force model written here, independent of every structure. The Rust,
//! C, Python and Node suites replay them on every structure.
//!
//! `cargo run -p flatquad --example make_vectors [DIR]` (default: the repo's
//! `tests/vectors`). Deterministic: `core/tests/vectors.rs` checks that the
//! committed files are what this writes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::{json, Value};

/// The workload's LCG, so the vectors never change with a dependency.
struct Lcg(u32);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 * (1.0 / 16_777_216.0)
    }
    fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 8) as u64 * n as u64) >> 24) as u32
    }
    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
}

type Rect = [f32; 4];

fn num(v: f32) -> Value {
    if v.is_nan() {
        json!("nan")
    } else if v == f32::INFINITY {
        json!("inf")
    } else if v == f32::NEG_INFINITY {
        json!("-inf")
    } else {
        json!(v as f64)
    }
}

fn rect_json(r: &Rect) -> Value {
    Value::Array(r.iter().map(|&v| num(v)).collect())
}

fn good(r: &Rect) -> bool {
    r.iter().all(|v| v.is_finite()) && r[0] <= r[2] && r[1] <= r[3]
}

fn meets(a: &Rect, b: &Rect) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

/// The model: every handle ever issued, by name, with its element while live.
#[derive(Default)]
struct Model {
    live: BTreeMap<String, (Rect, u32)>,
    issued: Vec<String>,
    ops: Vec<Value>,
    /// The pairs at the last `events` op: what the replay's tracker saw.
    tracked: BTreeSet<[String; 2]>,
}

impl Model {
    fn fresh_name(&self) -> String {
        format!("h{}", self.issued.len())
    }

    fn sorted(mut names: Vec<String>) -> Vec<String> {
        names.sort();
        names
    }

    fn push(&mut self, op: Value) {
        self.ops.push(op);
    }

    fn insert(&mut self, rect: Rect, id: u32) {
        let name = self.fresh_name();
        if good(&rect) {
            self.issued.push(name.clone());
            self.live.insert(name.clone(), (rect, id));
            self.push(json!({"op": "insert", "rect": rect_json(&rect), "id": id, "as": name}));
        } else {
            self.push(json!({"op": "insert", "rect": rect_json(&rect), "id": id, "as": name, "error": "InvalidRect"}));
        }
    }

    fn insert_many(&mut self, rects: &[Rect], ids: &[u32]) {
        let names: Vec<String> = (0..rects.len())
            .map(|i| format!("h{}", self.issued.len() + i))
            .collect();
        let mut op = json!({
            "op": "insert_many",
            "rects": rects.iter().map(rect_json).collect::<Vec<_>>(),
            "ids": ids,
            "as": names,
        });
        if rects.len() != ids.len() {
            op["error"] = json!("LengthMismatch");
        } else if let Some(bad) = rects.iter().position(|r| !good(r)) {
            op["error"] = json!("InvalidRect");
            op["index"] = json!(bad);
        } else {
            for ((name, rect), id) in names.iter().zip(rects).zip(ids) {
                self.issued.push(name.clone());
                self.live.insert(name.clone(), (*rect, *id));
            }
        }
        self.push(op);
    }

    fn remove(&mut self, name: &str) {
        let mut op = json!({"op": "remove", "handle": name});
        if self.live.remove(name).is_none() {
            op["error"] = json!("InvalidHandle");
        }
        self.push(op);
    }

    fn remove_many(&mut self, names: &[String]) {
        let mut op = json!({"op": "remove_many", "handles": names});
        let mut seen = std::collections::BTreeSet::new();
        let mut failure = None;
        for (i, name) in names.iter().enumerate() {
            if !self.live.contains_key(name) {
                failure = Some(("InvalidHandle", i));
            } else if !seen.insert(name) {
                failure = Some(("DuplicateHandle", i));
            }
            if failure.is_some() {
                break;
            }
        }
        match failure {
            Some((kind, i)) => {
                op["error"] = json!(kind);
                op["index"] = json!(i);
            }
            None => {
                for name in names {
                    self.live.remove(name);
                }
            }
        }
        self.push(op);
    }

    fn move_to(&mut self, name: &str, rect: Rect) {
        let mut op = json!({"op": "move", "handle": name, "rect": rect_json(&rect)});
        if !good(&rect) {
            op["error"] = json!("InvalidRect");
        } else if let Some(e) = self.live.get_mut(name) {
            e.0 = rect;
        } else {
            op["error"] = json!("InvalidHandle");
        }
        self.push(op);
    }

    fn move_many(&mut self, names: &[String], rects: &[Rect]) {
        let mut op = json!({
            "op": "move_many",
            "handles": names,
            "rects": rects.iter().map(rect_json).collect::<Vec<_>>(),
        });
        if names.len() != rects.len() {
            op["error"] = json!("LengthMismatch");
        } else if let Some(i) =
            (0..names.len()).find(|&i| !good(&rects[i]) || !self.live.contains_key(&names[i]))
        {
            let kind = if good(&rects[i]) {
                "InvalidHandle"
            } else {
                "InvalidRect"
            };
            op["error"] = json!(kind);
            op["index"] = json!(i);
        } else {
            for (name, rect) in names.iter().zip(rects) {
                self.live.get_mut(name).unwrap().0 = *rect;
            }
        }
        self.push(op);
    }

    fn query(&mut self, rect: Rect, omit: Option<&str>) {
        let mut op = json!({"op": "query", "rect": rect_json(&rect), "omit": omit});
        if !good(&rect) {
            op["error"] = json!("InvalidRect");
        } else if omit.is_some_and(|o| !self.live.contains_key(o)) {
            op["error"] = json!("InvalidHandle");
        } else {
            let hits = self
                .live
                .iter()
                .filter(|(n, (r, _))| Some(n.as_str()) != omit && meets(r, &rect))
                .map(|(n, _)| n.clone())
                .collect();
            op["expect"] = json!(Self::sorted(hits));
        }
        self.push(op);
    }

    fn query_point(&mut self, x: f32, y: f32, omit: Option<&str>) {
        let mut op = json!({"op": "query_point", "point": [num(x), num(y)], "omit": omit});
        if !(x.is_finite() && y.is_finite()) {
            op["error"] = json!("InvalidPoint");
        } else if omit.is_some_and(|o| !self.live.contains_key(o)) {
            op["error"] = json!("InvalidHandle");
        } else {
            let p = [x, y, x, y];
            let hits = self
                .live
                .iter()
                .filter(|(n, (r, _))| Some(n.as_str()) != omit && meets(r, &p))
                .map(|(n, _)| n.clone())
                .collect();
            op["expect"] = json!(Self::sorted(hits));
        }
        self.push(op);
    }

    fn overlapping(&mut self, name: &str) {
        let mut op = json!({"op": "overlapping", "handle": name});
        match self.live.get(name) {
            Some(&(rect, _)) => {
                let hits = self
                    .live
                    .iter()
                    .filter(|(n, (r, _))| n.as_str() != name && meets(r, &rect))
                    .map(|(n, _)| n.clone())
                    .collect();
                op["expect"] = json!(Self::sorted(hits));
            }
            None => op["error"] = json!("InvalidHandle"),
        }
        self.push(op);
    }

    /// The overlapping pairs of live elements, each `[a, b]` with `a < b`, sorted.
    fn current_pairs(&self) -> BTreeSet<[String; 2]> {
        let all: Vec<(&String, &Rect)> = self.live.iter().map(|(n, (r, _))| (n, r)).collect();
        let mut pairs = BTreeSet::new();
        for (i, (a, ra)) in all.iter().enumerate() {
            for (b, rb) in &all[i + 1..] {
                if meets(ra, rb) {
                    let (a, b) = if a < b { (a, b) } else { (b, a) };
                    pairs.insert([(*a).clone(), (*b).clone()]);
                }
            }
        }
        pairs
    }

    fn pairs(&mut self) {
        let pairs: Vec<[String; 2]> = self.current_pairs().into_iter().collect();
        self.push(json!({"op": "pairs", "expect": pairs}));
    }

    /// The contact events since the last `events` op (the first reports
    /// every pair as began).
    fn events(&mut self) {
        let now = self.current_pairs();
        let began: Vec<&[String; 2]> = now.difference(&self.tracked).collect();
        let ended: Vec<&[String; 2]> = self.tracked.difference(&now).collect();
        let op = json!({"op": "events", "began": began, "ended": ended});
        self.push(op);
        self.tracked = now;
    }

    fn inspect(&mut self, name: &str) {
        let entry = self.live.get(name).copied();
        self.push(json!({"op": "contains", "handle": name, "expect": entry.is_some()}));
        match entry {
            Some((rect, id)) => {
                self.push(json!({"op": "id", "handle": name, "expect": id}));
                self.push(json!({"op": "rect", "handle": name, "expect": rect_json(&rect)}));
            }
            None => {
                self.push(json!({"op": "id", "handle": name, "error": "InvalidHandle"}));
                self.push(json!({"op": "rect", "handle": name, "error": "InvalidHandle"}));
            }
        }
    }

    fn len(&mut self) {
        let n = self.live.len();
        self.push(json!({"op": "len", "expect": n}));
    }

    fn clear(&mut self) {
        self.live.clear();
        self.push(json!({"op": "clear"}));
    }

    fn cleanup(&mut self) {
        self.push(json!({"op": "cleanup"}));
    }

    fn any_issued(&self, rng: &mut Lcg) -> String {
        if self.issued.is_empty() {
            return "never".into();
        }
        self.issued[rng.below(self.issued.len() as u32) as usize].clone()
    }

    fn any_live(&self, rng: &mut Lcg) -> Option<String> {
        if self.live.is_empty() {
            return None;
        }
        let i = rng.below(self.live.len() as u32) as usize;
        self.live.keys().nth(i).cloned()
    }
}

/// Every structure, small parameters (many splits and cells) and defaults.
fn structures() -> Value {
    json!([
        {"kind": "Quadtree", "params": {"max_elements": 2, "max_depth": 5}},
        {"kind": "Quadtree", "params": null},
        {"kind": "Grid", "params": {"columns": 7, "rows": 5}},
        {"kind": "Grid", "params": null},
        {"kind": "LooseGrid", "params": {"columns": 8, "rows": 6, "tight_columns": 4, "tight_rows": 3}},
        {"kind": "LooseGrid", "params": null},
        {"kind": "LooseQuadtree", "params": {"max_elements": 2, "max_depth": 5}},
        {"kind": "LooseQuadtree", "params": null},
    ])
}

/// Hand-written: every operation and every error kind a call can give.
fn basic() -> Value {
    let mut m = Model::default();
    m.insert([10.0, 10.0, 20.0, 20.0], 1);
    m.insert([20.0, 15.0, 30.0, 25.0], 2); // touches h0 along x = 20
    m.insert([50.0, 50.0, 50.0, 50.0], 3); // a point
    m.insert([0.0, 40.0, 100.0, 40.0], 4); // a segment across the world
    m.insert([-50.0, -50.0, -40.0, -40.0], 5); // wholly outside the world
    m.insert([90.0, 90.0, 200.0, 200.0], 6); // partly outside
    m.insert([-1000.0, -1000.0, 1000.0, 1000.0], 7); // far bigger than the world
    for _ in 0..3 {
        m.insert([60.0, 60.0, 61.0, 61.0], 8); // a stack at one spot
    }
    m.insert([f32::NAN, 0.0, 1.0, 1.0], 9);
    m.insert([5.0, 0.0, 1.0, 1.0], 9); // inverted
    m.insert([0.0, 0.0, f32::INFINITY, 1.0], 9);
    m.len();
    m.query([0.0, 0.0, 20.0, 20.0], None);
    m.query([20.0, 20.0, 20.0, 20.0], None);
    m.query([0.0, 0.0, 100.0, 100.0], Some("h6"));
    m.query([-60.0, -60.0, -45.0, -45.0], None);
    m.query([f32::NAN, 0.0, 1.0, 1.0], None);
    m.query([0.0, 0.0, 1.0, 1.0], Some("never"));
    m.query_point(20.0, 20.0, None);
    m.query_point(50.0, 50.0, None);
    m.query_point(60.5, 60.5, Some("h8"));
    m.query_point(f32::INFINITY, 0.0, None);
    for name in ["h0", "h2", "h7", "h8"] {
        m.overlapping(name);
    }
    m.overlapping("never");
    m.pairs();
    m.events();
    for name in ["h0", "h9"] {
        m.inspect(name);
    }
    m.inspect("never");
    m.move_to("h1", [21.0, 15.0, 31.0, 25.0]); // no longer touches h0
    m.move_to("h1", [f32::NAN, 15.0, 31.0, 25.0]);
    m.move_to("never", [0.0, 0.0, 1.0, 1.0]);
    m.query([0.0, 0.0, 20.5, 20.0], None);
    m.events(); // h1 left h0
    m.cleanup();
    m.remove("h2");
    m.remove("h2"); // twice
    m.remove("never");
    m.inspect("h2");
    m.query_point(50.0, 50.0, None);
    m.insert([50.0, 50.0, 50.0, 50.0], 3); // the slot comes back with a new handle
    m.inspect("h2");
    m.events(); // h2's pairs ended, the new element's began
    m.insert_many(&[[1.0, 1.0, 2.0, 2.0], [2.0, 2.0, 3.0, 3.0]], &[20, 21]);
    m.insert_many(&[[1.0, 1.0, 2.0, 2.0], [3.0, 2.0, 1.0, 3.0]], &[22, 23]);
    m.insert_many(&[[1.0, 1.0, 2.0, 2.0]], &[22, 23]);
    m.remove_many(&["h11".into(), "h12".into(), "h11".into()]);
    m.remove_many(&["h11".into(), "h2".into()]);
    m.move_many(&["h0".into(), "h1".into()], &[[0.0, 0.0, 1.0, 1.0]]);
    m.move_many(
        &["h0".into(), "h1".into()],
        &[[0.0, 0.0, 1.0, 1.0], [2.0, 2.0, f32::NAN, 3.0]],
    );
    m.move_many(
        &["h0".into(), "h1".into()],
        &[[0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 3.0, 3.0]],
    );
    m.pairs();
    m.remove_many(&["h11".into(), "h12".into()]);
    m.len();
    m.cleanup();
    m.pairs();
    m.events();
    m.clear();
    m.events(); // everything ended
    m.len();
    m.inspect("h0");
    m.query([-1e6, -1e6, 1e6, 1e6], None);
    m.insert([1.0, 1.0, 2.0, 2.0], 30);
    m.pairs();
    m.events();
    json!({"name": "basic", "world": [0.0, 0.0, 100.0, 100.0], "structures": structures(), "ops": m.ops})
}

/// Random operations in `world`, with points, segments, stacks and elements
/// outside the world among the rectangles.
fn random(name: &str, world: Rect, seed: u32, steps: usize) -> Value {
    let mut rng = Lcg(seed);
    let mut m = Model::default();
    let (w, h) = (world[2] - world[0], world[3] - world[1]);
    let rect = |rng: &mut Lcg| -> Rect {
        // Positions reach a quarter of the world beyond each side.
        let x = world[0] - w * 0.25 + rng.unit() * w * 1.5;
        let y = world[1] - h * 0.25 + rng.unit() * h * 1.5;
        let (sw, sh) = match rng.below(10) {
            0 => (0.0, 0.0),
            1 => (0.0, rng.unit() * h * 0.1),
            2 => (w * 2.0 * rng.unit(), h * 2.0 * rng.unit()),
            _ => (rng.unit() * w * 0.08, rng.unit() * h * 0.08),
        };
        let r = [x, y, x + sw, y + sh];
        if good(&r) {
            r
        } else {
            [x, y, x, y]
        }
    };
    let stack = [world[0] + w * 0.3, world[1] + h * 0.6];
    for _ in 0..steps {
        match rng.below(100) {
            0..=34 => {
                let r = if rng.chance(8) {
                    [stack[0], stack[1], stack[0], stack[1]]
                } else {
                    rect(&mut rng)
                };
                m.insert(r, rng.below(1000));
            }
            35..=39 => {
                let n = 1 + rng.below(5) as usize;
                let rects: Vec<Rect> = (0..n).map(|_| rect(&mut rng)).collect();
                let ids: Vec<u32> = (0..n).map(|i| i as u32).collect();
                m.insert_many(&rects, &ids);
            }
            40..=54 => {
                if let Some(name) = m.any_live(&mut rng) {
                    let r = rect(&mut rng);
                    m.move_to(&name, r);
                }
            }
            55..=57 => {
                let names: Vec<String> = (0..3).filter_map(|_| m.any_live(&mut rng)).collect();
                let rects: Vec<Rect> = names.iter().map(|_| rect(&mut rng)).collect();
                m.move_many(&names, &rects);
            }
            58..=63 => {
                let name = if rng.chance(80) {
                    m.any_live(&mut rng)
                        .unwrap_or_else(|| m.any_issued(&mut rng))
                } else {
                    m.any_issued(&mut rng)
                };
                m.remove(&name);
            }
            64..=65 => {
                let names: Vec<String> = (0..2).filter_map(|_| m.any_live(&mut rng)).collect();
                m.remove_many(&names);
            }
            66..=77 => {
                let q = rect(&mut rng);
                let omit = if rng.chance(30) {
                    m.any_live(&mut rng)
                } else {
                    None
                };
                m.query(q, omit.as_deref());
            }
            78..=83 => {
                let q = rect(&mut rng);
                m.query_point(q[0], q[1], None);
            }
            84..=88 => {
                let name = m.any_issued(&mut rng);
                m.overlapping(&name);
            }
            89..=90 => m.pairs(),
            91..=92 => m.events(),
            93..=96 => m.cleanup(),
            97 => {
                let name = m.any_issued(&mut rng);
                m.inspect(&name);
            }
            98 => m.len(),
            _ => {
                if rng.chance(20) {
                    m.clear();
                } else {
                    m.cleanup();
                }
            }
        }
    }
    m.pairs();
    m.events();
    m.len();
    json!({"name": name, "world": rect_json(&world), "structures": structures(), "ops": m.ops})
}

/// Every vector file, by file name.
pub fn vectors() -> Vec<(String, Value)> {
    let mut out = vec![("basic".to_string(), basic())];
    for (name, world, seed) in [
        ("random-unit", [0.0, 0.0, 1.0, 1.0], 1),
        ("random-4096", [0.0, 0.0, 4096.0, 4096.0], 2),
        ("random-million", [-1e6, -1e6, 1e6, 1e6], 3),
        ("random-non-square", [-3.0, 10.0, 5.0, 10.5], 4),
        ("random-tiny", [1e-30, 1e-30, 3e-29, 7e-30], 5),
        ("random-2p24", [16_777_216.0, 0.0, 16_777_220.0, 3.0], 6),
    ] {
        out.push((name.to_string(), random(name, world, seed, 220)));
    }
    out
}

/// Compact JSON with one operation per line, so diffs and reviews stay readable.
pub fn to_text(value: &Value) -> String {
    let line = |v: &Value| serde_json::to_string(v).expect("serialise");
    let ops: Vec<String> = value["ops"]
        .as_array()
        .expect("ops")
        .iter()
        .map(line)
        .collect();
    format!(
        "{{\"name\": {}, \"world\": {},\n\"structures\": {},\n\"ops\": [\n{}\n]}}\n",
        line(&value["name"]),
        line(&value["world"]),
        line(&value["structures"]),
        ops.join(",\n")
    )
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors"));
    std::fs::create_dir_all(&dir).expect("create the vectors folder");
    for (name, value) in vectors() {
        let text = to_text(&value);
        std::fs::write(dir.join(format!("{name}.json")), text).expect("write a vector");
    }
}
