//! The README quotes exactly the numbers of docs/benchmarks.md (`make figures`).

use flatquad_bench::figures::{readme_block, replace_block, Table};

fn read(name: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../");
    std::fs::read_to_string(format!("{path}{name}")).unwrap()
}

#[test]
fn readme_figures_match_benchmarks_md() {
    let table = Table::parse(&read("docs/benchmarks.md")).unwrap();
    let readme = read("README.md");
    let block = readme_block(&table).unwrap();
    assert!(
        replace_block(&readme, &block).unwrap() == readme,
        "README.md's figures differ from docs/benchmarks.md: run `make figures`\nexpected:\n{block}"
    );
}

#[test]
fn a_changed_number_changes_the_block() {
    let md = read("docs/benchmarks.md");
    let table = Table::parse(&md).unwrap();
    // The grid's uniform-100k all-pairs frame, first in the first row.
    let row = "| uniform-100k | flatquad grid | all-pairs |";
    let at = md.find(row).unwrap();
    let line_end = md[at..].find('\n').unwrap() + at;
    let cells: Vec<&str> = md[at..line_end].split('|').collect();
    let changed_line = md[at..line_end].replacen(cells[6].trim(), "99.000", 1);
    let changed = Table::parse(&md.replacen(&md[at..line_end], &changed_line, 1)).unwrap();
    let before = readme_block(&table).unwrap();
    let after = readme_block(&changed).unwrap();
    assert_ne!(before, after);
    assert!(after.contains("| 99.0 / "), "{after}");
    assert!(!before.contains("| 99.0 / "), "{before}");
}

#[test]
fn a_missing_row_is_an_error() {
    let md = read("docs/benchmarks.md");
    let without: String = md
        .lines()
        .filter(|l| !l.starts_with("| uniform-100k | broccoli |"))
        .map(|l| format!("{l}\n"))
        .collect();
    let err = readme_block(&Table::parse(&without).unwrap()).unwrap_err();
    assert!(err.contains("broccoli"), "{err}");
}

/// A later section's run (`searches` rewrites its own) does not date the
/// main table's figures.
#[test]
fn the_date_is_the_main_tables() {
    let md = read("docs/benchmarks.md");
    let table = Table::parse(&md).unwrap();
    let later = format!(
        "{md}\n## Another run\n\nMachine: 1 CPU, elsewhere. Date: 2099-01-01. Made by hand.\n"
    );
    let again = Table::parse(&later).unwrap();
    assert_eq!(again.date, table.date);
    assert_eq!(again.machine, table.machine);
    assert_ne!(table.date, "2099-01-01");
}
