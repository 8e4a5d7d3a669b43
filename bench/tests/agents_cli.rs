//! The `agents` demo as a user runs it: a bad option is refused with exit
//! code 2 and the usage before any work, and the options reach the run.

use std::process::{Command, Output};

fn agents(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agents"))
        .args(args)
        .output()
        .expect("the agents binary runs")
}

/// Exit code 2, `message` and the usage on stderr, nothing on stdout (so no
/// header was printed and no oracle ran).
fn assert_refused(args: &[&str], message: &str) {
    let out = agents(args);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(message), "{args:?}: {stderr}");
    assert!(stderr.contains("usage: agents"), "{args:?}: {stderr}");
    assert!(stdout.is_empty(), "{args:?} printed: {stdout}");
}

#[test]
fn bad_options_are_refused_before_any_work() {
    assert_refused(&["no-such-scenario"], "unknown scenario");
    assert_refused(&["uniform-20k", "--threads", "0"], "--threads: at least 1");
    assert_refused(&["uniform-20k", "--index", "octree"], "is 2D");
    assert_refused(&["uniform3d-100k", "--index", "grid"], "is 3D");
    assert_refused(&["uniform-20k", "--mode", "sideways"], "unknown mode");
    assert_refused(&["uniform-20k", "--margin", "x"], "--margin: not a number");
    // Refused by the structure's own check, before the oracle's run.
    assert_refused(
        &["uniform-20k", "--index", "grid", "--margin", "-1"],
        "margin",
    );
    assert_refused(&["uniform3d-100k", "--margin", "-1"], "margin");
    assert_refused(&["uniform3d-100k", "--margin", "NaN"], "margin");
    assert_refused(&["uniform-20k", "--index", "grid", "--cell", "0"], "cell");
}

#[test]
fn the_options_reach_the_run() {
    let out = agents(&[
        "uniform-20k",
        "--index",
        "grid",
        "--mode",
        "all-pairs",
        "--threads",
        "2",
        "--margin",
        "0.25",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("margin 1 (0.25 agent sides)"), "{stdout}");
    assert!(stdout.contains("on 2 threads"), "{stdout}");
    let row = stdout
        .lines()
        .find(|line| line.starts_with("all-pairs"))
        .unwrap_or_else(|| panic!("no all-pairs row: {stdout}"));
    assert!(row.contains(" 6257 ") && row.contains(" OK "), "{row}");
}
