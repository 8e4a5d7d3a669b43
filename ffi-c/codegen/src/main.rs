//! The octree's C calls are written once, as the 2D calls: this test makes
//! `src/octree_calls.rs` from them and fails if the committed copy differs
//! (writing the new one, so that a second run passes: `make c-generated`).
//! The file is committed because cbindgen, which writes the header, reads the
//! sources and does not expand macros (`parse.expand` needs a nightly
//! compiler); the same reason the header itself is committed.
//!
//! A 2D call becomes its octree twin by names alone: its body already calls a
//! body of `shared` generic over both tree types. `qt_tree` becomes
//! `qt_octree`, each 2D type its 3D one, a `y` (or `dy`) parameter is followed
//! by a `z` (`dz`), and the arrays `[x, y]` and `[dx, dy]` gain the third
//! coordinate.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use proc_macro2::Span;
use quote::quote;
use syn::visit_mut::{self, VisitMut};
use syn::{parse_quote, Attribute, Expr, ExprArray, FnArg, Ident, Item, ItemFn, Pat};

/// The files holding the 2D calls that have an octree twin, in the order the
/// twins are written.
const SOURCES: [&str; 6] = [
    "tree.rs",
    "inspect.rs",
    "query.rs",
    "filter.rs",
    "search.rs",
    "tracker.rs",
];

/// Every 2D call with an octree twin, and what the twin's doc adds to "the
/// 2D call on an octree". The octree's constructor and parameter getter are
/// written by hand (`src/octree.rs`): they differ in more than names.
const TWINS: &[(&str, &str)] = &[
    ("qt_destroy", ""),
    ("qt_clone", ""),
    ("qt_insert", ""),
    ("qt_insert_many", ""),
    ("qt_remove", ""),
    ("qt_remove_many", ""),
    ("qt_move", ""),
    ("qt_move_many", ""),
    (
        "qt_cleanup",
        "It merges, one level per call, every branch whose eight children are empty leaves.",
    ),
    ("qt_set_margin", ""),
    ("qt_get_margin", ""),
    ("qt_clear", ""),
    ("qt_to_bytes", ""),
    (
        "qt_from_bytes",
        "A 2D structure's snapshot is refused with `QT_INVALID_BYTES`.",
    ),
    ("qt_len", ""),
    ("qt_contains", ""),
    ("qt_element_id", ""),
    ("qt_element_rect", ""),
    ("qt_elements", ""),
    ("qt_stats", ""),
    ("qt_validate", ""),
    (
        "qt_query",
        "Shapes: `QT_SHAPE_BOX`, `QT_SHAPE_POINT`, `QT_SHAPE_SPHERE`, `QT_SHAPE_ELEMENT`.",
    ),
    ("qt_query_each", ""),
    ("qt_query_many", ""),
    ("qt_query_pairs", ""),
    ("qt_query_pairs_each", ""),
    (
        "qt_traverse",
        "Each node comes with its index, depth, box and element count.",
    ),
    ("qt_set_filter", ""),
    ("qt_get_filter", ""),
    ("qt_set_filters", ""),
    ("qt_nearest", ""),
    ("qt_nearest_with", ""),
    (
        "qt_nearest_many",
        "Point `i` is `(points[3 i], points[3 i + 1], points[3 i + 2])`.",
    ),
    ("qt_ray_cast", ""),
    ("qt_ray_cast_all", ""),
    ("qt_ray_cast_each", ""),
    ("qt_box_cast", ""),
    ("qt_box_cast_all", ""),
    (
        "qt_tracker_create",
        "The tracker is a `qt_tracker`, whose calls work the same on either tree.",
    ),
];

/// Names that change, in the signature and the body: the tree types, the 2D
/// types with a 3D twin, and the parameters named for rectangles.
const RENAMES: &[(&str, &str)] = &[
    ("qt_tree", "qt_octree"),
    ("qt_rect", "qt_box"),
    ("qt_query_desc", "qt_query3_desc"),
    ("qt_ray", "qt_ray3"),
    ("qt_node_fn", "qt_node3_fn"),
    ("rect", "b"),
    ("rects", "boxes"),
    ("out_rect", "out_box"),
];

/// The coordinate each 2D coordinate is followed by in 3D.
const THIRD: &[(&str, &str)] = &[("y", "z"), ("dy", "dz")];

/// The octree name of a 2D call.
fn twin_name(name: &str) -> String {
    match name {
        "qt_element_rect" => "qt_octree_element_box".to_string(),
        _ => name.replacen("qt_", "qt_octree_", 1),
    }
}

/// Renames the identifiers of [`RENAMES`] and adds the third coordinate.
struct To3d {
    renames: HashMap<&'static str, &'static str>,
    /// The 3D types the signature took instead of 2D ones, for the doc.
    swapped: Vec<(String, String)>,
    /// The third coordinates added to the signature, each after its second,
    /// for the doc.
    added: Vec<(&'static str, &'static str)>,
}

impl VisitMut for To3d {
    fn visit_ident_mut(&mut self, ident: &mut Ident) {
        if let Some(&to) = self.renames.get(ident.to_string().as_str()) {
            *ident = Ident::new(to, ident.span());
        }
    }

    fn visit_expr_array_mut(&mut self, array: &mut ExprArray) {
        visit_mut::visit_expr_array_mut(self, array);
        let names: Vec<String> = array
            .elems
            .iter()
            .map(|e| match e {
                Expr::Path(p) => p
                    .path
                    .get_ident()
                    .map_or_else(String::new, Ident::to_string),
                _ => String::new(),
            })
            .collect();
        if let [_, last] = names.as_slice() {
            if let Some((_, third)) = THIRD.iter().find(|(y, _)| y == last) {
                let third = Ident::new(third, Span::call_site());
                array.elems.push(parse_quote!(#third));
            }
        }
    }
}

fn param_name(arg: &FnArg) -> Option<String> {
    match arg {
        FnArg::Typed(t) => match &*t.pat {
            Pat::Ident(p) => Some(p.ident.to_string()),
            _ => None,
        },
        FnArg::Receiver(_) => None,
    }
}

fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

fn is_no_mangle(attr: &Attribute) -> bool {
    attr.path().is_ident("no_mangle")
}

/// The octree twin of the 2D call `call`, documented from `note`.
fn twin(call: &ItemFn, note: &str) -> ItemFn {
    let name = call.sig.ident.to_string();
    let mut out = call.clone();
    out.sig.ident = Ident::new(&twin_name(&name), call.sig.ident.span());
    let mut to3d = To3d {
        renames: RENAMES.iter().copied().collect(),
        swapped: Vec::new(),
        added: Vec::new(),
    };
    // The types the signature swaps, named for the doc before they change.
    for (from, to) in RENAMES.iter().filter(|(from, _)| from.starts_with("qt_")) {
        let sig = &call.sig;
        let text = quote!(#sig).to_string();
        let used = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == *from);
        if used && *from != "qt_tree" {
            to3d.swapped.push((from.to_string(), to.to_string()));
        }
    }
    // The third coordinate after each `y` and `dy` parameter.
    let mut params = syn::punctuated::Punctuated::<FnArg, syn::token::Comma>::new();
    for arg in &out.sig.inputs {
        params.push(arg.clone());
        let third = param_name(arg).and_then(|n| THIRD.iter().find(|(y, _)| *y == n));
        if let (Some(&(second, third)), FnArg::Typed(typed)) = (third, arg) {
            let ident = Ident::new(third, Span::call_site());
            let ty = &typed.ty;
            params.push(parse_quote!(#ident: #ty));
            to3d.added.push((second, third));
        }
    }
    out.sig.inputs = params;
    to3d.visit_item_fn_mut(&mut out);

    let mut doc = format!("`{name}` on a `qt_octree`");
    let mut changes: Vec<String> = to3d
        .swapped
        .iter()
        .map(|(from, to)| format!("`{to}` for `{from}`"))
        .collect();
    changes.extend(
        to3d.added
            .iter()
            .map(|(second, third)| format!("`{third}` after `{second}`")),
    );
    if changes.is_empty() {
        doc.push('.');
    } else {
        doc.push_str(", with ");
        doc.push_str(&changes.join(" and "));
        doc.push('.');
    }
    if !note.is_empty() {
        doc.push(' ');
        doc.push_str(note);
    }
    out.attrs.retain(|a| !is_doc(a));
    let lines = wrap(&doc, 76);
    let docs: Vec<Attribute> = lines
        .iter()
        .map(|line| {
            let line = format!(" {line}");
            parse_quote!(#[doc = #line])
        })
        .collect();
    out.attrs.splice(0..0, docs);
    out
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().unwrap();
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// The generated file, formatted by rustfmt as `cargo fmt` would.
fn generated(src: &Path) -> String {
    let mut calls: HashMap<String, ItemFn> = HashMap::new();
    let mut order = Vec::new();
    for file in SOURCES {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        let parsed = syn::parse_file(&text).unwrap();
        for item in parsed.items {
            if let Item::Fn(call) = item {
                if call.attrs.iter().any(is_no_mangle) {
                    order.push(call.sig.ident.to_string());
                    calls.insert(call.sig.ident.to_string(), call);
                }
            }
        }
    }
    let notes: HashMap<&str, &str> = TWINS.iter().copied().collect();
    assert_eq!(notes.len(), TWINS.len(), "a call listed twice in TWINS");
    for (name, _) in TWINS {
        assert!(
            calls.contains_key(*name),
            "{name} is in TWINS but in none of {SOURCES:?}"
        );
    }
    let twins: Vec<ItemFn> = order
        .iter()
        .filter_map(|name| {
            notes
                .get(name.as_str())
                .map(|note| twin(&calls[name], note))
        })
        .collect();
    let head = "//! The octree's calls: each 2D call of `tree`, `inspect`, `query`, `filter`,
//! `search` and `tracker` on a `qt_octree`. Generated by
//! `ffi-c/tests/octree_calls.rs` (`make c-generated`): do not edit by hand.

use std::ffi::c_void;

use crate::boundary::*;
use crate::shared::{self, *};
use crate::status::*;
use crate::tracker::{create_tracker, qt_tracker};
use crate::types::*;
";
    let calls: Vec<String> = twins
        .into_iter()
        .map(|call| {
            let file: syn::File = parse_quote!(#call);
            prettyplease::unparse(&file)
        })
        .collect();
    rustfmt(&format!("{head}\n{}", calls.join("\n")))
}

fn rustfmt(text: &str) -> String {
    let mut child = Command::new(std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".into()))
        .args(["--edition", "2021", "--emit", "stdout"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("rustfmt (rustup component add rustfmt)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "rustfmt failed");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn octree_calls_are_generated_from_the_2d_calls() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let want = generated(&src);
    let path = src.join("octree_calls.rs");
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        std::fs::write(&path, &want).unwrap();
        panic!(
            "{} was not what the 2D calls give: written anew. Run the test again, \
             then `make c-header`, and commit both.",
            path.display()
        );
    }
}
