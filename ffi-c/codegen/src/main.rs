//! Writes `ffi-c/src/octree_calls.rs`: the octree's C calls, made from the 2D
//! calls, so that each C call is written once. `make c-generated` runs it (then
//! regenerates the header); `tests/c/run.sh` runs it with `--check`, which fails
//! when the committed file is not what the 2D calls give.
//!
//! The file is committed because cbindgen, which writes the header, reads the
//! sources and does not expand macros (`parse.expand` needs a nightly compiler),
//! the same reason the header itself is committed. This is its own crate, not a
//! test of `flatquad-ffi`, so that it runs even when a stale generated file does
//! not compile.
//!
//! A 2D call becomes its octree twin by names alone, since its body calls a body
//! of `shared` generic over both tree types: `qt_tree` becomes `qt_octree` and
//! each 2D type its 3D one, the parameters named for rectangles are renamed, a
//! `y` (or `dy`) parameter is followed by a `z` (`dz`), and the arrays `[x, y]`
//! and `[dx, dy]` gain the third coordinate. A body holding anything this could
//! get wrong (a macro, a number that may be a dimension) is refused.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use proc_macro2::Span;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{parse_quote, Attribute, Expr, ExprArray, ExprPath, FnArg, Ident, Item, ItemFn, Pat};

/// The files holding the 2D calls, in the order their twins are written.
const SOURCES: [&str; 6] = [
    "tree.rs",
    "inspect.rs",
    "query.rs",
    "filter.rs",
    "search.rs",
    "tracker.rs",
];

/// Every 2D call with an octree twin, and what the twin's doc adds to "the 2D
/// call on an octree". The octree's constructor and parameter getter are
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
        "It merges, one level per call, every branch whose eight children are empty leaves, and lays the leaves' lists out contiguously again once moves have scattered them.",
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
        "Point `i` is `(points[3*i], points[3*i+1], points[3*i+2])`.",
    ),
    ("qt_ray_cast", ""),
    ("qt_ray_cast_all", ""),
    ("qt_ray_cast_many", ""),
    ("qt_ray_cast_each", ""),
    ("qt_box_cast", ""),
    ("qt_box_cast_all", ""),
    (
        "qt_tracker_create",
        "The tracker is a `qt_tracker`, whose calls work the same on either tree.",
    ),
];

/// The calls of [`SOURCES`] without a twin: 2D only, or taking no tree.
const TWO_D_ONLY: &[&str] = &[
    "qt_create_default",
    "qt_kind_of",
    "qt_tracker_destroy",
    "qt_tracker_update",
    "qt_tracker_began",
    "qt_tracker_ended",
    "qt_tracker_pair_count",
    "qt_tracker_reset",
    "qt_test_panic_in_moves",
];

/// Types with a 3D twin, renamed wherever they appear.
const TYPES: &[(&str, &str)] = &[
    ("qt_tree", "qt_octree"),
    ("qt_rect", "qt_box"),
    ("qt_query_desc", "qt_query3_desc"),
    ("qt_ray", "qt_ray3"),
    ("qt_node_fn", "qt_node3_fn"),
];

/// Parameters named for rectangles, renamed in the signature and where the
/// body names them (a lone identifier: never a field or a method).
const PARAMS: &[(&str, &str)] = &[("rect", "b"), ("rects", "boxes"), ("out_rect", "out_box")];

/// The coordinate each second coordinate is followed by in 3D.
const THIRD: &[(&str, &str)] = &[("y", "z"), ("dy", "dz")];

/// The octree name of a 2D call.
fn twin_name(name: &str) -> String {
    match name {
        "qt_element_rect" => "qt_octree_element_box".to_string(),
        _ => name.replacen("qt_", "qt_octree_", 1),
    }
}

fn lookup(table: &[(&'static str, &'static str)], name: &str) -> Option<&'static str> {
    table
        .iter()
        .find(|(from, _)| *from == name)
        .map(|(_, to)| *to)
}

/// The identifier of a path that is one plain identifier.
fn lone_ident(path: &ExprPath) -> Option<&Ident> {
    path.qself
        .is_none()
        .then(|| path.path.get_ident())
        .flatten()
}

/// Refuses a 2D body the renaming could get wrong.
struct Guard<'a>(&'a str);

impl<'ast> Visit<'ast> for Guard<'_> {
    fn visit_macro(&mut self, _: &'ast syn::Macro) {
        panic!(
            "{}: a macro in the body (its tokens would not be renamed)",
            self.0
        );
    }
    fn visit_lit(&mut self, lit: &'ast syn::Lit) {
        if matches!(lit, syn::Lit::Int(_) | syn::Lit::Float(_)) {
            panic!(
                "{}: a number in the body (a dimension?): write the octree's by hand",
                self.0
            );
        }
    }
}

/// Renames types and parameters and adds the third coordinate.
#[derive(Default)]
struct To3d {
    /// What the signature changed, for the doc.
    changes: Vec<String>,
}

impl VisitMut for To3d {
    fn visit_ident_mut(&mut self, ident: &mut Ident) {
        if let Some(to) = lookup(TYPES, &ident.to_string()) {
            *ident = Ident::new(to, ident.span());
        }
    }

    fn visit_pat_ident_mut(&mut self, pat: &mut syn::PatIdent) {
        if let Some(to) = lookup(PARAMS, &pat.ident.to_string()) {
            pat.ident = Ident::new(to, pat.ident.span());
        }
        visit_mut::visit_pat_ident_mut(self, pat);
    }

    fn visit_expr_path_mut(&mut self, path: &mut ExprPath) {
        let renamed = lone_ident(path).and_then(|i| lookup(PARAMS, &i.to_string()));
        if let Some(to) = renamed {
            let to = Ident::new(to, Span::call_site());
            *path = parse_quote!(#to);
            return;
        }
        visit_mut::visit_expr_path_mut(self, path);
    }

    fn visit_expr_array_mut(&mut self, array: &mut ExprArray) {
        visit_mut::visit_expr_array_mut(self, array);
        let names: Vec<String> = array
            .elems
            .iter()
            .map(|e| match e {
                Expr::Path(p) => lone_ident(p).map_or_else(String::new, Ident::to_string),
                _ => String::new(),
            })
            .collect();
        let third = match names.as_slice() {
            [x, y] if x == "x" && y == "y" => "z",
            [x, y] if x == "dx" && y == "dy" => "dz",
            _ => return,
        };
        let third = Ident::new(third, Span::call_site());
        array.elems.push(parse_quote!(#third));
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

/// The words of a signature's tokens.
fn words(sig: &syn::Signature) -> HashSet<String> {
    quote::quote!(#sig)
        .to_string()
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map(str::to_string)
        .collect()
}

/// The octree twin of the 2D call `call`, documented with `note`.
fn twin(call: &ItemFn, note: &str) -> ItemFn {
    let name = call.sig.ident.to_string();
    Guard(&name).visit_block(&call.block);
    let mut out = call.clone();
    out.sig.ident = Ident::new(&twin_name(&name), call.sig.ident.span());
    let mut to3d = To3d::default();
    let used = words(&call.sig);
    for (from, to) in TYPES
        .iter()
        .chain(PARAMS)
        .filter(|(from, _)| used.contains(*from))
    {
        if *from != "qt_tree" {
            to3d.changes.push(format!("`{to}` for `{from}`"));
        }
    }
    // The third coordinate after each second one.
    let mut params = syn::punctuated::Punctuated::<FnArg, syn::token::Comma>::new();
    for arg in &out.sig.inputs {
        params.push(arg.clone());
        let second = param_name(arg);
        let third = second.as_deref().and_then(|n| lookup(THIRD, n));
        if let (Some(third), FnArg::Typed(typed)) = (third, arg) {
            let ident = Ident::new(third, Span::call_site());
            let ty = &typed.ty;
            params.push(parse_quote!(#ident: #ty));
            to3d.changes
                .push(format!("`{third}` after `{}`", second.unwrap()));
        }
    }
    out.sig.inputs = params;
    to3d.visit_item_fn_mut(&mut out);

    let mut doc = format!("`{name}` on a `qt_octree`");
    if !to3d.changes.is_empty() {
        let (last, rest) = to3d.changes.split_last().unwrap();
        doc.push_str(", with ");
        if !rest.is_empty() {
            doc.push_str(&rest.join(", "));
            doc.push_str(" and ");
        }
        doc.push_str(last);
    }
    doc.push('.');
    if !note.is_empty() {
        doc.push(' ');
        doc.push_str(note);
    }
    out.attrs.retain(|a| !is_doc(a));
    let docs: Vec<Attribute> = wrap(&doc, 76)
        .iter()
        .map(|line| {
            let line = format!(" {line}");
            parse_quote!(#[doc = #line])
        })
        .collect();
    out.attrs.splice(0..0, docs);
    out
}

/// `text` in lines of at most `width` characters where it can, broken between
/// words and never inside a `code` span.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut in_code = false;
    for c in text.chars() {
        if c == '`' {
            in_code = !in_code;
        }
        if c == ' ' && !in_code {
            words.push(String::new());
        } else {
            words.last_mut().unwrap().push(c);
        }
    }
    let mut lines = vec![String::new()];
    for word in words {
        let line = lines.last_mut().unwrap();
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(word);
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
    }
    lines
}

/// The generated file, as prettyplease lays it out (the module is
/// `#[rustfmt::skip]`, so `cargo fmt` leaves it as written).
fn generated(src: &Path) -> String {
    let mut calls: HashMap<String, ItemFn> = HashMap::new();
    let mut order = Vec::new();
    for file in SOURCES {
        let path = src.join(file);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
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
    for name in &order {
        let twinned = notes.contains_key(name.as_str());
        let alone = TWO_D_ONLY.contains(&name.as_str());
        assert!(
            twinned != alone,
            "{name}: list it in exactly one of TWINS (it gets an octree twin) and TWO_D_ONLY"
        );
    }
    for name in TWINS
        .iter()
        .map(|(n, _)| *n)
        .chain(TWO_D_ONLY.iter().copied())
    {
        assert!(
            calls.contains_key(name),
            "{name} is listed but is in none of {SOURCES:?}"
        );
    }
    let twins: Vec<String> = order
        .iter()
        .filter_map(|name| {
            notes
                .get(name.as_str())
                .map(|note| twin(&calls[name], note))
        })
        .map(|call| {
            let file: syn::File = parse_quote!(#call);
            prettyplease::unparse(&file)
        })
        .collect();
    let head = "//! The octree's calls: each 2D call of `tree`, `inspect`, `query`, `filter`,
//! `search` and `tracker` on a `qt_octree`. Generated by `ffi-c/codegen`
//! (`make c-generated`) from those calls: do not edit by hand.

use std::ffi::c_void;

use crate::boundary::*;
use crate::shared::{self, *};
use crate::status::*;
use crate::tracker::{create_tracker, qt_tracker};
use crate::types::*;
";
    format!("{head}\n{}", twins.join("\n"))
}

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("usage: flatquad-ffi-codegen [--check]  (unknown argument {other})");
            return ExitCode::from(2);
        }
    };
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("ffi-c/codegen is inside ffi-c")
        .join("src");
    let want = generated(&src);
    let path: PathBuf = src.join("octree_calls.rs");
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have == want {
        println!("{} is up to date", path.display());
        return ExitCode::SUCCESS;
    }
    if check {
        eprintln!(
            "{} is not what the 2D calls give: run `make c-generated` and commit it with the header",
            path.display()
        );
        return ExitCode::FAILURE;
    }
    std::fs::write(&path, want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("wrote {}", path.display());
    ExitCode::SUCCESS
}
