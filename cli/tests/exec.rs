//! `audit --exec` and `repro --exec` on programs whose behaviour is known: a shell script
//! that decodes, refuses, crashes, hangs or says it ran out of memory according to the
//! payload's first byte, and Python allocating for real under the cap.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn hardpack(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardpack-exec-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap();
}

fn executable(path: &Path, script: &str) {
    write(path, script.as_bytes());
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A decoder whose answer is chosen by the payload's first byte: c0 decodes, c1 is refused,
/// c2 segfaults, c3 hangs (with a grandchild holding the pipes), c4 prints Go's out-of-memory
/// message at the head of 100 KiB of stack dump, c5 allocates 2 GiB in Python (whose
/// uncaught `MemoryError` exits 1, so the script exits 70 as the adapter convention asks).
const FAKE_DECODER: &str = r#"#!/bin/sh
case $(od -An -tx1 -N1 "$1" | tr -d ' \n') in
  c0) exit 0 ;;
  c1) echo "DecodeError: reserved byte 0xc1" >&2; exit 1 ;;
  c2) kill -SEGV $$ ;;
  c3) sleep 120 & wait ;;
  c4) echo "runtime: out of memory: cannot allocate 68719476736-byte block" >&2
      echo "fatal error: out of memory" >&2
      head -c 100000 /dev/zero | tr '\0' 'g' >&2; exit 2 ;;
  c5) python3 -c 'b"x" * (2 << 30)' || exit 70 ;;
esac
exit 7
"#;

fn payloads(dir: &Path) -> PathBuf {
    let payloads = dir.join("payloads");
    std::fs::create_dir_all(&payloads).unwrap();
    for (name, byte) in [
        ("a-decodes", 0xc0u8),
        ("b-refused", 0xc1),
        ("c-segfault", 0xc2),
        ("d-hangs", 0xc3),
        ("e-go-oom", 0xc4),
        ("f-python-oom", 0xc5),
    ] {
        write(&payloads.join(name), &[byte]);
    }
    payloads
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn every_outcome_is_judged_and_the_auditor_goes_on_after_each_death() {
    let dir = scratch("outcomes");
    let decoder = dir.join("decode");
    executable(&decoder, FAKE_DECODER);
    let payloads = payloads(&dir);
    let command = format!("{} {{file}}", decoder.display());
    let started = Instant::now();
    let out = hardpack(&[
        "audit",
        "--exec",
        &command,
        "--memory",
        "512MiB",
        "--timeout",
        "2s",
        "--json",
        "-",
        payloads.to_str().unwrap(),
    ]);
    // The hung payload is killed at 2 s with its grandchild; a generous bound for the rest.
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(
        out.status.code(),
        Some(1),
        "crash, oom and timeout fail the audit"
    );
    let report = json(&out);
    assert_eq!(report["memory_cap_bytes"], 512 << 20);
    assert_eq!(report["timeout_ms"], 2000);
    let rows = report["rows"].as_array().unwrap();
    let row = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no row {id}"))
    };
    let outcome = |id: &str| row(id)["outcome"].as_str().unwrap().to_string();
    assert_eq!(rows.len(), 6);
    assert_eq!(outcome("a-decodes"), "decoded");
    assert_eq!(row("a-decodes")["exit_code"], 0);
    assert_eq!(outcome("b-refused"), "refused");
    assert_eq!(
        row("b-refused")["detail"],
        "DecodeError: reserved byte 0xc1"
    );
    assert_eq!(outcome("c-segfault"), "crash");
    assert_eq!(row("c-segfault")["signal"], 11);
    assert!(row("c-segfault")["exit_code"].is_null());
    assert_eq!(outcome("d-hangs"), "timeout");
    // Its grandchild was killed with it at the time limit, not left behind.
    assert_eq!(row("d-hangs")["left_behind"], 0);
    let hung_ms = row("d-hangs")["wall_ms"].as_f64().unwrap();
    assert!((2000.0..30_000.0).contains(&hung_ms), "{hung_ms} ms");
    // The message is at the head of a long dump: the head of stderr is kept too.
    assert_eq!(outcome("e-go-oom"), "oom");
    assert_eq!(
        row("e-go-oom")["detail"],
        "runtime: out of memory: cannot allocate 68719476736-byte block"
    );
    assert!(row("e-go-oom")["stderr_tail"]
        .as_str()
        .unwrap()
        .ends_with("ggg"));
    // 2 GiB asked under a 512 MiB cap: Python's MemoryError.
    assert_eq!(outcome("f-python-oom"), "oom", "{}", row("f-python-oom"));
    assert!(row("f-python-oom")["detail"]
        .as_str()
        .unwrap()
        .contains("MemoryError"));
    for r in rows {
        for field in [
            "id",
            "outcome",
            "peak_rss_bytes",
            "baseline_rss_bytes",
            "wall_ms",
            "exit_code",
            "signal",
            "stderr_tail",
        ] {
            assert!(r.get(field).is_some(), "{field} missing in {r}");
        }
    }
    let summary = &report["decoders"][0];
    assert_eq!(summary["failed"], 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn peak_rss_is_measured_above_the_baseline() {
    let dir = scratch("rss");
    // Holds 200 MiB (written, so resident) for a payload starting with c1; nothing for nil.
    let decoder = dir.join("decode");
    executable(
        &decoder,
        "#!/bin/sh\nexec python3 -c 'import sys\nif open(sys.argv[1], \"rb\").read(1) == b\"\\xc1\": x = b\"y\" * (200 << 20)' \"$1\"\n",
    );
    let payload = dir.join("big");
    write(&payload, &[0xc1]);
    let command = format!("{} {{file}}", decoder.display());
    let out = hardpack(&[
        "repro",
        "--exec",
        &command,
        "--json",
        payload.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let row = json(&out);
    let above = row["above_baseline_bytes"].as_u64().unwrap();
    let baseline = row["baseline_rss_bytes"].as_u64().unwrap();
    // 200 MiB held; Python's own few MiB are in the baseline.
    assert!(
        (190 << 20..260 << 20).contains(&above),
        "{above} above {baseline}"
    );
    assert!(
        (1 << 20..100 << 20).contains(&baseline),
        "baseline {baseline}"
    );
    assert_eq!(row["peak_rss_bytes"].as_u64().unwrap(), baseline + above);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn repro_exec_exits_by_outcome_and_takes_hex() {
    let dir = scratch("repro");
    let decoder = dir.join("decode");
    executable(&decoder, FAKE_DECODER);
    let command = format!("{} {{file}}", decoder.display());
    let run = |hex: &str| {
        Command::new(env!("CARGO_BIN_EXE_hardpack"))
            .args(["repro", "--hex", "--exec", &command, "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(hex.as_bytes())?;
                child.wait_with_output()
            })
            .unwrap()
    };
    assert_eq!(run("c0").status.code(), Some(0));
    let refused = run("c1");
    assert_eq!(refused.status.code(), Some(1));
    let text = String::from_utf8_lossy(&refused.stdout);
    assert!(
        text.contains("outcome:  refused: DecodeError: reserved byte 0xc1"),
        "{text}"
    );
    let crashed = run("c2");
    assert_eq!(crashed.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&crashed.stdout).contains("killed by signal 11"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stream_reuse_answers_are_read_and_a_stray_answer_fails() {
    let dir = scratch("reuse");
    let decoder = dir.join("decode");
    // c0 (the one-byte document) raises nothing; c1 recovers; c2 desynchronises; c3 answers
    // a word outside the convention. The valid document is handed as the second argument.
    executable(
        &decoder,
        r#"#!/bin/sh
[ "$(od -An -tx1 "$2" | tr -d ' \n')" = 9301a5726575736581a161c3 ] || { echo "wrong valid document" >&2; exit 9; }
case $(od -An -tx1 -N1 "$1" | tr -d ' \n') in
  c0) echo no-error ;;
  c1) echo recovered ;;
  c2) printf 'desynchronised\n-1 came back\n' ;;
  c3) echo fine ;;
esac
"#,
    );
    let payloads = dir.join("payloads");
    std::fs::create_dir_all(&payloads).unwrap();
    for (name, byte) in [
        ("recovers", 0xc1u8),
        ("desynchronises", 0xc2),
        ("stray", 0xc3),
    ] {
        write(&payloads.join(name), &[byte]);
    }
    let command = format!("{} {{file}} {{valid}}", decoder.display());
    let html = dir.join("report.html");
    let out = hardpack(&[
        "audit",
        "--exec",
        &command,
        "--json",
        "-",
        "--html",
        html.to_str().unwrap(),
        payloads.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out);
    let rows = report["rows"].as_array().unwrap();
    let row = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!(row("recovers")["outcome"], "recovered");
    assert_eq!(row("desynchronises")["outcome"], "desynchronised");
    assert_eq!(row("desynchronises")["detail"], "-1 came back");
    assert_eq!(row("stray")["outcome"], "unanswered");
    assert_eq!(report["decoders"][0]["failed"], 2);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<td class=\"l\">desynchronised</td>"),
        "{page}"
    );
    // The stray answer's detail quotes the word: escaped, not markup.
    assert!(page.contains("answered &quot;fine&quot;"), "{page}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_command_that_cannot_decode_nil_or_misses_its_placeholder_is_refused_up_front() {
    let dir = scratch("usage");
    let payload = dir.join("p");
    write(&payload, &[0xc0]);
    let p = payload.to_str().unwrap();
    let out = hardpack(&["audit", "--exec", "false {file}", p]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("on a one-byte document (nil) the outcome was refused"),
        "{said}"
    );
    let out = hardpack(&["audit", "--exec", "/no/such/decoder {file}", p]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/decoder"));
    let out = hardpack(&["audit", "--exec", "cat", p]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("{file}"));
    // Flags of hardpack's own decode, and --memory without --exec.
    let out = hardpack(&["audit", "--exec", "true {file}", "--surface", "stream", p]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--exec runs another program"));
    let out = hardpack(&["audit", "--memory", "1GiB", p]);
    assert_eq!(out.status.code(), Some(2));
    let out = hardpack(&["repro", "--exec", "true {file}", "--timeout", "soon", p]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_hardpack_stream_stays_failed_after_an_error() {
    let dir = scratch("then");
    let (bad, valid) = (dir.join("bad"), dir.join("valid"));
    write(&bad, &[0xc1]);
    write(&valid, &[0x91, 0x01]);
    let out = hardpack(&[
        "repro",
        "--surface",
        "stream",
        "--then",
        valid.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().next(), Some("refused-again"), "{text}");
    // A payload cut short raises nothing in a stream: the rest may still arrive.
    write(&bad, &[0x92, 0x01]);
    let out = hardpack(&[
        "repro",
        "--surface",
        "stream",
        "--then",
        valid.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().next(),
        Some("no-error")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_ends_the_running_decoder_with_the_audit() {
    let dir = scratch("interrupt");
    let decoder = dir.join("decode");
    // A duration no other process uses, to find a survivor by.
    let marker = format!("{}.{}", 200 + std::process::id() % 97, std::process::id());
    executable(
        &decoder,
        &format!(
            "#!/bin/sh\n[ \"$(od -An -tx1 \"$1\" | tr -d ' \\n')\" = c0 ] && exit 0\nsleep {marker} & wait\n"
        ),
    );
    let payload = dir.join("hangs");
    write(&payload, &[0xc1]);
    let command = format!("{} {{file}}", decoder.display());
    let mut audit = Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .args(["audit", "--exec", &command, payload.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let sleeping = || {
        Command::new("pgrep")
            .args(["-f", &format!("sleep {marker}")])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    let started = Instant::now();
    while !sleeping() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the decoder never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let interrupted = Command::new("kill")
        .args(["-INT", &audit.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let status = audit.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    std::thread::sleep(Duration::from_millis(200));
    assert!(!sleeping(), "the decoder outlived the audit");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A payload whose name is not UTF-8 is a row like any other, run on the file of that name;
/// a table beside the payloads is not one.
#[test]
fn a_name_that_is_not_utf8_is_a_row_and_a_table_beside_the_payloads_is_not_a_payload() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("names");
    let decoder = dir.join("decode");
    executable(&decoder, FAKE_DECODER);
    let payloads = dir.join("payloads");
    std::fs::create_dir_all(&payloads).unwrap();
    let strange = payloads.join(std::ffi::OsStr::from_bytes(b"caf\xe9-refused"));
    write(&strange, &[0xc1]);
    write(&payloads.join("cases.tsv"), b"name\taffected\n");
    write(&payloads.join(".hidden"), &[0xc2]);
    let command = format!("{} {{file}}", decoder.display());
    let out = hardpack(&[
        "audit",
        "--exec",
        &command,
        "--json",
        "-",
        payloads.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&out);
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    // The decoder read the file: with a lossy name it would not exist (exit 7, a crash).
    assert_eq!(rows[0]["outcome"], "refused", "{}", rows[0]);
    assert_eq!(rows[0]["id"], "caf\u{fffd}-refused");
    assert!(rows[0]["path_hex"]
        .as_str()
        .unwrap()
        .ends_with("636166e92d72656675736564"));
    assert!(report["payloads"].as_str().unwrap().contains("*.tsv"));
    let _ = std::fs::remove_dir_all(&dir);
}
