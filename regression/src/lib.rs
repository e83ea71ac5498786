//! Regression cases: a payload file `cases/NAME.bin` and its metadata `cases/NAME.toml`.
//! `cargo test` replays each through its target's harness (the function the fuzzers call)
//! under the allocation meter and checks the expected outcome.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hardpack_harness::alloc_meter;
use hardpack_harness::targets::{self, Outcome};
use serde::Deserialize;

/// How a case was found.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FoundBy {
    /// libFuzzer (cargo fuzz)
    Libfuzzer,
    /// AFL++
    Afl,
    /// a proptest failure
    Proptest,
    /// a public report, here or against another implementation
    Reported,
    /// a committed seed, when a stronger oracle replayed it under `cargo test`
    Corpus,
}

/// What the codec must do with the payload now.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// It decodes.
    Decoded,
    /// It is refused.
    Rejected,
    /// A structured target's input (no MessagePack) built a value whose checks hold.
    Checked,
}

/// The metadata of one case (`cases/NAME.toml`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// The target whose harness replays it.
    pub target: String,
    /// How it was found.
    pub found_by: FoundBy,
    /// When (YYYY-MM-DD).
    pub date: String,
    /// What went wrong, in one line.
    pub summary: String,
    /// The public report, if there is one.
    pub link: Option<String>,
    /// The expected outcome now.
    pub expect: Expect,
    /// With `expect = "rejected"`: the error kind (`limit_exceeded`, `unexpected_end`, ...).
    pub error_kind: Option<String>,
    /// With `error_kind = "limit_exceeded"`: which limit (`max_depth`, ...).
    pub limit: Option<String>,
    /// Most heap bytes the replay may hold at peak.
    pub max_peak_bytes: Option<usize>,
    /// The expected refusal is reached through `size_of` charges to `max_alloc_bytes`, which
    /// are smaller on a 32-bit target: there the payload gets further and may be refused by
    /// another check first. On such a target the case must still be refused, by any error.
    #[serde(default)]
    pub verdict_follows_size_of: bool,
    /// For a case reported against another library: the versions it was reported on and
    /// fixed in, and the adapters (`adapters/NAME`) that run each, so that
    /// `scripts/reported-cases` shows it reproduces where it was reported.
    pub reported: Option<Reported>,
}

/// A case reported against another library, and where it reproduces.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reported {
    /// The library, as its package registry names it.
    pub library: String,
    /// The version the report was made against (or one it affects, when the report names
    /// none).
    pub affected: String,
    /// The adapter that decodes with that version; none only with `cannot_run`.
    pub affected_adapter: Option<String>,
    /// What that version does with the payload (`crash`, `oom`, `timeout`).
    pub affected_outcome: Option<String>,
    /// A version with the fix, when there is one.
    pub fixed: Option<String>,
    /// The adapter that decodes with the fixed version.
    pub fixed_adapter: Option<String>,
    /// What the fixed version does with the payload (`refused`, or `decoded`).
    pub fixed_outcome: Option<String>,
    /// The memory cap of each run (`--memory`), when the outcome is the report's only under
    /// a cap smaller than the auditor's default: a 2.9 GB allocation that succeeds on a large
    /// machine is a kill in a 1 GiB container.
    pub memory: Option<String>,
    /// Where the MessagePack document the library decodes starts in the payload: after the
    /// limits header a structured target's harness reads first.
    #[serde(default)]
    pub message_starts_at: usize,
    /// Why no adapter runs it, when none does.
    pub cannot_run: Option<String>,
}

impl Reported {
    /// The adapters named exist under `adapters_dir`, the fixed version's three fields go
    /// together, the outcomes are ones `audit --exec` gives, and a case that names no
    /// affected adapter says why it cannot be run.
    pub fn check(&self, adapters_dir: &Path) -> Result<(), String> {
        const OUTCOMES: [&str; 5] = ["decoded", "refused", "crash", "oom", "timeout"];
        let fixed = [&self.fixed, &self.fixed_adapter, &self.fixed_outcome];
        if fixed.iter().any(|f| f.is_some()) && fixed.iter().any(|f| f.is_none()) {
            return Err("fixed, fixed_adapter and fixed_outcome go together".into());
        }
        match (
            &self.affected_adapter,
            &self.affected_outcome,
            &self.cannot_run,
        ) {
            (Some(_), Some(_), None) | (None, None, Some(_)) => {}
            _ => {
                return Err(
                    "either affected_adapter and affected_outcome, or cannot_run \
                            (why no adapter runs it)"
                        .into(),
                )
            }
        }
        if self.cannot_run.is_some() && self.fixed_adapter.is_some() {
            return Err("cannot_run with a fixed_adapter: run it, or say why neither runs".into());
        }
        let adapters = self.affected_adapter.iter().chain(&self.fixed_adapter);
        for adapter in adapters {
            if !adapters_dir.join(adapter).join("run").is_file() {
                return Err(format!("no adapter {adapter} under adapters/"));
            }
        }
        let outcomes = self.affected_outcome.iter().chain(&self.fixed_outcome);
        for outcome in outcomes {
            if !OUTCOMES.contains(&outcome.as_str()) {
                return Err(format!("outcome {outcome:?} is none of {OUTCOMES:?}"));
            }
        }
        Ok(())
    }
}

/// One case.
#[derive(Clone, Debug)]
pub struct Case {
    /// File stem shared by the payload and the metadata.
    pub name: String,
    /// The payload file.
    pub payload_path: PathBuf,
    /// Its metadata.
    pub meta: Metadata,
}

/// Where the committed cases live.
pub fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}

/// Where the adapters that run other libraries live (`adapters/` at the top of the
/// repository).
pub fn adapters_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters")
}

/// Loads every case in `dir`, sorted by name. A `.bin` without `.toml` (or the reverse) is an
/// error, as is metadata that does not parse.
pub fn load_cases(dir: &Path) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let ext = path.extension().and_then(|e| e.to_str());
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        match ext {
            Some("toml") => {
                let payload_path = path.with_extension("bin");
                if !payload_path.exists() {
                    return Err(format!(
                        "{}: no payload {}",
                        path.display(),
                        payload_path.display()
                    ));
                }
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let meta: Metadata =
                    toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
                let Some(target) = targets::target(&meta.target) else {
                    return Err(format!(
                        "{}: unknown target {:?}",
                        path.display(),
                        meta.target
                    ));
                };
                match (&meta.reported, &meta.found_by) {
                    (Some(reported), FoundBy::Reported) => reported
                        .check(&adapters_dir())
                        .map_err(|e| format!("{}: [reported]: {e}", path.display()))?,
                    (None, FoundBy::Reported) => {
                        return Err(format!(
                            "{}: found_by = \"reported\" needs a [reported] table: the \
                             library, the affected version and the adapter that runs it \
                             (or why none can)",
                            path.display()
                        ))
                    }
                    (Some(_), _) => {
                        return Err(format!(
                            "{}: a [reported] table on a case not found_by = \"reported\"",
                            path.display()
                        ))
                    }
                    (None, _) => {}
                }
                // A structured target decodes no input: only `checked` says something of it.
                if target.is_structured() != (meta.expect == Expect::Checked) {
                    return Err(format!(
                        "{}: expect = {:?} does not fit target {} (structured targets take \
                         \"checked\", the others \"decoded\" or \"rejected\")",
                        path.display(),
                        meta.expect,
                        meta.target
                    ));
                }
                cases.push(Case {
                    name,
                    payload_path,
                    meta,
                });
            }
            Some("bin") if !path.with_extension("toml").exists() => {
                return Err(format!(
                    "{}: no metadata {}",
                    path.display(),
                    path.with_extension("toml").display()
                ));
            }
            _ => {}
        }
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

/// A replay that did not go as the case says.
#[derive(Debug)]
pub struct Mismatch {
    /// The case file.
    pub case: PathBuf,
    /// What the metadata expects.
    pub expected: String,
    /// What happened.
    pub happened: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: expected {}, but {}",
            self.case.display(),
            self.expected,
            self.happened
        )
    }
}

/// Generous: every case is refused or decoded in milliseconds; this only catches a hang.
pub const TIME_BOUND: Duration = Duration::from_secs(20);

fn expected_text(meta: &Metadata) -> String {
    let mut s = match meta.expect {
        Expect::Decoded => "decoded".to_string(),
        Expect::Rejected => "rejected".to_string(),
        Expect::Checked => "checked".to_string(),
    };
    if let Some(kind) = &meta.error_kind {
        s += &format!(": {kind}");
    }
    if let Some(limit) = &meta.limit {
        s += &format!(" ({limit})");
    }
    if let Some(peak) = meta.max_peak_bytes {
        s += &format!(", peak <= {peak} bytes");
    }
    s
}

/// Replays one case through its target. Needs `alloc_meter::CountingAlloc` installed when
/// the case sets `max_peak_bytes`.
pub fn replay(case: &Case) -> Result<Outcome, Mismatch> {
    let mismatch = |happened: String| Mismatch {
        case: case.payload_path.clone(),
        expected: expected_text(&case.meta),
        happened,
    };
    let payload = std::fs::read(&case.payload_path)
        .map_err(|e| mismatch(format!("it could not be read: {e}")))?;
    let target = targets::target(&case.meta.target)
        .ok_or_else(|| mismatch("its target does not exist".into()))?;
    let run = target.run;
    let (result, cost) = alloc_meter::measure(|| std::panic::catch_unwind(|| run(&payload)));
    let outcome = result.map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        mismatch(format!(
            "the {} harness panicked: {message}",
            case.meta.target
        ))
    })?;
    if cost.elapsed > TIME_BOUND {
        return Err(mismatch(format!("it took {:?}", cost.elapsed)));
    }
    let ok = match (&outcome, case.meta.expect) {
        (Outcome::Decoded { .. }, Expect::Decoded) | (Outcome::Checked, Expect::Checked) => true,
        (Outcome::Rejected(_), Expect::Rejected)
            if case.meta.verdict_follows_size_of && cfg!(not(target_pointer_width = "64")) =>
        {
            true
        }
        (Outcome::Rejected(e), Expect::Rejected) => {
            case.meta
                .error_kind
                .as_deref()
                .is_none_or(|k| k == e.kind_name())
                && case
                    .meta
                    .limit
                    .as_deref()
                    .is_none_or(|l| Some(l) == outcome.limit_name())
        }
        _ => false,
    };
    if !ok {
        return Err(mismatch(format!("it was {outcome}")));
    }
    if let Some(max) = case.meta.max_peak_bytes {
        if !alloc_meter::is_installed() {
            return Err(mismatch("the allocation meter is not installed".into()));
        }
        if cost.peak_bytes > max {
            return Err(mismatch(format!(
                "it held {} bytes at peak",
                cost.peak_bytes
            )));
        }
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reported(text: &str) -> Reported {
        toml::from_str(text).expect("a [reported] table")
    }

    #[test]
    fn a_reported_case_runs_on_an_adapter_or_says_why_not() {
        let adapters = adapters_dir();
        let runs = "library = \"rmpv\"\naffected = \"0.4.1\"\n\
                    affected_adapter = \"rust-rmpv-0.4.1\"\naffected_outcome = \"oom\"\n";
        assert_eq!(reported(runs).check(&adapters), Ok(()));
        let says_why = "library = \"serde\"\naffected = \"0.9\"\ncannot_run = \"not built\"\n";
        assert_eq!(reported(says_why).check(&adapters), Ok(()));

        let neither = "library = \"serde\"\naffected = \"0.9\"\n";
        assert!(reported(neither).check(&adapters).is_err());
        let both = format!("{runs}cannot_run = \"not built\"\n");
        assert!(reported(&both).check(&adapters).is_err());
        let half = "library = \"rmpv\"\naffected = \"0.4.1\"\naffected_adapter = \"rust-rmpv\"\n";
        assert!(reported(half).check(&adapters).is_err());
        let missing = runs.replace("rust-rmpv-0.4.1", "rust-rmpv-9.9.9");
        assert!(reported(&missing)
            .check(&adapters)
            .unwrap_err()
            .contains("no adapter"));
        let bad_outcome = runs.replace("\"oom\"", "\"slow\"");
        assert!(reported(&bad_outcome).check(&adapters).is_err());
    }
}
