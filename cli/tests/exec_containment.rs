//! The controls of `audit --exec`'s measurement and containment: a program that does nothing
//! reads the same figure however much the auditor holds, a process tree is capped and
//! measured as a whole, and nothing a run starts outlives it.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use hardpack_cli::exec::{self, Decoder, ExecLimits, Outcome};

const MIB: u64 = 1 << 20;

fn scratch(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "hardpack-containment-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn executable(path: &Path, script: &str) {
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn repro_json(command: &str, payload: &Path, memory: &str) -> (Output, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_hardpack"))
        .args(["repro", "--exec", command, "--memory", memory, "--json"])
        .arg(payload)
        .output()
        .unwrap();
    let row = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, row)
}

/// The auditor holds 64 MiB, written so it is resident, through 3,000 runs of a program
/// that reads nothing, on payloads from 1 byte to 16 MB: every run's figure stays within
/// 1 MiB of the program's baseline. Started by the auditor itself, each run's figure began
/// at what the auditor held.
#[test]
fn a_program_that_reads_nothing_reads_its_baseline_however_much_the_auditor_holds() {
    std::env::set_var("HARDPACK_SPAWNER", env!("CARGO_BIN_EXE_hardpack"));
    let ballast = vec![0x5au8; 64 << 20];
    std::hint::black_box(&ballast);
    let dir = scratch("noop");
    let sizes = [1usize, 1 << 10, 64 << 10, 1 << 20, 4 << 20, 16_000_000];
    let payloads: Vec<PathBuf> = sizes
        .iter()
        .map(|&size| {
            let path = dir.join(format!("payload-{size}"));
            std::fs::write(&path, vec![0xc1; size]).unwrap();
            path
        })
        .collect();
    let decoder = Decoder::parse("true {file}").unwrap();
    let limits = ExecLimits::default();
    let mut baseline: Vec<u64> = (0..3)
        .map(|_| {
            exec::run(&decoder, &payloads[0], None, &limits)
                .unwrap()
                .peak_rss_bytes
        })
        .collect();
    baseline.sort_unstable();
    let baseline = baseline[1];
    assert!(
        baseline < 16 * MIB,
        "`true` read {baseline} bytes: the auditor's 64 MiB leaks in"
    );
    let mut worst = 0u64;
    for i in 0..3000 {
        let run = exec::run(&decoder, &payloads[i % payloads.len()], None, &limits).unwrap();
        assert_eq!(run.outcome, Outcome::Decoded);
        worst = worst.max(run.peak_rss_bytes.abs_diff(baseline));
    }
    eprintln!("`true`: baseline {baseline} bytes, farthest run {worst} bytes from it");
    assert!(
        worst <= MIB,
        "a run of `true` read {worst} bytes away from its baseline of {baseline}"
    );
    std::hint::black_box(&ballast);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Three children of 1.5 GiB each under a cap of 2 GiB: each fits under the cap alone, the
/// tree does not.
#[test]
fn three_children_of_1_5_gib_under_a_2_gib_cap_are_out_of_memory() {
    let dir = scratch("tree");
    let decoder = dir.join("decode");
    executable(
        &decoder,
        "#!/bin/sh\n[ \"$(od -An -tx1 \"$1\" | tr -d ' \\n')\" = c0 ] && exit 0\n\
         for i in 1 2 3; do python3 -c 'import time; b = b\"x\" * (1536 << 20); time.sleep(30)' & done\nwait\n",
    );
    let payload = dir.join("three");
    std::fs::write(&payload, [0xc1]).unwrap();
    let started = Instant::now();
    let (out, row) = repro_json(&format!("{} {{file}}", decoder.display()), &payload, "2GiB");
    assert_eq!(row["outcome"], "oom", "{row}");
    assert!(
        row["detail"]
            .as_str()
            .unwrap()
            .contains("process tree held"),
        "{row}"
    );
    assert!(row["peak_rss_bytes"].as_u64().unwrap() > 2 << 30, "{row}");
    assert_eq!(out.status.code(), Some(4));
    // Killed when the sum passed the cap, not at the end of the sleeps.
    assert!(started.elapsed() < Duration::from_secs(25));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A descendant in a session of its own (`setsid`) is not in the run's process group; it is
/// killed when the run ends, and the report counts it.
#[test]
fn a_descendant_in_a_session_of_its_own_is_gone_when_the_run_ends() {
    let dir = scratch("setsid");
    let decoder = dir.join("decode");
    let pid_file = dir.join("pid");
    executable(
        &decoder,
        &format!(
            "#!/bin/sh\n[ \"$(od -An -tx1 \"$1\" | tr -d ' \\n')\" = c0 ] && exit 0\n\
             setsid sleep 600 &\necho $! > '{}'\nexit 0\n",
            pid_file.display()
        ),
    );
    let payload = dir.join("escapes");
    std::fs::write(&payload, [0xc1]).unwrap();
    let (out, row) = repro_json(&format!("{} {{file}}", decoder.display()), &payload, "4GiB");
    assert_eq!(out.status.code(), Some(0), "{row}");
    assert_eq!(row["outcome"], "decoded");
    assert_eq!(row["left_behind"], 1, "{row}");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let alive = Path::new(&format!("/proc/{}", pid.trim())).exists();
    assert!(!alive, "the setsid sleep {} outlived the run", pid.trim());
    let _ = std::fs::remove_dir_all(&dir);
}
