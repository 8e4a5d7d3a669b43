//! Gives the shared library a soname, as a C library has: `libflatquad.so.0.1`
//! while the version is 0.x (every 0.x minor version may break the ABI), then
//! `libflatquad.so.MAJOR`. `make install` puts the matching symlinks in place.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" || os == "android" || os.ends_with("bsd") {
        let major = env!("CARGO_PKG_VERSION_MAJOR");
        let minor = env!("CARGO_PKG_VERSION_MINOR");
        let soversion = if major == "0" {
            format!("0.{minor}")
        } else {
            major.to_string()
        };
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libflatquad.so.{soversion}");
    }
}
