//! The fuzzer's bytes as the random-operation harness's choices on
//! `Subject::BoundedLooseQuadtree`: every result against the brute-force model, `validate`
//! after each operation (flatquad::random_ops, the same as the unit tests').
#![no_main]

use flatquad::random_ops::Subject;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| Subject::BoundedLooseQuadtree.fuzz(data));
