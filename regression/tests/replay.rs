//! Replays every regression case, and every committed seed through its target's oracle.
//! `HARDPACK_CASE=NAME cargo test -p hardpack-regression` replays only the cases whose name
//! contains NAME.

use std::path::Path;

use hardpack_harness::alloc_meter::CountingAlloc;
use hardpack_harness::targets::TARGETS;
use hardpack_regression::{cases_dir, load_cases, replay};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn every_regression_case_has_its_expected_outcome() {
    let filter = std::env::var("HARDPACK_CASE").unwrap_or_default();
    let cases = load_cases(&cases_dir()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!cases.is_empty(), "no cases in {}", cases_dir().display());
    let mut failures = Vec::new();
    let mut replayed = 0;
    for case in cases.iter().filter(|c| c.name.contains(&filter)) {
        replayed += 1;
        if let Err(m) = replay(case) {
            failures.push(m.to_string());
        }
    }
    assert!(replayed > 0, "no case matches HARDPACK_CASE={filter:?}");
    assert!(
        failures.is_empty(),
        "{} of {replayed} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("replayed {replayed} regression cases");
}

#[test]
fn every_committed_seed_passes_its_targets_oracle() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut replayed = 0;
    for target in TARGETS {
        let dir = corpus.join(target.name);
        let mut files = files_under(&dir);
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap();
            let result = std::panic::catch_unwind(|| (target.run)(&data));
            assert!(
                result.is_ok(),
                "{}: the {} oracle failed",
                file.display(),
                target.name
            );
            replayed += 1;
        }
    }
    assert!(replayed > 500, "only {replayed} seeds found");
}

/// Every file below `dir` (the seeds, and what the nightly job merged into `found/`).
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}
