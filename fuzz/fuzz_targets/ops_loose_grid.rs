//! The fuzzer's bytes as the random-operation harness's choices on a
//! `Subject::LooseGrid`: every result against the brute-force model, `validate`
//! after each operation (flatquad::random_ops, the same as the unit tests').
#![no_main]

use flatquad::random_ops::{Bytes, Checks, Subject};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A cap keeps brute force (pairs are quadratic) fast per input.
    let checks = Checks {
        cap: 256,
        ..Checks::EVERY
    };
    Subject::LooseGrid.run(&mut Bytes::new(data), usize::MAX, &checks);
});
