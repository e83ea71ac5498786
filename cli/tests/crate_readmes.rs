//! Each published crate's README (its page in the registry) is its crate documentation, so
//! the two say the same thing. `HARDPACK_BLESS=1 cargo test -p hardpack-cli --test
//! crate_readmes` rewrites them.

use std::path::Path;

/// The README that `src/lib.rs`'s `//!` documentation renders to: the lines without their
/// prefix, code blocks marked as Rust, and the lines rustdoc hides from a reader dropped.
fn readme_from_crate_docs(name: &str, lib_rs: &str) -> String {
    let mut out = format!("# {name}\n\n");
    let mut in_code = false;
    for line in lib_rs.lines().take_while(|l| l.starts_with("//!")) {
        let line = line.strip_prefix("//!").unwrap_or(line);
        let line = line.strip_prefix(' ').unwrap_or(line);
        if line.starts_with("```") {
            in_code = !in_code;
            out.push_str(if in_code && line == "```" {
                "```rust"
            } else {
                line
            });
            out.push('\n');
            continue;
        }
        if in_code && (line == "#" || line.starts_with("# ")) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn check_readme(name: &str, dir: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let lib_rs = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    let expected = readme_from_crate_docs(name, &lib_rs);
    let readme = dir.join("README.md");
    if std::env::var_os("HARDPACK_BLESS").is_some() {
        std::fs::write(&readme, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&readme).unwrap_or_default();
    assert!(
        actual == expected,
        "{} differs from its crate documentation; rewrite it with HARDPACK_BLESS=1 cargo test \
         -p hardpack-cli --test crate_readmes",
        readme.display()
    );
}

#[test]
fn the_codec_readme_is_its_crate_documentation() {
    check_readme("hardpack", "codec");
}

#[test]
fn the_kit_readme_is_its_crate_documentation() {
    check_readme("hardpack-check", "check");
}
