//! Any program that decodes MessagePack, in any language, run on one payload as its own
//! process tree: started by the spawner ([`crate::spawner`]) under a memory cap (each
//! process's address space, and the tree's resident memory) and a time limit, measured (the
//! decoder's own peak RSS and the tree's, wall time, exit code, signal), ended with
//! everything it started, and judged with one set of outcomes. `hardpack audit --exec` and
//! `repro --exec` stand on it.
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

    /// The command's words with `{file}` and `{valid}` replaced by the paths' bytes: a path
    /// that is not UTF-8 reaches the program as it is.
    fn argv(&self, file: &Path, valid: Option<&Path>) -> Vec<OsString> {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        let file = file.as_os_str().as_bytes();
        let valid = valid.map(|v| v.as_os_str().as_bytes());
        self.words
            .iter()
            .map(|w| {
                let w = replace_bytes(w.as_bytes(), FILE_PLACEHOLDER.as_bytes(), file);
                let w = match valid {
                    Some(valid) => replace_bytes(&w, VALID_PLACEHOLDER.as_bytes(), valid),
                    None => w,
                };
                OsString::from_vec(w)
            })
            .collect()
    }
}

/// `text` with every `from` replaced by `to`.
fn replace_bytes(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.windows(from.len()).position(|w| w == from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
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
    /// The most resident memory the run held: the decoder's own peak (which includes the
    /// children it waited for), or the most its whole process tree held at once, whichever
    /// is larger.
    pub peak_rss_bytes: u64,
    /// The decoder process's own peak RSS.
    pub own_peak_rss_bytes: u64,
    /// Processes the decoder left running, killed when it ended.
    pub left_behind: u32,
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

/// The program each run is started by (see [`crate::spawner`]): the running `hardpack`
/// executable, or the one `HARDPACK_SPAWNER` names (for a program that links this crate and
/// is not `hardpack`, such as a test).
pub fn spawner_program() -> Result<std::path::PathBuf, String> {
    match std::env::var_os("HARDPACK_SPAWNER") {
        Some(path) => Ok(path.into()),
        None => std::env::current_exe()
            .map_err(|e| format!("finding the hardpack executable to start runs with: {e}")),
    }
}

/// Runs `decoder` on `file` (then on `valid`, in stream reuse mode) under `limits`, and
/// judges it. An error means the run could not start or be contained, not that the program
/// failed.
pub fn run(
    decoder: &Decoder,
    file: &Path,
    valid: Option<&Path>,
    limits: &ExecLimits,
) -> Result<Run, String> {
    use std::os::unix::process::CommandExt;

    end_runs_on_interrupt();
    let spawner = spawner_program()?;
    // The spawner's own process group lets Ctrl-C, or the spawner not answering, end it and
    // whatever is still in the group.
    let mut child = Command::new(&spawner)
        .args(crate::spawner::arguments(
            limits.timeout,
            limits.memory_bytes as u64,
            decoder.argv(file, valid),
        ))
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "starting {} to run {}: {e}",
                spawner.display(),
                decoder.command
            )
        })?;
    let pid = child.id();
    RUNNING.store(pid, Ordering::SeqCst);
    let stdout = keep_output(child.stdout.take(), STDOUT_KEPT);
    let stderr = keep_output(child.stderr.take(), STDERR_KEPT);

    // The spawner ends the run at the time limit; this is for a spawner that hangs.
    let (done, finished) = mpsc::channel::<()>();
    let grace = limits.timeout + Duration::from_secs(10);
    let watchdog = std::thread::spawn(move || {
        let expired = finished.recv_timeout(grace) == Err(mpsc::RecvTimeoutError::Timeout);
        if expired {
            kill_group(pid);
        }
        expired
    });
    let waited = child.wait();
    let _ = done.send(());
    let spawner_hung = watchdog.join().unwrap_or(false);
    kill_group(pid);
    RUNNING.store(0, Ordering::SeqCst);
    waited.map_err(|e| format!("waiting for {}: {e}", spawner.display()))?;
    let (stdout, _) = stdout.collect();
    let (stderr_head, stderr_tail) = stderr.collect();
    let stderr = stderr_head + &stderr_tail;
    if spawner_hung {
        return Err(format!(
            "{} did not answer within {grace:?} of starting {}",
            spawner.display(),
            decoder.command
        ));
    }
    let Some((answer, stderr)) = crate::spawner::take_answer(&stderr) else {
        return Err(format!(
            "{} gave no answer for {} (is it the hardpack executable?): {}",
            spawner.display(),
            decoder.command,
            last_line(&stderr).unwrap_or_default()
        ));
    };
    if let Some(error) = answer.error {
        return Err(format!("{}: {error}", decoder.command));
    }
    let (outcome, detail) = judge(&answer, limits, &stderr);
    Ok(Run {
        outcome,
        detail,
        peak_rss_bytes: answer.tree_peak_bytes,
        own_peak_rss_bytes: answer.peak_rss_bytes,
        left_behind: answer.left_behind,
        wall: Duration::from_micros(answer.wall_us),
        exit_code: answer.exit_code,
        signal: answer.signal,
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

/// The outcome and its detail from how the run ended and what the decoder said last. Exit
/// status 1 is the library's refusal whatever the message says (a message may quote a
/// runtime's words); a runtime's out-of-memory words decide only for other statuses and
/// signals.
pub fn judge(
    answer: &crate::spawner::Answer,
    limits: &ExecLimits,
    stderr: &str,
) -> (Outcome, String) {
    if answer.timed_out {
        return (
            Outcome::Timeout,
            format!("no answer within {:?}: killed", limits.timeout),
        );
    }
    if answer.over_cap {
        return (
            Outcome::Oom,
            format!(
                "the process tree held {} at once, over the cap of {}: killed",
                crate::units::human_bytes(answer.tree_peak_bytes as usize),
                crate::units::human_bytes(limits.memory_bytes)
            ),
        );
    }
    match (answer.exit_code, answer.signal) {
        (Some(0), _) => return (Outcome::Decoded, String::new()),
        (Some(1), _) => return (Outcome::Refused, last_line(stderr).unwrap_or_default()),
        _ => {}
    }
    if let Some(line) = out_of_memory_message(stderr) {
        return (Outcome::Oom, line);
    }
    let said = runtime_failure_message(stderr).or_else(|| last_line(stderr));
    match (answer.exit_code, answer.signal) {
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
const OUT_OF_MEMORY: [&str; 13] = [
    "runtime: out of memory",
    "fatal error: out of memory",
    "MemoryError",
    "java.lang.OutOfMemoryError",
    // The JVM's own allocations failing (its heap, its threads), before it writes hs_err.
    "insufficient memory for the Java Runtime Environment",
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

    use crate::spawner::Answer;

    fn ended(exit_code: Option<i32>, signal: Option<i32>, stderr: &str) -> (Outcome, String) {
        let answer = Answer {
            exit_code,
            signal,
            ..Answer::default()
        };
        judge(&answer, &ExecLimits::default(), stderr)
    }

    #[test]
    fn the_adapter_convention_decides_decoded_and_refused() {
        assert_eq!(ended(Some(0), None, "").0, Outcome::Decoded);
        let (outcome, detail) = ended(Some(1), None, "ValueError: bad\n");
        assert_eq!(
            (outcome, detail.as_str()),
            (Outcome::Refused, "ValueError: bad")
        );
        let (outcome, detail) = ended(Some(3), None, "");
        assert_eq!(
            (outcome, detail.as_str()),
            (Outcome::Crash, "exit status 3")
        );
    }

    #[test]
    fn exit_status_1_is_a_refusal_whatever_its_message_quotes() {
        for said in [
            "unknown field 'MemoryError'",
            "bad input near: fatal error: runtime: out of memory",
            "Exception: java.lang.OutOfMemoryError in the payload's text",
        ] {
            let (outcome, detail) = ended(Some(1), None, said);
            assert_eq!((outcome, detail.as_str()), (Outcome::Refused, said));
        }
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
            "# There is insufficient memory for the Java Runtime Environment to continue.",
        ] {
            // Go exits 2, an adapter's catch-all 70, V8 and Rust abort.
            for (code, signal) in [(Some(2), None), (Some(70), None), (None, Some(6))] {
                let (outcome, _) = ended(code, signal, said);
                assert_eq!(outcome, Outcome::Oom, "{said:?} with {code:?} {signal:?}");
            }
        }
        let (_, detail) = ended(Some(2), None, "\nfatal error: runtime: out of memory\n");
        assert_eq!(detail, "fatal error: runtime: out of memory");
    }

    #[test]
    fn a_signal_or_a_stack_overflow_is_a_crash_with_its_name() {
        let (outcome, detail) = ended(None, Some(11), "");
        assert_eq!(outcome, Outcome::Crash);
        assert!(detail.starts_with("killed by signal 11"), "{detail}");
        let (outcome, detail) = ended(
            Some(70),
            None,
            "Exception in thread \"main\" java.lang.StackOverflowError\n\tat Foo.bar(Foo.java:1)\n",
        );
        assert_eq!(outcome, Outcome::Crash);
        assert!(detail.contains("StackOverflowError"), "{detail}");
    }

    #[test]
    fn a_timeout_wins_over_the_status_of_the_kill_and_a_tree_over_the_cap_is_oom() {
        let answer = Answer {
            signal: Some(9),
            timed_out: true,
            ..Answer::default()
        };
        let limits = ExecLimits::default();
        assert_eq!(judge(&answer, &limits, "").0, Outcome::Timeout);
        let answer = Answer {
            signal: Some(9),
            over_cap: true,
            tree_peak_bytes: 5 << 30,
            ..Answer::default()
        };
        let (outcome, detail) = judge(&answer, &limits, "");
        assert_eq!(outcome, Outcome::Oom);
        assert!(detail.contains("over the cap of 4.0 GiB"), "{detail}");
    }

    #[test]
    fn a_path_that_is_not_utf8_reaches_the_program_as_it_is() {
        use std::os::unix::ffi::OsStrExt;
        let decoder = Decoder::parse("decode --in={file} {file}").unwrap();
        let path = Path::new(std::ffi::OsStr::from_bytes(b"payloads/\xff\xfe.bin"));
        assert_eq!(
            decoder.argv(path, None),
            [
                OsString::from("decode"),
                std::ffi::OsStr::from_bytes(b"--in=payloads/\xff\xfe.bin").to_owned(),
                path.as_os_str().to_owned(),
            ]
        );
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
