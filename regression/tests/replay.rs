//! Replays every regression case, and every committed seed through its target's oracle, each
//! case as its own named test and each in its own child process: a case that aborts the
//! process (a stack overflow, an allocation failure) fails alone and the others still run.
//!
//! `HARDPACK_CASE=NAME cargo test -p hardpack-regression` replays only the cases and seeds
//! whose name or path contains NAME; libtest filters (`cargo test -p hardpack-regression --
//! case::msgpackr`) work too.

use std::path::{Path, PathBuf};
use std::process::Command;

use hardpack_harness::alloc_meter::CountingAlloc;
use hardpack_harness::targets::{self, TARGETS};
use hardpack_regression::{cases_dir, load_cases, replay};
use libtest_mimic::{Arguments, Failed, Trial};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Set in a child process: what it replays (`case:NAME` or `seeds:TARGET`).
const CHILD_ENV: &str = "HARDPACK_REPLAY_CHILD";
/// The narrowing filter users set.
const FILTER_ENV: &str = "HARDPACK_CASE";
/// The child replays on a thread with this much stack: debug builds of the peers the targets
/// compare with (rmpv) recurse with large frames up to their own depth limits.
const REPLAY_STACK: usize = 256 << 20;

fn main() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        std::process::exit(run_child(&spec));
    }
    let args = Arguments::from_args();
    let filter = std::env::var(FILTER_ENV).unwrap_or_default();
    let cases = load_cases(&cases_dir()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!cases.is_empty(), "no cases in {}", cases_dir().display());
    let mut trials: Vec<Trial> = cases
        .iter()
        .filter(|c| c.name.contains(&filter))
        .map(|c| {
            let spec = format!("case:{}", c.name);
            Trial::test(format!("case::{}", c.name), move || in_child(&spec))
        })
        .collect();
    for target in TARGETS {
        let seeds = seeds_of(target.name, &filter);
        if !seeds.is_empty() {
            let spec = format!("seeds:{}", target.name);
            trials.push(Trial::test(format!("seeds::{}", target.name), move || {
                in_child(&spec)
            }));
        }
    }
    if !filter.is_empty() && trials.is_empty() {
        eprintln!("no case or seed matches {FILTER_ENV}={filter:?}");
        std::process::exit(1);
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Runs one replay in a child process; a failure carries its message, or how it died.
fn in_child(spec: &str) -> Result<(), Failed> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .env(CHILD_ENV, spec)
        .output()
        .map_err(|e| format!("starting the replay process: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let how = match out.status.code() {
        Some(code) => format!("exit status {code}"),
        None => {
            use std::os::unix::process::ExitStatusExt;
            format!(
                "the replay process died of signal {} (a stack overflow, an abort or an \
                 allocation failure)",
                out.status.signal().unwrap_or(0)
            )
        }
    };
    Err(format!("{how}\n{stderr}").into())
}

/// The child's side: replays and returns the exit status (0 when everything held).
fn run_child(spec: &str) -> i32 {
    let spec = spec.to_string();
    let worker = std::thread::Builder::new()
        .stack_size(REPLAY_STACK)
        .spawn(move || match spec.split_once(':') {
            Some(("case", name)) => replay_case(name),
            Some(("seeds", target)) => replay_seeds(target),
            _ => Err(format!("unknown replay {spec:?}")),
        })
        .expect("spawn the replay thread");
    match worker.join() {
        Ok(Ok(())) => 0,
        Ok(Err(message)) => {
            eprintln!("{message}");
            1
        }
        Err(_) => 1,
    }
}

fn replay_case(name: &str) -> Result<(), String> {
    let cases = load_cases(&cases_dir())?;
    let case = cases
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| format!("no case {name}"))?;
    replay(case).map(drop).map_err(|m| m.to_string())
}

fn replay_seeds(name: &str) -> Result<(), String> {
    let target = targets::target(name).ok_or_else(|| format!("no target {name}"))?;
    let filter = std::env::var(FILTER_ENV).unwrap_or_default();
    let mut failures = Vec::new();
    let seeds = seeds_of(name, &filter);
    for file in &seeds {
        let data = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let run = target.run;
        // The panic message goes to stderr (the default hook); the file is named below.
        if std::panic::catch_unwind(|| run(&data)).is_err() {
            failures.push(format!(
                "{}: the {name} oracle failed (replay it: hardpack repro --target {name} {})",
                file.display(),
                file.display()
            ));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} seeds failed:\n{}",
            failures.len(),
            seeds.len(),
            failures.join("\n")
        ))
    }
}

/// The seeds of a target whose path contains `filter`, sorted: the committed ones
/// (`corpus/TARGET`, its `found/` included) and what fuzzing found and keeps in the store
/// (`fuzz/store/corpus/TARGET`, or `HARDPACK_CORPUS_STORE`'s, as `scripts/fuzz-lib.sh` says).
fn seeds_of(target: &str, filter: &str) -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let store = std::env::var_os("HARDPACK_CORPUS_STORE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("fuzz/store"));
    let mut files = Vec::new();
    let mut dirs = vec![
        repo.join("corpus").join(target),
        store.join("corpus").join(target),
    ];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.to_string_lossy().contains(filter) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
