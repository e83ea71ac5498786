//! The scripts a new user runs first refuse bad arguments with a usage error (exit 2) before
//! they install or build anything, and say how to use them.

use std::path::Path;
use std::process::{Command, Output};

fn script(name: &str, args: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    Command::new("bash")
        .arg(root.join("scripts").join(name))
        .args(args)
        .current_dir(&root)
        .output()
        .unwrap()
}

#[test]
fn fuzz_nightly_refuses_bad_arguments_with_exit_2() {
    for args in [
        &["--minutes", "abc"][..],
        &["--minutes", "0"],
        &["--minutes", "-3"],
        &["--minutes"],
        &["--jobs", "0"],
        &["--engines", "honggfuzz"],
        &["--frobnicate"],
    ] {
        let out = script("fuzz-nightly", args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("see --help"), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("setup:"),
            "{args:?}: setup ran before the arguments were checked"
        );
    }
}

#[test]
fn the_scripts_explain_themselves() {
    for name in ["fuzz-nightly", "fuzz-smoke"] {
        let out = script(name, &["--help"]);
        assert_eq!(out.status.code(), Some(0), "{name} --help");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains(&format!("scripts/{name}")), "{name}: {help}");
    }
    assert_eq!(script("fuzz-smoke", &["soon"]).status.code(), Some(2));
}

/// Every workspace built on its own (the fuzz crates, the AFL mutator, the example's fuzz
/// crate) has a lockfile that matches its manifests: a test or nightly run that builds it
/// must not leave the checkout changed.
#[test]
fn every_lockfile_matches_its_manifests() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in [
        ".",
        "fuzz",
        "fuzz/afl",
        "fuzz/afl-mutator",
        "check/example/fuzz",
    ] {
        let out = std::process::Command::new(env!("CARGO"))
            .args(["metadata", "--format-version", "1", "--locked"])
            .current_dir(repo.join(dir))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{dir}/Cargo.lock is out of date with its manifests:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
