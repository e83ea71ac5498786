//! `hardpack audit` and `repro --compare` end to end, on committed payloads.

use std::path::Path;
use std::process::Command;

fn hardpack(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A path in the temporary directory for one test's output, removed (file or folder) when
/// the test ends.
struct Temp(String);

impl std::ops::Deref for Temp {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<Path> for Temp {
    fn as_ref(&self) -> &Path {
        Path::new(&self.0)
    }
}

impl std::fmt::Display for Temp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp(name: &str) -> Temp {
    Temp(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("hardpack-audit-test-{}-{name}", std::process::id()))
            .display()
            .to_string(),
    )
}

#[test]
fn auditing_the_regression_cases_is_clean_and_within_budget() {
    let json_path = temp("regression.json");
    let (code, table) = hardpack(&["audit", "--json", &json_path, "regression/cases"]);
    assert_eq!(code, 0, "{table}");
    assert!(table.contains("0 failed"), "{table}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert!(rows.len() >= 11, "{} rows", rows.len());
    let budget = report["limits"]["max_alloc_bytes"].as_u64().unwrap();
    for row in rows {
        assert_ne!(row["status"], "crashed", "{row}");
        assert!(row["peak_heap_bytes"].as_u64().unwrap() <= budget, "{row}");
    }
    // The 5-byte claims allocate nothing at all.
    let c1013 = rows
        .iter()
        .find(|r| r["path"].as_str().unwrap().contains("msgpack-c-1013"))
        .unwrap();
    assert_eq!(c1013["peak_heap_bytes"], 0, "{c1013}");
    assert_eq!(c1013["detail"], "limit_exceeded (max_array_len)");
}

#[test]
fn a_budget_sweep_keeps_every_peak_under_its_budget_and_finds_the_flip_point() {
    let json_path = temp("sweep.json");
    let html_path = temp("sweep.html");
    // 100,000 empty arrays in an array32 (the corpus keeps only small amplification seeds).
    let amp = temp("amp-100k-empty-arrays");
    let mut payload = vec![0xdd, 0x00, 0x01, 0x86, 0xa0];
    payload.extend(std::iter::repeat_n(0x90, 100_000));
    std::fs::write(&amp, payload).unwrap();
    let (code, out) = hardpack(&[
        "audit",
        "--sweep",
        "max_alloc_bytes=1KiB..8MiB",
        "--json",
        &json_path,
        "--html",
        &html_path,
        &amp,
        "corpus/decode/valid-document",
    ]);
    assert_eq!(code, 0, "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 * 14, "1KiB..8MiB doubling is 14 values");
    for row in rows {
        let (peak, budget) = (
            row["peak_heap_bytes"].as_u64().unwrap(),
            row["limit_value"].as_u64().unwrap(),
        );
        assert!(peak <= budget, "{row}");
    }
    // 100,000 empty arrays need 2.4 MB of Values: refused at 2 MiB, decoded from 4 MiB on.
    let decoded_at = |budget: u64| {
        rows.iter()
            .find(|r| {
                r["path"].as_str().unwrap().contains("amp-100k") && r["limit_value"] == budget
            })
            .map(|r| r["status"] == "decoded")
            .unwrap()
    };
    assert!(!decoded_at(2 << 20) && decoded_at(4 << 20));
    assert!(out.contains(&format!("4194304  {amp}")), "{out}");
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert_eq!(
        html.matches("<svg").count(),
        2,
        "a sweep chart and the peak/input chart"
    );
    assert!(html.contains("Sweep over max_alloc_bytes"));
}

#[test]
fn compare_shows_hardpack_beside_rmpv_and_rmp_serde() {
    let (code, out) = hardpack(&[
        "repro",
        "--compare",
        "regression/cases/rmp-151-str32-preallocation.bin",
    ]);
    assert_eq!(code, 1, "{out}");
    for decoder in ["hardpack", "rmpv ", "rmpv-ref", "rmp-serde"] {
        assert!(
            out.lines().any(|l| l.starts_with(decoder)),
            "{decoder} missing:\n{out}"
        );
    }
    assert!(out.contains("exceeds max_str_len"), "{out}");
}
