//! The spawner: a small process that starts one decoder run, contains it, measures it and
//! reports what it did. `exec::run` starts the `hardpack` executable in this role for every
//! run instead of starting the decoder itself, for two reasons.
//!
//! - **The figure is the decoder's own.** Linux carries a process's high-water RSS across
//!   `fork` and `exec`: a decoder started by the auditor would begin its `ru_maxrss` at
//!   whatever the auditor held, which grows over an audit. Started by the spawner, it begins
//!   at the spawner's, which is small and the same in every run (the baseline takes it out).
//! - **The whole process tree is the run.** The spawner is a child subreaper: whatever the
//!   decoder starts, even in a session of its own (`setsid`), becomes the spawner's when its
//!   parent dies. While the decoder runs, the spawner samples the resident memory of every
//!   descendant; the tree's sum counts against the cap and in the figure. When the decoder
//!   has ended (or is killed), every descendant left is killed and reaped before the spawner
//!   answers, so nothing a run started outlives it.
//!
//! The cap on each process's address space (`RLIMIT_AS`) stays: an allocation past it fails
//! at once, where sampling would see it only after the memory was taken. The answer is one
//! line of JSON on standard error, the last thing the spawner writes, after every descendant
//! is gone.

use std::collections::HashMap;
use std::ffi::OsString;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The first argument that starts `hardpack` as the spawner.
pub const SPAWNER_ARG: &str = "__spawn-decoder";

/// What the spawner's answer line starts with.
pub const ANSWER_PREFIX: &str = "\u{1e}hardpack-spawner ";

/// How often the process tree's memory is sampled.
const SAMPLE_EVERY: Duration = Duration::from_millis(4);

/// How the figures and the cap are made, in words, for the reports.
pub const MEASUREMENT: &str = "peak RSS is the larger of the decoder's own (wait4, counted \
    from its start by a spawner that holds a few hundred KiB) and the most its whole process \
    tree held at once (sampled every 4 ms); the cap is on each process's address space and on \
    the tree's sampled sum; whatever the decoder leaves running is killed when it ends";

/// What the spawner saw of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The decoder's exit status, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// The decoder's own peak RSS (`wait4`), which includes the children it waited for.
    pub peak_rss_bytes: u64,
    /// The most resident memory the decoder and all its descendants held at once, sampled.
    pub tree_peak_bytes: u64,
    /// The tree went over the cap and was killed.
    pub over_cap: bool,
    /// The time limit passed and the tree was killed.
    pub timed_out: bool,
    /// Processes still running after the decoder ended, killed by the spawner.
    pub left_behind: u32,
    /// From the decoder's start to its end, in microseconds.
    pub wall_us: u64,
    /// Why the decoder could not be started or contained (then nothing ran).
    pub error: Option<String>,
}

/// The spawner's command line after [`SPAWNER_ARG`]: the time limit in milliseconds, the
/// memory cap in bytes, `--`, then the decoder's command.
pub fn arguments(timeout: Duration, cap_bytes: u64, argv: Vec<OsString>) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        SPAWNER_ARG.into(),
        timeout.as_millis().to_string().into(),
        cap_bytes.to_string().into(),
        "--".into(),
    ];
    args.extend(argv);
    args
}

/// Splits the spawner's answer off what the run wrote on standard error.
pub fn take_answer(stderr: &str) -> Option<(Answer, String)> {
    let at = stderr.rfind(ANSWER_PREFIX)?;
    let line = stderr[at + ANSWER_PREFIX.len()..].lines().next()?;
    let answer = serde_json::from_str(line).ok()?;
    // The spawner starts its line with a newline of its own, in case the decoder's last did
    // not end one.
    let before = &stderr[..at];
    Some((
        answer,
        before.strip_suffix('\n').unwrap_or(before).to_string(),
    ))
}

/// The spawner's `main`: `args` are what follows [`SPAWNER_ARG`]. Always exits 0 after its
/// answer; the decoder's status is in the answer.
pub fn main(args: &[OsString]) -> std::process::ExitCode {
    let answer = match parse(args) {
        Ok((timeout, cap, argv)) => spawn_and_contain(timeout, cap, &argv),
        Err(e) => Answer {
            error: Some(e),
            ..Answer::default()
        },
    };
    let line = serde_json::to_string(&answer).unwrap_or_else(|_| "{}".into());
    eprintln!("\n{ANSWER_PREFIX}{line}");
    std::process::ExitCode::SUCCESS
}

fn parse(args: &[OsString]) -> Result<(Duration, u64, Vec<OsString>), String> {
    let number = |i: usize, what: &str| -> Result<u64, String> {
        args.get(i)
            .and_then(|a| a.to_str())
            .and_then(|a| a.parse().ok())
            .ok_or_else(|| format!("the spawner needs {what} as argument {}", i + 1))
    };
    let timeout = Duration::from_millis(number(0, "the time limit in milliseconds")?);
    let cap = number(1, "the memory cap in bytes")?;
    if args.get(2).map(|a| a.as_os_str()) != Some("--".as_ref()) || args.len() < 4 {
        return Err("the spawner needs `--` and a command after its two numbers".into());
    }
    Ok((timeout, cap, args[3..].to_vec()))
}

fn spawn_and_contain(timeout: Duration, cap: u64, argv: &[OsString]) -> Answer {
    use rustix::process::{getpid, getrlimit, set_child_subreaper, setrlimit, Resource, Rlimit};
    use std::os::unix::process::CommandExt;
    use wait4::Wait4;

    let mut answer = Answer::default();
    let me = getpid();
    if let Err(e) = set_child_subreaper(Some(me)) {
        answer.error = Some(format!("could not become the child subreaper: {e}"));
        return answer;
    }
    let (spawn_tx, spawn_rx) = mpsc::channel::<std::process::Child>();
    let (done_tx, done_rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        if let Ok(mut child) = spawn_rx.recv() {
            let _ = done_tx.send(child.wait4());
        }
    });
    // The same as `ulimit -v CAP` and `ulimit -s 8192` in a shell, for the decoder only.
    let limits: Vec<(Resource, Rlimit)> = [
        (Resource::As, Some(cap), Some(cap)),
        (Resource::Stack, Some(8 << 20), None),
    ]
    .into_iter()
    .map(|(resource, current, maximum)| {
        let old = getrlimit(resource);
        let below_old = |v: u64| old.maximum.map_or(v, |m| v.min(m));
        let new = Rlimit {
            current: current.map(below_old),
            maximum: maximum.map(below_old).or(old.maximum),
        };
        (resource, new)
    })
    .collect();
    let mut command = Command::new(&argv[0]);
    command.args(&argv[1..]).stdin(Stdio::null());
    // SAFETY: the closure runs in the forked child before `exec`; it only makes `setrlimit`
    // system calls on values computed before the fork, which is async-signal-safe. Having a
    // closure at all also makes std fork instead of `posix_spawn`: a forked child copies only
    // the spawner's anonymous pages (a few hundred KiB), where a `vfork` child shares its
    // whole memory, and `exec` would carry all of it into the decoder's peak RSS.
    unsafe {
        command.pre_exec(move || {
            for (resource, limit) in &limits {
                setrlimit(*resource, *limit)?;
            }
            Ok(())
        });
    }
    let started = Instant::now();
    let child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            answer.error = Some(format!(
                "could not start {}: {e}",
                argv[0].to_string_lossy()
            ));
            drop(spawn_tx);
            let _ = waiter.join();
            return answer;
        }
    };
    let _ = spawn_tx.send(child);

    let deadline = started + timeout;
    let waited = loop {
        match done_rx.recv_timeout(SAMPLE_EVERY) {
            Ok(waited) => break Some(waited),
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let held = tree_rss(me);
        answer.tree_peak_bytes = answer.tree_peak_bytes.max(held);
        if held > cap && !answer.over_cap {
            answer.over_cap = true;
            kill_descendants(me);
        }
        if Instant::now() >= deadline && !answer.timed_out {
            answer.timed_out = true;
            kill_descendants(me);
        }
    };
    answer.wall_us = started.elapsed().as_micros() as u64;
    let _ = waiter.join();
    match waited {
        Some(Ok(usage)) => {
            use std::os::unix::process::ExitStatusExt;
            answer.exit_code = usage.status.code();
            answer.signal = usage.status.signal();
            answer.peak_rss_bytes = usage.rusage.maxrss;
        }
        Some(Err(e)) => answer.error = Some(format!("waiting for the decoder: {e}")),
        None => answer.error = Some("the decoder's waiter ended without an answer".into()),
    }
    answer.tree_peak_bytes = answer.tree_peak_bytes.max(answer.peak_rss_bytes);
    let left_running = end_the_tree(me);
    // At the time limit or over the cap the spawner killed the tree itself: nothing was
    // left behind by the decoder.
    if !answer.timed_out && !answer.over_cap {
        answer.left_behind = left_running;
    }
    answer
}

/// Kills every descendant until none is left (what a dying parent leaves is re-parented to
/// the spawner, the subreaper) and reaps them; returns how many were still running.
fn end_the_tree(me: rustix::process::Pid) -> u32 {
    use rustix::process::{wait, WaitOptions};
    let mut seen = std::collections::BTreeSet::new();
    let give_up = Instant::now() + Duration::from_secs(5);
    loop {
        let left = descendants(me);
        // A process that has already ended (killed at the time limit, say) was not left
        // running; it is only reaped.
        seen.extend(
            left.iter()
                .filter(|(_, stat)| !stat.ended)
                .map(|(pid, _)| *pid),
        );
        for (pid, _) in &left {
            kill(*pid);
        }
        // Reap what has ended; a process killed a moment ago may still be exiting.
        loop {
            match wait(WaitOptions::NOHANG) {
                Ok(Some(_)) => continue,
                Ok(None) => break,
                Err(_) => return seen.len() as u32, // no child left
            }
        }
        if Instant::now() > give_up {
            return seen.len() as u32;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn kill_descendants(me: rustix::process::Pid) {
    for (pid, _) in descendants(me) {
        kill(pid);
    }
}

fn kill(pid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
}

/// Every process below `me`, from `/proc`.
fn descendants(me: rustix::process::Pid) -> Vec<(i32, Stat)> {
    let table = process_table();
    let mut below = Vec::new();
    let mut frontier = vec![me.as_raw_nonzero().get()];
    while let Some(parent) = frontier.pop() {
        for (pid, stat) in &table {
            if stat.parent == parent {
                below.push((*pid, *stat));
                frontier.push(*pid);
            }
        }
    }
    below
}

/// The resident memory of every process below `me`, summed.
fn tree_rss(me: rustix::process::Pid) -> u64 {
    let pages: u64 = descendants(me)
        .iter()
        .map(|(_, stat)| stat.resident_pages)
        .sum();
    pages * rustix::param::page_size() as u64
}

/// Each process's parent, resident pages and whether it has ended (a zombie not yet
/// reaped), from `/proc/PID/stat`.
fn process_table() -> HashMap<i32, Stat> {
    let mut table = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return table;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if let Some(parsed) = parse_stat(&stat) {
            table.insert(pid, parsed);
        }
    }
    table
}

/// What the spawner reads of a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stat {
    parent: i32,
    resident_pages: u64,
    ended: bool,
}

/// A process's [`Stat`] from its `/proc/PID/stat` line. The command name may hold spaces and
/// parentheses: the fields start after the last `)`.
fn parse_stat(stat: &str) -> Option<Stat> {
    let fields: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    // After the name: state (3), ppid (4), ... rss (24), counted from 1 with pid and name.
    Some(Stat {
        parent: fields.get(1)?.parse().ok()?,
        resident_pages: fields.get(21)?.parse().ok()?,
        ended: matches!(*fields.first()?, "Z" | "X"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_a_strange_name_is_read_after_its_last_parenthesis() {
        let line = "4242 (a) b (c) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 \
                    55 10000000 321 18446744073709551615";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                parent: 17,
                resident_pages: 321,
                ended: false
            })
        );
        let zombie = "7 (sleep) Z 1 7 7 0 -1 4194564 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0 0";
        assert!(parse_stat(zombie).unwrap().ended);
    }

    #[test]
    fn the_answer_is_taken_from_the_last_line_and_the_rest_is_kept() {
        let answer = Answer {
            exit_code: Some(1),
            peak_rss_bytes: 5 << 20,
            ..Answer::default()
        };
        let stderr = format!(
            "bad input\n\n{ANSWER_PREFIX}{}\n",
            serde_json::to_string(&answer).unwrap()
        );
        let (taken, rest) = take_answer(&stderr).unwrap();
        assert_eq!(taken, answer);
        assert_eq!(rest, "bad input\n");
        assert_eq!(take_answer("no answer here"), None);
    }
}
