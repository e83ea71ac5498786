//! Running a decode where it cannot take the caller down: a child process under a memory cap
//! (`ulimit -v`), an 8 MiB stack and a wall-clock limit, whose death is a result. The cap
//! needs a Unix system (Linux, macOS); elsewhere [`run_guarded`] says so. The check's own
//! children ([`crate::check`]) run on any system: on Windows a child's death is read from its
//! exit status (`0xC00000FD`, a stack overflow) and its last words. The
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

/// What a directory holds beside its payloads, by extension: metadata, notes and tables
/// (a corpus's `.toml` records, a `cases.tsv`, a README).
pub const NOT_PAYLOADS: [&str; 12] = [
    "toml", "md", "dict", "json", "txt", "rs", "lock", "tsv", "csv", "html", "yml", "yaml",
];

/// Which files count as payloads, in words, for the reports.
pub fn payload_rule() -> String {
    format!(
        "every file named, and every file below a directory named except hidden ones and \
         *.{}",
        NOT_PAYLOADS.join(", *.")
    )
}

/// Whether a file found in a directory is a payload (see [`payload_rule`]).
fn is_payload(path: &std::path::Path) -> bool {
    let hidden = path
        .file_name()
        .is_some_and(|name| name.as_encoded_bytes().starts_with(b"."));
    let extension = path.extension().and_then(|e| e.to_str());
    !hidden && !extension.is_some_and(|e| NOT_PAYLOADS.contains(&e))
}

/// Files to audit: files as given, directories walked (sorted), keeping what
/// [`payload_rule`] says. A path given on the command line that does not exist is an error;
/// inside a directory, whatever cannot be read (a dangling symlink, a file without
/// permission, a directory that cannot be listed) is kept, and becomes a failed row when it
/// is audited, so one bad entry does not lose the others.
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
                } else if is_payload(&p) {
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
    if !cfg!(unix) {
        return Err(format!(
            "running {} under a memory cap needs a Unix system (`ulimit -v`); on Windows, \
             run the audit under WSL",
            exe.display()
        ));
    }
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
        Some(s) => exit_code(s),
    };
    Ok((code, out))
}

/// A process's exit code, or how it died in words: the signal that killed it (Unix), or the
/// system's status code for a crash (Windows: `0xC00000FD` is a stack overflow).
pub fn exit_code(status: std::process::ExitStatus) -> Result<i32, String> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return Err(killed_by(signal));
        }
    }
    match status.code() {
        Some(code) => match windows_crash(code) {
            Some(crash) if cfg!(windows) => Err(crash.to_string()),
            _ => Ok(code),
        },
        None => Err(status.to_string()),
    }
}

/// What a Windows process that exited with `code` died of, for the status codes a crash
/// gives (an `NTSTATUS` as the exit code).
pub fn windows_crash(code: i32) -> Option<&'static str> {
    match code as u32 {
        STATUS_STACK_OVERFLOW => Some("0xC00000FD: stack overflow"),
        0xC000_0409 => Some("0xC0000409: abort (fail-fast, e.g. allocation failure)"),
        0xC000_0005 => Some("0xC0000005: access violation"),
        0xC000_0017 => Some("0xC0000017: out of memory"),
        _ => None,
    }
}

/// The exit code of a Windows process whose stack overflowed.
pub const STATUS_STACK_OVERFLOW: u32 = 0xC000_00FD;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_windows_crash_status_is_named() {
        // STATUS_STACK_OVERFLOW as a process's exit code (an i32).
        assert_eq!(
            windows_crash(-1_073_741_571),
            Some("0xC00000FD: stack overflow")
        );
        assert_eq!(windows_crash(1), None);
        assert_eq!(windows_crash(0), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_process_killed_by_a_signal_says_which() {
        let status = Command::new("sh")
            .args(["-c", "kill -SEGV $$"])
            .status()
            .unwrap();
        let how = exit_code(status).unwrap_err();
        assert!(how.starts_with("killed by signal 11"), "{how}");
        let status = Command::new("sh").args(["-c", "exit 3"]).status().unwrap();
        assert_eq!(exit_code(status), Ok(3));
    }
}
