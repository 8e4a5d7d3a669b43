//! Writes the README's figures from `docs/benchmarks.md` (`make figures`, run by
//! `make bench` after the table), or with `--check` exits with 1 when the README's
//! block differs from what the table gives.

use std::path::PathBuf;
use std::process::ExitCode;

use flatquad_bench::figures::{readme_block, replace_block, Table};

fn run(check: bool) -> Result<bool, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |name: &str| {
        std::fs::read_to_string(root.join(name)).map_err(|e| format!("cannot read {name}: {e}"))
    };
    let table = Table::parse(&read("docs/benchmarks.md")?)?;
    let readme = read("README.md")?;
    let updated = replace_block(&readme, &readme_block(&table)?)?;
    if updated == readme {
        return Ok(true);
    }
    if check {
        return Ok(false);
    }
    std::fs::write(root.join("README.md"), updated)
        .map_err(|e| format!("cannot write README.md: {e}"))?;
    println!("figures: README.md updated from docs/benchmarks.md");
    Ok(true)
}

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("usage: figures [--check]  (unknown argument {other:?})");
            return ExitCode::from(2);
        }
    };
    match run(check) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!(
                "figures: README.md's figures differ from docs/benchmarks.md: run `make figures`"
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("figures: {e}");
            ExitCode::FAILURE
        }
    }
}
