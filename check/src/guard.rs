//! Running a decode where it cannot take the caller down: a child process under a memory cap
//! (`ulimit -v`), an 8 MiB stack and a wall-clock limit, whose death is a result. The
//! `hardpack` command's audit and peer comparison run their children through it; the check
//! ([`crate::check`]) runs its own, streaming children with the same signal names.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hardpack::Limits;

/// How each child is run.
#[derive(Clone, Debug)]
pub struct ChildLimits {
    /// Virtual memory cap of the child, in bytes.
    pub memory_bytes: usize,
    /// Wall-clock limit.
    pub timeout: Duration,
}

impl ChildLimits {
    /// The budget plus room for the program itself, at most 16 GiB.
    pub fn for_limits(limits: &Limits) -> Self {
        let memory_bytes = limits.max_alloc_bytes.min(16 << 30).saturating_add(1 << 30);
        ChildLimits {
            memory_bytes,
            timeout: Duration::from_secs(60),
        }
    }
}

/// Files to audit: files as given, directories walked (sorted); metadata and notes (`.toml`,
/// `.md`, `.dict`, `.json`, `.txt`) are skipped. A path given on the command line that does
/// not exist is an error; inside a directory, whatever cannot be read (a dangling symlink, a
/// file without permission, a directory that cannot be listed) is kept, and becomes a failed
/// row when it is audited, so one bad entry does not lose the others.
pub fn collect_payloads(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_file() {
            out.push(path.clone());
            continue;
        }
        if !path.is_dir() {
            return Err(format!("{}: no such file or directory", path.display()));
        }
        let mut dirs = vec![path.clone()];
        let mut found = Vec::new();
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                found.push(dir);
                continue;
            };
            for entry in entries {
                let Ok(entry) = entry else {
                    found.push(dir.clone());
                    continue;
                };
                let p = entry.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if !matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("toml" | "md" | "dict" | "json" | "txt" | "rs" | "lock")
                ) {
                    found.push(p);
                }
            }
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// Runs `exe args...` with a memory cap and a time limit; returns (exit code or signal
/// description, stdout).
pub fn run_guarded(
    exe: &Path,
    args: &[String],
    guard: &ChildLimits,
) -> Result<(Result<i32, String>, Vec<u8>), String> {
    let kib = (guard.memory_bytes / 1024).max(1);
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v \"$1\"; ulimit -s 8192; shift; exec \"$@\"")
        .arg("sh")
        .arg(kib.to_string())
        .arg(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("starting {}: {e}", exe.display()))?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut buf);
        buf
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if started.elapsed() > guard.timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let out = reader.join().unwrap_or_default();
    let code = match status {
        None => Err(format!("timed out after {:?}", guard.timeout)),
        Some(s) => match s.code() {
            Some(c) => Ok(c),
            None => {
                use std::os::unix::process::ExitStatusExt;
                Err(killed_by(s.signal().unwrap_or(0)))
            }
        },
    };
    Ok((code, out))
}

/// How a process killed by signal `signal` died, in words.
pub fn killed_by(signal: i32) -> String {
    let name = match signal {
        6 => "SIGABRT (abort, e.g. allocation failure)",
        9 => "SIGKILL",
        11 => "SIGSEGV (e.g. stack overflow)",
        _ => "a signal",
    };
    format!("killed by signal {signal}: {name}")
}
