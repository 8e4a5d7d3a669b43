//! The snapshot reader on arbitrary bytes: `from_bytes` of every structure
//! returns Ok or Err and never panics; what it accepts validates, lists only
//! handles it accepts, writes back to the same bytes, and takes further
//! operations (flatquad_testkit::fuzz_snapshot).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| flatquad_testkit::fuzz_snapshot(data));
