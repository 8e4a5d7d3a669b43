//! The library's version, at compile time (macros) and at run time (`qt_version`).
//! `QT_VERSION_STRING` is built from the macros in the header (cbindgen.toml).

use std::ffi::{c_char, CStr};

use crate::boundary::guard;

/// Major version of the header (the `0` of `0.1.0`).
pub const QT_VERSION_MAJOR: u32 = 0;
/// Minor version of the header.
pub const QT_VERSION_MINOR: u32 = 1;
/// Patch version of the header.
pub const QT_VERSION_PATCH: u32 = 0;
/// The header's version as one number, `major * 10000 + minor * 100 + patch`,
/// for `#if QT_VERSION_NUMBER >= ...` tests.
pub const QT_VERSION_NUMBER: u32 = 100;

// The constants above are written out so that cbindgen can put them in the
// header; these checks stop the build when they drift from Cargo.toml.
const _: () = {
    assert!(QT_VERSION_MAJOR == parse_u32(env!("CARGO_PKG_VERSION_MAJOR")));
    assert!(QT_VERSION_MINOR == parse_u32(env!("CARGO_PKG_VERSION_MINOR")));
    assert!(QT_VERSION_PATCH == parse_u32(env!("CARGO_PKG_VERSION_PATCH")));
    assert!(
        QT_VERSION_NUMBER == QT_VERSION_MAJOR * 10000 + QT_VERSION_MINOR * 100 + QT_VERSION_PATCH
    );
};

const fn parse_u32(digits: &str) -> u32 {
    let bytes = digits.as_bytes();
    let mut value = 0;
    let mut i = 0;
    while i < bytes.len() {
        assert!(bytes[i].is_ascii_digit(), "version part is not a number");
        value = value * 10 + (bytes[i] - b'0') as u32;
        i += 1;
    }
    value
}

static VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => panic!("the package version holds a NUL byte"),
    };

/// The version of the library actually linked, as `"MAJOR.MINOR.PATCH"`: a
/// static string, never NULL, never to be freed. Compare it with the
/// `QT_VERSION_*` macros to catch a header and a library that do not match.
#[no_mangle]
pub extern "C" fn qt_version() -> *const c_char {
    guard(|| VERSION.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_string_matches_the_macros() {
        let linked = unsafe { CStr::from_ptr(qt_version()) }.to_str().unwrap();
        let from_macros = format!("{QT_VERSION_MAJOR}.{QT_VERSION_MINOR}.{QT_VERSION_PATCH}");
        assert_eq!(linked, from_macros);
        assert_eq!(linked, env!("CARGO_PKG_VERSION"));
    }
}
