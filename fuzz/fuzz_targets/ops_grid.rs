//! The fuzzer's bytes as the random-operation harness's choices on
//! `Subject::Grid`: every result against the brute-force model, `validate`
//! after each operation (flatquad-testkit, the same as core's tests').
#![no_main]

use flatquad_testkit::Subject;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| Subject::Grid.fuzz(data));
