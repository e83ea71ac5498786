//! Every target in `TARGETS` has its libFuzzer and AFL wrapper, its `[[bin]]` and its seed
//! corpus, and nothing else does: the list in `targets.rs` is the only one to edit.

use std::collections::BTreeSet;
use std::path::Path;

use hardpack_harness::TARGETS;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn stems(dir: &str, ext: &str) -> BTreeSet<String> {
    std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == ext).then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect()
}

fn names() -> BTreeSet<String> {
    TARGETS.iter().map(|t| t.name.to_string()).collect()
}

#[test]
fn every_target_has_both_wrappers_and_nothing_else_does() {
    assert_eq!(
        stems("fuzz/fuzz_targets", "rs"),
        names(),
        "fuzz/fuzz_targets/"
    );
    assert_eq!(
        stems("fuzz/afl/src/bin", "rs"),
        names(),
        "fuzz/afl/src/bin/"
    );
    for t in TARGETS {
        let libfuzzer =
            std::fs::read_to_string(root().join(format!("fuzz/fuzz_targets/{}.rs", t.name)))
                .unwrap();
        assert!(
            libfuzzer.contains(&format!("fuzz_entry!(libfuzzer, {});", t.name)),
            "fuzz/fuzz_targets/{}.rs does not call its target through fuzz_entry!",
            t.name
        );
        let afl = std::fs::read_to_string(root().join(format!("fuzz/afl/src/bin/{}.rs", t.name)))
            .unwrap();
        assert!(
            afl.contains(&format!("fuzz_entry!(afl, {});", t.name)),
            "fuzz/afl/src/bin/{}.rs does not call its target through fuzz_entry!",
            t.name
        );
    }
}

#[test]
fn every_target_has_a_cargo_fuzz_bin_and_seeds() {
    let manifest = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).unwrap();
    let bins: BTreeSet<String> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|name| *name != "hardpack-fuzz")
        .map(str::to_owned)
        .collect();
    assert_eq!(bins, names(), "[[bin]] entries of fuzz/Cargo.toml");
    for t in TARGETS {
        let seeds = root().join("corpus").join(t.name);
        let count = std::fs::read_dir(&seeds)
            .unwrap_or_else(|e| panic!("{}: {e}", seeds.display()))
            .count();
        assert!(count > 0, "no seeds in {}", seeds.display());
    }
}

#[test]
fn the_harness_declares_the_workspace_rust_version() {
    // The harness is also built from the fuzz/ and fuzz/afl/ workspaces, so it cannot inherit
    // rust-version from the main workspace: its literal must follow [workspace.package].
    let declared = |path: &str| {
        std::fs::read_to_string(root().join(path))
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("rust-version = ").map(str::to_owned))
    };
    let workspace = declared("Cargo.toml").expect("rust-version in [workspace.package]");
    assert_eq!(declared("fuzz/harness/Cargo.toml"), Some(workspace));
}
