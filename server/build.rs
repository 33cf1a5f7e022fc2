//! Points the embedded web app at `web/dist`, or at an empty folder when the web app has not been built, so the Rust
//! crates build and test on their own (the server then warns that there is no site to serve). Also tells cargo to
//! rebuild when a migration is added: a release build embeds the folder's files (`store::MigrationFiles`), and a new
//! file in it is not one the compiler read, so without this an incremental build kept the old schema.

use std::path::PathBuf;

fn main() {
    let manifest =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("migrations").display()
    );
    let dist = manifest.join("../web/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    println!("cargo:rerun-if-changed={}", dist.join("assets").display());
    let folder = if dist.join("index.html").is_file() {
        dist
    } else {
        let empty = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
            .join("no-web-dist");
        std::fs::create_dir_all(&empty).expect("creating an empty folder in OUT_DIR");
        println!(
            "cargo:warning=web/dist is not built: the binary will serve no pages (run `make build`)"
        );
        empty
    };
    println!("cargo:rustc-env=KILAT_WEB_DIST={}", folder.display());
}
