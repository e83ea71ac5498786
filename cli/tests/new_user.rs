//! The defects a new user hit, each as it was met: a command line, and what it must do.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn hardpack(args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that refuses its arguments first may not read its input at all.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hardpack-new-user-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn stdout_json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[test]
fn hex_input_that_is_not_ascii_is_a_usage_error_not_a_panic() {
    for text in ["é1", "9é", "日本", "dd ff\u{2013}ff"] {
        let out = hardpack(&["repro", "--hex", "-"], text.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{text:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("not a hex digit"), "{text:?}: {stderr}");
    }
}

#[test]
fn repro_json_with_compare_is_one_json_document() {
    let out = hardpack(
        &[
            "repro",
            "--json",
            "--compare",
            "regression/cases/rmp-151-str32-preallocation.bin",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let json = stdout_json(&out);
    let peers: Vec<&str> = json["compare"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["implementation"].as_str().unwrap())
        .collect();
    assert_eq!(peers, ["rmpv", "rmpv-ref", "rmp-serde", "rmp-serde-typed"]);
    assert_eq!(
        json["payload"],
        "regression/cases/rmp-151-str32-preallocation.bin"
    );
    // The numbers of a refusal are fields, not only words in the message.
    let outcome = &json["outcome"];
    assert_eq!(outcome["limit"], "max_str_len");
    assert_eq!(outcome["max"], 16 << 20);
    assert!(outcome["claimed"].as_u64().unwrap() > 16 << 20, "{outcome}");
}

#[test]
fn json_says_unlimited_and_needed_as_values() {
    let out = hardpack(
        &["repro", "--json", "--hex", "--max-depth", "max", "-"],
        b"93 01",
    );
    assert_eq!(out.status.code(), Some(1));
    let json = stdout_json(&out);
    assert_eq!(json["limits"]["max_depth"], "unlimited");
    assert_eq!(json["outcome"]["kind"], "unexpected_end");
    assert_eq!(json["outcome"]["needed"], 2);
}

#[test]
fn audit_json_to_stdout_is_one_json_document() {
    let out = hardpack(&["audit", "--json", "-", "regression/cases"], b"");
    assert_eq!(out.status.code(), Some(0));
    let json = stdout_json(&out);
    assert!(json["rows"].as_array().unwrap().len() > 10);
    assert_eq!(json["limits"]["max_depth"], 128);
    assert!(
        json["command"]
            .as_str()
            .unwrap()
            .starts_with("hardpack audit"),
        "no machine path in the command: {}",
        json["command"]
    );
    // The table still reaches the person, on stderr.
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 failed"));
}

#[test]
fn an_unreadable_entry_is_one_failed_row_and_the_audit_goes_on() {
    let dir = scratch("dangling");
    std::fs::write(dir.join("good.bin"), [0x91, 0x01]).unwrap();
    std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("dangling.bin")).unwrap();
    let out = hardpack(&["audit", "--json", "-", dir.to_str().unwrap()], b"");
    assert_eq!(
        out.status.code(),
        Some(1),
        "the unreadable entry fails the audit"
    );
    let json = stdout_json(&out);
    let rows = json["rows"].as_array().unwrap();
    let status = |name: &str| {
        rows.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(name))
            .map(|r| r["status"].as_str().unwrap().to_string())
    };
    assert_eq!(status("good.bin").as_deref(), Some("decoded"));
    assert_eq!(status("dangling.bin").as_deref(), Some("unreadable"));
}

#[test]
fn compare_from_stdin_is_refused_before_anything_is_decoded() {
    // Stdin holds a payload that would take a while to decode if it were read.
    let deep = vec![0x91u8; 1 << 20];
    let out = hardpack(&["repro", "--compare", "-"], &deep);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "nothing is reported before the refusal"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("--compare needs a file"));
}

#[test]
fn repro_target_reports_what_the_target_did() {
    // decode_limits reads its limits from the first 8 bytes: depth 1 here, so [[1]] is refused
    // by max_depth although the default limits would decode it.
    let dir = scratch("target");
    let file = dir.join("case.bin");
    std::fs::write(
        &file,
        [1, 255, 255, 255, 255, 255, 255, 255, 0x91, 0x91, 0x01],
    )
    .unwrap();
    let out = hardpack(
        &[
            "repro",
            "--json",
            "--target",
            "decode_limits",
            file.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let json = stdout_json(&out);
    assert_eq!(
        json["limits"]["max_depth"], 1,
        "the limits the target chose"
    );
    assert_eq!(json["outcome"]["limit"], "max_depth");
    assert_eq!(json["outcome"]["offset"], 1, "offset within the payload");
    assert_eq!(
        json["target"]["detail"],
        "rejected: limit_exceeded (max_depth)"
    );
    let text = hardpack(
        &["repro", "--target", "decode_limits", file.to_str().unwrap()],
        b"",
    );
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("max_depth 1,"), "{text}");
}

#[test]
fn repro_target_agrees_with_every_regression_case() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regression/cases");
    let mut checked = 0;
    for entry in std::fs::read_dir(&cases).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let meta = std::fs::read_to_string(&path).unwrap();
        let field = |name: &str| {
            meta.lines()
                .find_map(|l| l.strip_prefix(&format!("{name} = \"")))
                .map(|v| v.trim_end_matches('"').to_string())
        };
        let target = field("target").unwrap();
        let expect = field("expect").unwrap();
        let payload = path.with_extension("bin");
        let out = hardpack(
            &[
                "repro",
                "--json",
                "--target",
                &target,
                payload.to_str().unwrap(),
            ],
            b"",
        );
        let json = stdout_json(&out);
        let detail = json["target"]["detail"].as_str().unwrap();
        assert!(
            detail.starts_with(&expect),
            "{}: expected {expect}, the {target} target says {detail}",
            payload.display()
        );
        let code = if expect == "rejected" { 1 } else { 0 };
        assert_eq!(out.status.code(), Some(code), "{}", payload.display());
        checked += 1;
    }
    assert!(checked > 10);
}

#[test]
fn targets_lists_the_harness_targets() {
    let out = hardpack(&["targets"], b"");
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    let expected: Vec<&str> = hardpack_harness::TARGETS.iter().map(|t| t.name).collect();
    assert_eq!(names, expected);
    let json = stdout_json(&hardpack(&["targets", "--json"], b""));
    assert_eq!(json.as_array().unwrap().len(), expected.len());
}

#[test]
fn the_validate_surface_gives_the_owned_verdict_and_allocates_nothing() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regression/cases");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "bin") {
            continue;
        }
        let file = path.to_str().unwrap();
        let owned = hardpack(&["repro", "--json", file], b"");
        let valid = hardpack(&["repro", "--json", "--surface", "validate", file], b"");
        assert_eq!(owned.status.code(), valid.status.code(), "{file}");
        let (owned, valid) = (stdout_json(&owned), stdout_json(&valid));
        assert_eq!(valid["surface"], "validate");
        assert_eq!(valid["allocations"], 0, "{file}: {valid}");
        for field in ["kind", "limit", "offset", "depth", "message"] {
            assert_eq!(
                owned["outcome"][field], valid["outcome"][field],
                "{file}: {field}"
            );
        }
        checked += 1;
    }
    assert!(checked > 10);
}

#[test]
fn the_borrowed_surface_gives_the_owned_verdict_and_copies_no_payload() {
    every_case_gets_the_owned_verdict("borrowed");
    // A 1 MiB bin: the owned decode copies it, the borrowed one keeps a 24-byte tape item.
    let mut blob = vec![0xc6, 0x00, 0x10, 0x00, 0x00];
    blob.extend(std::iter::repeat_n(0xabu8, 1 << 20));
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardpack-blob-{}.bin", std::process::id()));
    std::fs::write(&file, &blob).unwrap();
    let file = file.to_str().unwrap();
    let owned = stdout_json(&hardpack(&["repro", "--json", file], b""));
    let borrowed = stdout_json(&hardpack(
        &["repro", "--json", "--surface", "borrowed", file],
        b"",
    ));
    std::fs::remove_file(file).unwrap();
    assert!(
        owned["peak_heap_bytes"].as_u64().unwrap() >= 1 << 20,
        "{owned}"
    );
    assert!(
        borrowed["peak_heap_bytes"].as_u64().unwrap() < 1024,
        "{borrowed}"
    );
}

#[test]
fn the_strict_surface_refuses_what_lenient_decoding_lets_through() {
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardpack-dup-{}.bin", std::process::id()));
    // {"a": 1, "a": 2}
    std::fs::write(&file, [0x82, 0xa1, b'a', 0x01, 0xa1, b'a', 0x02]).unwrap();
    let file = file.to_str().unwrap();
    let lenient = hardpack(&["repro", "--json", file], b"");
    let strict = hardpack(&["repro", "--json", "--surface", "strict", file], b"");
    let text = hardpack(&["repro", "--surface", "strict", file], b"");
    std::fs::remove_file(file).unwrap();
    assert_eq!(lenient.status.code(), Some(0));
    assert_eq!(strict.status.code(), Some(1));
    let report = stdout_json(&strict);
    assert_eq!(report["surface"], "strict");
    assert_eq!(report["outcome"]["kind"], "duplicate_key");
    assert_eq!(report["outcome"]["offset"], 4);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("surface:  strict"), "{text}");
    assert!(
        text.contains("strict: the map key at byte 4, depth 1 repeats the key at byte 1"),
        "{text}"
    );
}

#[test]
fn the_typed_surface_is_held_to_the_typed_decode_s_heap_bound() {
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardpack-typed-bound-{}", std::process::id()));
    std::fs::write(&file, [0x93, 0x01, 0x02, 0x03]).unwrap();
    let file = file.to_str().unwrap();
    let bound = |surface: &str| {
        let report = stdout_json(&hardpack(
            &[
                "repro",
                "--json",
                "--surface",
                surface,
                "--max-alloc-bytes",
                "1MiB",
                file,
            ],
            b"",
        ));
        report["heap_bound_bytes"].as_u64().unwrap()
    };
    let (owned, typed) = (bound("owned"), bound("typed"));
    std::fs::remove_file(file).unwrap();
    assert_eq!(owned, 1 << 20);
    // Twice the budget, and serde's 1 MiB reservation for each collection that can be open
    // (4 input bytes: at most 4, plus the top).
    assert_eq!(typed, (2 << 20) + 5 * (1 << 20));
}

#[test]
fn the_typed_surface_gives_the_owned_verdict() {
    every_case_gets_the_owned_verdict("typed");
}

/// Every regression case gets the same outcome through `surface` as through the owned
/// decode, but where either is refused by `max_alloc_bytes` (each surface charges what it
/// allocates itself).
fn every_case_gets_the_owned_verdict(surface: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regression/cases");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "bin") {
            continue;
        }
        let file = path.to_str().unwrap();
        let owned = stdout_json(&hardpack(&["repro", "--json", file], b""));
        let other = stdout_json(&hardpack(
            &["repro", "--json", "--surface", surface, file],
            b"",
        ));
        assert_eq!(other["surface"], surface);
        let by_budget = |r: &serde_json::Value| r["outcome"]["limit"] == "max_alloc_bytes";
        if by_budget(&owned) || by_budget(&other) {
            continue;
        }
        assert_eq!(owned["outcome"], other["outcome"], "{surface}: {file}");
        checked += 1;
    }
    assert!(checked > 10, "{surface}: only {checked} cases compared");
}

#[test]
fn the_stream_surface_feeds_values_back_to_back_and_refuses_huge_headers_early() {
    // Three values, fed one byte at a time: all streamed, and nothing waited on but the
    // value being read.
    let values = [
        &[0x92, 0x01, 0xa2, b'h', b'i'][..],
        &[0xc3],
        &[0xa3, 0xc3, 0xa9, b'!'],
    ]
    .concat();
    let out = hardpack(
        &["repro", "--surface", "stream", "--feed", "1", "--json", "-"],
        &values,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = stdout_json(&out);
    assert_eq!(report["outcome"]["status"], "streamed");
    assert_eq!(report["outcome"]["values"], 3);
    assert_eq!(report["stream"]["feed_bytes"], 1);
    assert_eq!(report["stream"]["bytes_consumed"], values.len());
    assert!(report["stream"]["peak_buffered_bytes"].as_u64().unwrap() < 5);
    // A 4 GiB str header alone: refused at the header, nothing held for its body.
    let out = hardpack(
        &["repro", "--surface", "stream", "--feed", "1", "--json", "-"],
        &[0x01, 0xdb, 0xff, 0xff, 0xff, 0xff],
    );
    assert_eq!(out.status.code(), Some(1));
    let report = stdout_json(&out);
    assert_eq!(report["outcome"]["limit"], "max_str_len");
    assert_eq!(report["outcome"]["offset"], 1);
    assert_eq!(report["stream"]["values"], 1);
    // Without a str limit the buffer limit refuses it, at the same place.
    let out = hardpack(
        &[
            "repro",
            "--surface",
            "stream",
            "--max-str-len",
            "max",
            "--max-buffer-bytes",
            "1MiB",
            "--json",
            "-",
        ],
        &[0x01, 0xdb, 0xff, 0xff, 0xff, 0xff],
    );
    let report = stdout_json(&out);
    assert_eq!(report["outcome"]["kind"], "buffer_limit");
    assert_eq!(report["stream"]["max_buffer_bytes"], 1 << 20);
    // --feed belongs to the stream surface.
    let out = hardpack(&["repro", "--feed", "1", "-"], &values);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--surface stream"));
}

#[test]
fn the_derived_surface_decodes_its_type_and_refuses_a_bomb_at_the_depth_limit() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(format!("hardpack-derived-{name}-{}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_string()
    };
    // {"List": ["Leaf", {"b": "Leaf"}]}: the built-in type's list of a leaf and a boxed leaf.
    let node = write("node", b"\x81\xa4List\x92\xa4Leaf\x81\xa1b\xa4Leaf");
    let report = stdout_json(&hardpack(
        &["repro", "--json", "--surface", "derived", &node],
        b"",
    ));
    assert_eq!(report["surface"], "derived");
    assert_eq!(report["outcome"]["status"], "decoded", "{report}");
    // A million levels of {"b": ..}, 3 bytes each: refused where level 129 starts.
    let mut levels = b"\x81\xa1b".repeat(1_000_000);
    levels.extend(b"\xa4Leaf");
    let bomb = write("bomb", &levels);
    let report = stdout_json(&hardpack(
        &["repro", "--json", "--surface", "derived", &bomb],
        b"",
    ));
    assert_eq!(report["outcome"]["limit"], "max_depth", "{report}");
    assert_eq!(report["outcome"]["offset"], 384, "{report}");
    assert!(
        report["peak_heap_bytes"].as_u64().unwrap() < 4096,
        "{report}"
    );
    std::fs::remove_file(node).unwrap();
    std::fs::remove_file(bomb).unwrap();
}
