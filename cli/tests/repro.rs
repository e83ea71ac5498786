//! `hardpack repro` on the attack payloads: the right error, a small peak, the right exit code.

use std::process::Command;

fn repro(payload: &[u8], extra: &[&str]) -> (i32, serde_json::Value) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardpack-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("payload-{:016x}", {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (payload, extra).hash(&mut h);
        h.finish()
    }));
    std::fs::write(&file, payload).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .arg("repro")
        .arg("--json")
        .args(extra)
        .arg(&file)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap(), json)
}

const MIB: u64 = 1 << 20;

#[test]
fn attack_payloads_are_rejected_with_a_small_peak() {
    let mut deep = vec![0x91u8; 10_000_000];
    deep.push(0xc0);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "array32 claim",
            vec![0xdd, 0xff, 0xff, 0xff, 0xff],
            "max_array_len",
        ),
        (
            "map32 claim",
            vec![0xdf, 0xff, 0xff, 0xff, 0xff],
            "max_map_len",
        ),
        (
            "str32 claim",
            vec![0xdb, 0xff, 0xff, 0xff, 0xff],
            "max_str_len",
        ),
        (
            "bin32 claim",
            vec![0xc6, 0xff, 0xff, 0xff, 0xff],
            "max_bin_len",
        ),
        (
            "ext32 claim",
            vec![0xc9, 0xff, 0xff, 0xff, 0xff, 0x01],
            "max_ext_len",
        ),
        ("10M deep", deep, "max_depth"),
    ];
    for (name, payload, limit) in cases {
        let (code, report) = repro(&payload, &[]);
        assert_eq!(code, 1, "{name}: {report}");
        assert_eq!(report["outcome"]["status"], "rejected", "{name}");
        assert_eq!(report["outcome"]["limit"], limit, "{name}");
        let peak = report["peak_heap_bytes"].as_u64().unwrap();
        assert!(peak < MIB, "{name}: peak {peak}");
        assert!(report["allocations"].as_u64().is_some());
    }
}

#[test]
fn reserved_marker_and_decoded_payloads() {
    let (code, report) = repro(&[0xc1], &[]);
    assert_eq!(code, 1);
    assert_eq!(report["outcome"]["kind"], "reserved_marker");
    assert_eq!(report["outcome"]["offset"], 0);

    let (code, report) = repro(&[0x92, 0x01, 0x91, 0xc0], &["--max-depth", "2"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["outcome"]["max_depth"], 2);
    assert_eq!(report["outcome"]["values"], 4);
    assert_eq!(report["limits"]["max_depth"], 2);

    let (code, report) = repro(&[0x92, 0x01, 0x91, 0xc0], &["--max-depth", "1"]);
    assert_eq!(code, 1);
    assert_eq!(
        report["outcome"]["message"],
        "nesting depth 2 exceeds max_depth 1 at byte 2, depth 1"
    );
}

#[test]
fn usage_and_io_errors_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .args(["repro", "/definitely/not/here"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/definitely/not/here"));
    let out = Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .args(["repro", "--max-depth", "lots", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn target_flag_runs_the_harness_oracle() {
    let (code, report) = repro(&[0x92, 0x01, 0x02], &["--target", "decode"]);
    assert_eq!(code, 0);
    assert_eq!(report["target"]["oracle"], "held");
    let (code, report) = repro(&[0xc1], &["--target", "differential_rmpv"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["target"]["detail"], "rejected: reserved_marker");
    // decode_limits with a 1-byte allocation budget (header bytes 6-7 = 0): the decode of a
    // non-empty array is refused, and the oracle holds.
    let (code, report) = repro(
        &[1, 1, 1, 1, 1, 1, 0, 0, 0x91, 0x01],
        &["--target", "decode_limits"],
    );
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["target"]["oracle"], "held", "{report}");
    // A structured target's input is no payload: its oracle holding is a clean run (it
    // exited 1, "rejected", before).
    for target in ["roundtrip_structured", "encode_deep"] {
        let (code, report) = repro(&[0x0a, 0x00, 0x00, 0x00, 0x03], &["--target", target]);
        assert_eq!(code, 0, "{target}: {report}");
        assert_eq!(report["target"]["oracle"], "held", "{report}");
        assert_eq!(report["outcome"]["status"], "checked", "{report}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .args(["repro", "--target", "nope", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
