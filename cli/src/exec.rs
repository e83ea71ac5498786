//! Any program that decodes MessagePack, in any language, run on one payload as its own
//! process: under a memory cap (the address space, `ulimit -v`) and a time limit, measured
//! (peak RSS from `wait4`, wall time, exit code, signal) and judged with one set of outcomes.
//! `hardpack audit --exec` and `repro --exec` stand on it.
//!
//! The program follows the adapter convention (`adapters/README.md`): exit 0 when the
//! document decoded, 1 when the library raised an error, anything else is a crash. Out of
//! memory is recognised from what each runtime prints when an allocation fails.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc, Mutex, Once};
use std::time::{Duration, Instant};

use serde::Serialize;

/// How a program's run on one payload ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Exit status 0: the document decoded.
    Decoded,
    /// Exit status 1: the library raised an error.
    Refused,
    /// Any other exit status, or a signal.
    Crash,
    /// The runtime said an allocation failed (the cap was reached, or the machine's memory).
    Oom,
    /// No answer within the time limit: the process group was killed.
    Timeout,
}

impl Outcome {
    /// The outcome as the reports write it.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Decoded => "decoded",
            Outcome::Refused => "refused",
            Outcome::Crash => "crash",
            Outcome::Oom => "oom",
            Outcome::Timeout => "timeout",
        }
    }

    /// The process did not give an answer of its own: it died, ran out of memory or hung.
    pub fn failed(self) -> bool {
        matches!(self, Outcome::Crash | Outcome::Oom | Outcome::Timeout)
    }
}

/// A decoding program: a command line in which `{file}` stands for the payload's path.
#[derive(Clone, Debug)]
pub struct Decoder {
    /// What the reports call it: the adapter's folder for `adapters/<name>/run`, otherwise
    /// the command without `{file}`.
    pub name: String,
    /// The command as given.
    pub command: String,
    words: Vec<String>,
}

/// The placeholder for the payload's path in a decoder's command.
pub const FILE_PLACEHOLDER: &str = "{file}";

/// The placeholder for the valid document a decoder in stream reuse mode gets after the
/// payload.
pub const VALID_PLACEHOLDER: &str = "{valid}";

impl Decoder {
    /// Parses a command line, quoted as in a shell (`'CMD {file}'`). It is run directly,
    /// not through a shell: a pipeline belongs in an adapter script.
    pub fn parse(command: &str) -> Result<Decoder, String> {
        let words = shlex::split(command)
            .ok_or_else(|| format!("--exec {command:?}: unbalanced quotes"))?;
        if words.is_empty() {
            return Err("--exec needs a command, e.g. --exec 'python3 decode.py {file}'".into());
        }
        if !words.iter().any(|w| w.contains(FILE_PLACEHOLDER)) {
            return Err(format!(
                "--exec {command:?}: the command must name the payload as {FILE_PLACEHOLDER}, \
                 e.g. --exec 'adapters/python-msgpack/run {FILE_PLACEHOLDER}'"
            ));
        }
        let adapter = words.iter().find_map(|w| {
            let path = Path::new(w);
            (path.file_name()? == "run")
                .then(|| path.parent()?.file_name())
                .flatten()
                .map(|dir| dir.to_string_lossy().into_owned())
        });
        let name = adapter.unwrap_or_else(|| {
            words
                .iter()
                .filter(|w| !w.contains(FILE_PLACEHOLDER) && !w.contains(VALID_PLACEHOLDER))
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
        });
        Ok(Decoder {
            name,
            command: command.to_string(),
            words,
        })
    }

    /// The command names `{valid}`: it runs in stream reuse mode (the payload, then a valid
    /// document, to one decoder object).
    pub fn reuse(&self) -> bool {
        self.words.iter().any(|w| w.contains(VALID_PLACEHOLDER))
    }

    /// The command's words with `{file}` and `{valid}` replaced.
    fn argv(&self, file: &Path, valid: Option<&Path>) -> Vec<OsString> {
        let file = file.as_os_str().to_string_lossy();
        let valid = valid.map(|v| v.as_os_str().to_string_lossy());
        self.words
            .iter()
            .map(|w| {
                let w = w.replace(FILE_PLACEHOLDER, &file);
                match &valid {
                    Some(valid) => w.replace(VALID_PLACEHOLDER, valid).into(),
                    None => w.into(),
                }
            })
            .collect()
    }
}

/// The limits each run gets.
#[derive(Clone, Copy, Debug)]
pub struct ExecLimits {
    /// The address space cap (`ulimit -v`), in bytes.
    pub memory_bytes: usize,
    /// Wall-clock limit.
    pub timeout: Duration,
}

impl Default for ExecLimits {
    /// 4 GiB, so a decoder asking for 64 GiB dies at the cap instead of taking the machine;
    /// 60 s.
    fn default() -> Self {
        ExecLimits {
            memory_bytes: 4 << 30,
            timeout: Duration::from_secs(60),
        }
    }
}

/// What one run did.
#[derive(Clone, Debug)]
pub struct Run {
    /// How it ended.
    pub outcome: Outcome,
    /// The runtime's message for a crash or an out-of-memory, the error for a refusal, or how
    /// the process died.
    pub detail: String,
    /// The most resident memory the process (and the children it waited for) held.
    pub peak_rss_bytes: u64,
    /// From start to exit.
    pub wall: Duration,
    /// The exit status, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// The start of what it wrote on standard output.
    pub stdout: String,
    /// The end of what it wrote on standard error.
    pub stderr_tail: String,
}

/// At most this much of the start of standard output is kept (an adapter answers in a
/// word); the rest is read and dropped.
const STDOUT_KEPT: usize = 4 << 10;
/// At most this much of the start, and this much of the end, of standard error is kept.
const STDERR_KEPT: usize = 4 << 10;

/// Runs `decoder` on `file` (then on `valid`, in stream reuse mode) under `limits`, and
/// judges it. An error means the run could not start (no `sh`), not that the program failed.
pub fn run(
    decoder: &Decoder,
    file: &Path,
    valid: Option<&Path>,
    limits: &ExecLimits,
) -> Result<Run, String> {
    use std::os::unix::process::CommandExt;
    use wait4::Wait4;

    end_runs_on_interrupt();
    let kib = (limits.memory_bytes / 1024).max(1);
    // `exec` keeps the program's own exit status and signal; its own process group lets a
    // timeout end whatever it started.
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v \"$1\" && ulimit -s 8192 || exit 125; shift; exec \"$@\"")
        .arg("sh")
        .arg(kib.to_string())
        .args(decoder.argv(file, valid))
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("starting sh for {}: {e}", decoder.command))?;
    let started = Instant::now();
    let pid = child.id();
    RUNNING.store(pid, Ordering::SeqCst);
    let stdout = keep_output(child.stdout.take(), STDOUT_KEPT);
    let stderr = keep_output(child.stderr.take(), STDERR_KEPT);

    let (done, finished) = mpsc::channel::<()>();
    let timeout = limits.timeout;
    let watchdog = std::thread::spawn(move || {
        let expired = finished.recv_timeout(timeout) == Err(mpsc::RecvTimeoutError::Timeout);
        if expired {
            kill_group(pid);
        }
        expired
    });
    let waited = child.wait4();
    let wall = started.elapsed();
    let _ = done.send(());
    let timed_out = watchdog.join().unwrap_or(false);
    // Whatever it started and left behind goes with it.
    kill_group(pid);
    RUNNING.store(0, Ordering::SeqCst);
    let usage = waited.map_err(|e| format!("waiting for {}: {e}", decoder.command))?;
    let (stdout, _) = stdout.collect();
    let (stderr_head, stderr_tail) = stderr.collect();
    let stderr = stderr_head + &stderr_tail;

    let (exit_code, signal) = status_parts(usage.status);
    if exit_code == Some(125) && stderr.contains("ulimit") {
        return Err(format!(
            "could not set the memory cap ({}): {}",
            crate::units::human_bytes(limits.memory_bytes),
            stderr.trim()
        ));
    }
    let (outcome, detail) = judge(exit_code, signal, timed_out, timeout, &stderr);
    Ok(Run {
        outcome,
        detail,
        peak_rss_bytes: usage.rusage.maxrss,
        wall,
        exit_code,
        signal,
        stdout,
        stderr_tail: last_chars(&stderr, STDERR_KEPT),
    })
}

/// The process group of the run in progress, 0 between runs.
static RUNNING: AtomicU32 = AtomicU32::new(0);

/// A run has a process group of its own, which a Ctrl-C at the terminal does not reach: the
/// handler installed here ends it, then this process (status 130, as the shell reports an
/// interrupted command).
fn end_runs_on_interrupt() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            match RUNNING.load(Ordering::SeqCst) {
                0 => {}
                pid => kill_group(pid),
            }
            std::process::exit(130);
        });
    });
}

/// Exit code and signal of a finished process.
fn status_parts(status: std::process::ExitStatus) -> (Option<i32>, Option<i32>) {
    use std::os::unix::process::ExitStatusExt;
    (status.code(), status.signal())
}

/// Sends SIGKILL to the process group `pid` leads; one already gone is no error.
fn kill_group(pid: u32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// An output stream read to its end on a thread of its own, keeping its first and last
/// `kept` bytes: a runtime names its failure at the start of a long dump (Go) or at the end
/// of a traceback (Python).
struct KeptOutput {
    kept: Arc<Mutex<HeadAndTail>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

#[derive(Default)]
struct HeadAndTail {
    head: Vec<u8>,
    tail: Vec<u8>,
    /// Bytes between the head and the tail were dropped.
    cut: bool,
}

fn keep_output(stream: Option<impl Read + Send + 'static>, kept: usize) -> KeptOutput {
    let shared = Arc::new(Mutex::new(HeadAndTail::default()));
    let writer = Arc::clone(&shared);
    let reader = stream.map(|mut stream| {
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n @ 1..) = stream.read(&mut chunk) {
                let Ok(mut out) = writer.lock() else { return };
                let room = kept.saturating_sub(out.head.len());
                let (to_head, rest) = chunk[..n].split_at(n.min(room));
                out.head.extend_from_slice(to_head);
                out.tail.extend_from_slice(rest);
                let excess = out.tail.len().saturating_sub(kept);
                if excess > 0 {
                    out.tail.drain(..excess);
                    out.cut = true;
                }
            }
        })
    });
    KeptOutput {
        kept: shared,
        reader,
    }
}

impl KeptOutput {
    /// The head and the tail. A descendant that escaped the process group may hold the pipe
    /// open: after a second, what arrived so far is the answer.
    fn collect(mut self) -> (String, String) {
        if let Some(reader) = self.reader.take() {
            let deadline = Instant::now() + Duration::from_secs(1);
            while !reader.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(2));
            }
            if reader.is_finished() {
                let _ = reader.join();
            }
        }
        let Ok(out) = self.kept.lock() else {
            return Default::default();
        };
        let head = String::from_utf8_lossy(&out.head).into_owned();
        let tail = String::from_utf8_lossy(&out.tail).into_owned();
        (head, if out.cut { format!("…{tail}") } else { tail })
    }
}

/// The outcome and its detail from how the process ended and what it said last.
pub fn judge(
    exit_code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
    timeout: Duration,
    stderr: &str,
) -> (Outcome, String) {
    if timed_out {
        return (
            Outcome::Timeout,
            format!("no answer within {timeout:?}: killed"),
        );
    }
    if exit_code == Some(0) {
        return (Outcome::Decoded, String::new());
    }
    if let Some(line) = out_of_memory_message(stderr) {
        return (Outcome::Oom, line);
    }
    let said = runtime_failure_message(stderr).or_else(|| last_line(stderr));
    match (exit_code, signal) {
        (Some(1), _) => (Outcome::Refused, said.unwrap_or_default()),
        (Some(code), _) => (
            Outcome::Crash,
            match said {
                Some(said) => format!("exit status {code}: {said}"),
                None => format!("exit status {code}"),
            },
        ),
        (None, Some(signal)) => {
            let how = hardpack_check::guard::killed_by(signal);
            (
                Outcome::Crash,
                match said {
                    Some(said) => format!("{how}: {said}"),
                    None => how,
                },
            )
        }
        (None, None) => (Outcome::Crash, "ended without a status".into()),
    }
}

/// What each runtime prints when an allocation fails: Go (a block, or its own metadata and
/// threads near the cap), Python, the JVM, V8 (Node), Rust, C++, .NET, Ruby and C's
/// `strerror(ENOMEM)`. Matched without regard to case.
const OUT_OF_MEMORY: [&str; 12] = [
    "runtime: out of memory",
    "fatal error: out of memory",
    "MemoryError",
    "java.lang.OutOfMemoryError",
    "JavaScript heap out of memory",
    "Fatal process out of memory",
    "Array buffer allocation failed",
    "memory allocation of",
    "std::bad_alloc",
    "OutOfMemoryException",
    "NoMemoryError",
    // strerror(ENOMEM), and Go's `fatal error: runtime: cannot allocate memory`.
    "Cannot allocate memory",
];

/// What runtimes print when a stack overflows or an internal check fails.
const RUNTIME_FAILURE: [&str; 7] = [
    "goroutine stack exceeds",
    "java.lang.StackOverflowError",
    "Maximum call stack size exceeded",
    "RecursionError",
    "has overflowed its stack",
    "panic:",
    "Segmentation fault",
];

/// The line of `stderr` where a runtime says an allocation failed.
pub fn out_of_memory_message(stderr: &str) -> Option<String> {
    line_with(stderr, &OUT_OF_MEMORY)
}

fn runtime_failure_message(stderr: &str) -> Option<String> {
    line_with(stderr, &RUNTIME_FAILURE)
}

/// The first line holding one of `needles` (in any case), trimmed to a table cell.
fn line_with(text: &str, needles: &[&str]) -> Option<String> {
    let needles: Vec<String> = needles.iter().map(|n| n.to_lowercase()).collect();
    text.lines()
        .find(|line| {
            let line = line.to_lowercase();
            needles.iter().any(|n| line.contains(n.as_str()))
        })
        .map(cell)
}

/// The last `n` bytes of `text` (from a character boundary).
fn last_chars(text: &str, n: usize) -> String {
    let mut start = text.len().saturating_sub(n);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_string()
}

/// The last line of `text` with something on it, as a table cell.
pub fn last_line(text: &str) -> Option<String> {
    text.lines().rev().find(|l| !l.trim().is_empty()).map(cell)
}

/// A line as one table cell: trimmed, at most 160 characters.
fn cell(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(160) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn the_adapter_convention_decides_decoded_and_refused() {
        assert_eq!(judge(Some(0), None, false, MINUTE, "").0, Outcome::Decoded);
        let (outcome, detail) = judge(Some(1), None, false, MINUTE, "ValueError: bad\n");
        assert_eq!(
            (outcome, detail.as_str()),
            (Outcome::Refused, "ValueError: bad")
        );
        let (outcome, detail) = judge(Some(3), None, false, MINUTE, "");
        assert_eq!(
            (outcome, detail.as_str()),
            (Outcome::Crash, "exit status 3")
        );
    }

    #[test]
    fn each_runtime_s_out_of_memory_is_recognised() {
        for said in [
            "fatal error: runtime: out of memory\n\ngoroutine 1 [running]:",
            "Traceback (most recent call last):\nMemoryError",
            "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space",
            "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            "memory allocation of 34359738368 bytes failed",
            "fatal error: runtime: cannot allocate memory",
            "fatal error: out of memory allocating heap arena metadata",
            "terminate called after throwing an instance of 'std::bad_alloc'",
        ] {
            // Whatever the exit: Go exits 2, the JVM 1, V8 and Rust abort.
            for (code, signal) in [(Some(1), None), (Some(2), None), (None, Some(6))] {
                let (outcome, _) = judge(code, signal, false, MINUTE, said);
                assert_eq!(outcome, Outcome::Oom, "{said:?} with {code:?} {signal:?}");
            }
        }
        let (_, detail) = judge(
            Some(2),
            None,
            false,
            MINUTE,
            "\nfatal error: runtime: out of memory\n",
        );
        assert_eq!(detail, "fatal error: runtime: out of memory");
    }

    #[test]
    fn a_signal_or_a_stack_overflow_is_a_crash_with_its_name() {
        let (outcome, detail) = judge(None, Some(11), false, MINUTE, "");
        assert_eq!(outcome, Outcome::Crash);
        assert!(detail.starts_with("killed by signal 11"), "{detail}");
        let (outcome, detail) = judge(
            Some(1),
            None,
            false,
            MINUTE,
            "Exception in thread \"main\" java.lang.StackOverflowError\n\tat Foo.bar(Foo.java:1)\n",
        );
        // The JVM exits 1 on an uncaught error: the adapter convention reads it as a refusal,
        // and the detail names the overflow.
        assert_eq!(outcome, Outcome::Refused);
        assert!(detail.contains("StackOverflowError"), "{detail}");
    }

    #[test]
    fn a_timeout_wins_over_the_status_of_the_kill() {
        let (outcome, _) = judge(None, Some(9), true, MINUTE, "");
        assert_eq!(outcome, Outcome::Timeout);
    }

    #[test]
    fn a_command_must_name_the_payload() {
        assert!(Decoder::parse("python3 decode.py")
            .unwrap_err()
            .contains("{file}"));
        assert!(Decoder::parse("").is_err());
        assert!(Decoder::parse("python3 'decode.py {file}").is_err());
        let adapter = Decoder::parse("adapters/go-vmihailenco/run {file}").unwrap();
        assert_eq!(adapter.name, "go-vmihailenco");
        let own = Decoder::parse("python3 'my decoder.py' --strict {file}").unwrap();
        assert_eq!(own.name, "python3 my decoder.py --strict");
        assert!(!own.reuse());
        assert_eq!(
            own.argv(Path::new("a b"), None),
            ["python3", "my decoder.py", "--strict", "a b"].map(OsString::from)
        );
        let stream = Decoder::parse("adapters/x/run --then={valid} {file}").unwrap();
        assert!(stream.reuse());
        assert_eq!(
            stream.argv(Path::new("bad"), Some(Path::new("ok"))),
            ["adapters/x/run", "--then=ok", "bad"].map(OsString::from)
        );
    }
}
