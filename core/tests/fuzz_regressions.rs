//! The committed fuzz findings (`fuzz/regressions/`), replayed through the
//! same checks as the fuzz targets (flatquad-testkit's `Subject::fuzz` and
//! `fuzz_snapshot`) without the instrumented fuzz build.

use flatquad_testkit::{fuzz_snapshot, Subject};

/// Every input a fuzz target once failed on (`fuzz/regressions/`, named
/// `<target>-<what>`) passes its target's check now. The C ABI target's
/// inputs are replayed by `make fuzz-ci`, which builds that crate.
#[test]
fn fuzz_regressions_pass() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/regressions");
    let mut replayed = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let data = std::fs::read(&path).unwrap();
        let target = name.split_once('-').map_or(name.as_str(), |(t, _)| t);
        if target == "snapshot" {
            fuzz_snapshot(&data);
        } else if let Some(subject) = Subject::ALL.iter().find(|s| s.fuzz_target() == target) {
            subject.fuzz(&data);
        } else {
            assert_eq!(target, "c_abi", "{name}: no fuzz target {target}");
            continue;
        }
        replayed += 1;
    }
    assert!(replayed > 0);
}
