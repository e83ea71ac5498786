//! The crate's README (its page in the registry) is its crate documentation, so the two say
//! the same thing. `HARDPACK_BLESS=1 cargo test -p hardpack --test readme` rewrites it.

use std::path::Path;

/// The README that `src/lib.rs`'s `//!` documentation renders to: the lines without their
/// prefix, code blocks marked as Rust, and the lines rustdoc hides from a reader dropped.
fn readme_from_crate_docs(lib_rs: &str) -> String {
    let mut out = String::from("# hardpack\n\n");
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

#[test]
fn the_readme_is_the_crate_documentation() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib_rs = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    let expected = readme_from_crate_docs(&lib_rs);
    let readme = dir.join("README.md");
    if std::env::var_os("HARDPACK_BLESS").is_some() {
        std::fs::write(&readme, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&readme).unwrap_or_default();
    assert!(
        actual == expected,
        "codec/README.md differs from src/lib.rs's crate documentation; \
         rewrite it with HARDPACK_BLESS=1 cargo test -p hardpack --test readme"
    );
}
