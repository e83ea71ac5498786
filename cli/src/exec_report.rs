//! `hardpack audit --exec` across decoders: each decoder's baseline, a row per payload, and
//! the reports (text, JSON rows, HTML). A command naming `{valid}` is run in stream reuse
//! mode: the payload, then a valid document, to the same decoder object.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

pub use crate::exec::VALID_PLACEHOLDER;
use crate::exec::{self, Decoder, ExecLimits, Outcome};
use crate::units::{human_bytes, human_duration};

/// The valid document of the reuse mode and its value, `[1, "reuse", {"a": true}]`.
pub const VALID_DOCUMENT: &[u8] = b"\x93\x01\xa5reuse\x81\xa1a\xc3";

/// Figures this close to a decoder's baseline are measurement noise, not what a payload cost:
/// twenty runs of one adapter on the one-byte document spread by up to 768 KiB (Go's
/// runtime; 608 KiB for V8, 480 KiB for the JVM, 72 KiB for CPython), and a program that
/// reads nothing by 200 KiB. No payload is named the worst for a figure below it.
pub const NOISE_FLOOR_BYTES: u64 = 1 << 20;

/// The one-byte document (nil) on which a decoder's baseline memory is measured.
pub const ONE_BYTE_DOCUMENT: &[u8] = &[0xc0];

/// What a decoder in stream reuse mode answers on standard output (with exit status 0):
/// the valid document came back; the decoder raised again (failed for good); a different
/// value came back; the payload raised no error, so there was nothing to recover from.
pub const REUSE_ANSWERS: [&str; 4] = ["recovered", "refused-again", "desynchronised", "no-error"];

/// The files the runs share: the one-byte document and the valid document, in a temporary
/// directory removed on drop.
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Writes the documents to a new temporary directory.
    pub fn new() -> Result<Scratch, String> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("hardpack-exec-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let scratch = Scratch { dir };
        for (name, bytes) in [("nil", ONE_BYTE_DOCUMENT), ("valid", VALID_DOCUMENT)] {
            let path = scratch.dir.join(name);
            std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(scratch)
    }

    fn one_byte(&self) -> PathBuf {
        self.dir.join("nil")
    }

    fn valid(&self) -> PathBuf {
        self.dir.join("valid")
    }

    /// A file in the directory, for a payload that is not a file yet (standard input, hex).
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
        let path = self.dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A decoder with what it costs to decode nothing.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The program.
    pub decoder: Decoder,
    /// Its command names `{valid}`: each payload, then the valid document, to one decoder.
    pub reuse: bool,
    /// The median peak RSS of three runs on the one-byte document.
    pub baseline_rss_bytes: u64,
}

/// Parses a command and measures its baseline: three runs on the one-byte document, each of
/// which must decode (in reuse mode: answer `no-error`), or the command is wrong.
pub fn measure(command: &str, limits: &ExecLimits, scratch: &Scratch) -> Result<Measured, String> {
    let decoder = Decoder::parse(command)?;
    let reuse = decoder.reuse();
    let mut peaks = Vec::new();
    for _ in 0..3 {
        let one_byte = scratch.one_byte();
        let run = run_one(&decoder, reuse, &one_byte, limits, scratch)?;
        let expected = if reuse { "no-error" } else { "decoded" };
        if run.outcome != expected {
            return Err(format!(
                "{}: on a one-byte document (nil) the outcome was {} where {expected} was \
                 expected{}{}; is the command right, and the adapter installed \
                 (scripts/setup-adapters)?",
                decoder.command,
                run.outcome,
                if run.detail.is_empty() { "" } else { ": " },
                run.detail
            ));
        }
        peaks.push(run.peak_rss_bytes);
    }
    peaks.sort_unstable();
    Ok(Measured {
        decoder,
        reuse,
        baseline_rss_bytes: peaks[peaks.len() / 2],
    })
}

/// One run, judged: a process outcome, or in reuse mode the decoder's answer.
struct Judged {
    outcome: String,
    detail: String,
    run: exec::Run,
    peak_rss_bytes: u64,
}

fn run_one(
    decoder: &Decoder,
    reuse: bool,
    path: &Path,
    limits: &ExecLimits,
    scratch: &Scratch,
) -> Result<Judged, String> {
    let valid = scratch.valid();
    let run = exec::run(decoder, path, reuse.then_some(valid.as_path()), limits)?;
    let (outcome, detail) = match (reuse, run.outcome) {
        (false, outcome) | (true, outcome @ (Outcome::Crash | Outcome::Oom | Outcome::Timeout)) => {
            (outcome.name().to_string(), run.detail.clone())
        }
        (true, Outcome::Decoded) => {
            // The word, then what happened in words (on the next line, or on stderr).
            let answer = run.stdout.trim_start();
            let (word, said) = answer
                .split_once(char::is_whitespace)
                .unwrap_or((answer, ""));
            if REUSE_ANSWERS.contains(&word) {
                let said = said.lines().map(str::trim).find(|l| !l.is_empty());
                let detail = said.map_or_else(
                    || exec::last_line(&run.stderr_tail).unwrap_or_default(),
                    String::from,
                );
                (word.to_string(), detail)
            } else {
                (
                    "unanswered".to_string(),
                    format!(
                        "answered {word:?}; in stream reuse mode an adapter answers one of {}",
                        REUSE_ANSWERS.join(", ")
                    ),
                )
            }
        }
        (true, Outcome::Refused) => (
            "unanswered".to_string(),
            format!(
                "exit status 1 in stream reuse mode, where an adapter answers a word with \
                 exit status 0: {}",
                run.detail
            ),
        ),
    };
    Ok(Judged {
        outcome,
        detail,
        peak_rss_bytes: run.peak_rss_bytes,
        run,
    })
}

fn lossy_path<S: serde::Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

/// What one decoder did with one payload.
#[derive(Clone, Debug, Serialize)]
pub struct ExecRow {
    /// The decoder's name.
    pub decoder: String,
    /// The payload: its path below the directory it was found in, or its file name.
    pub id: String,
    /// The payload file (in JSON, a name that is not UTF-8 is written with U+FFFD for what
    /// is not, and its bytes in `path_hex`).
    #[serde(serialize_with = "lossy_path")]
    pub path: PathBuf,
    /// The payload file's name as bytes in hex, when it is not UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_hex: Option<String>,
    /// Its size.
    pub input_bytes: usize,
    /// `decoded`, `refused`, `crash`, `oom`, `timeout` or `unreadable`; in stream reuse mode
    /// one of the answers (`recovered`, `refused-again`, `desynchronised`, `no-error`) or
    /// `unanswered`, or how the process failed.
    pub outcome: String,
    /// The runtime's message, the error, or how the process died.
    pub detail: String,
    /// The most resident memory the run held: the decoder's own peak, or the most its whole
    /// process tree held at once, whichever is larger.
    pub peak_rss_bytes: u64,
    /// The decoder's peak RSS on a one-byte document.
    pub baseline_rss_bytes: u64,
    /// Peak RSS above the baseline: what the payload cost.
    pub above_baseline_bytes: u64,
    /// Bytes above the baseline per input byte.
    pub amplification: f64,
    /// Wall time of the run, in milliseconds.
    pub wall_ms: f64,
    /// The exit status, when the process exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// The end of its standard error.
    pub stderr_tail: String,
    /// Processes it started that were still running when it ended (killed then).
    pub left_behind: u32,
}

impl ExecRow {
    /// The decoder failed on this payload: it crashed, ran out of memory, hung, lost its
    /// place in a stream, did not answer, or the payload could not be read.
    pub fn failed(&self) -> bool {
        matches!(
            self.outcome.as_str(),
            "crash" | "oom" | "timeout" | "desynchronised" | "unanswered" | "unreadable"
        )
    }
}

/// Runs `measured` on the payload at `path` and records the row.
pub fn audit_one(
    measured: &Measured,
    id: &str,
    path: &Path,
    limits: &ExecLimits,
    scratch: &Scratch,
) -> Result<ExecRow, String> {
    let mut row = ExecRow {
        decoder: measured.decoder.name.clone(),
        id: id.to_string(),
        path: path.to_path_buf(),
        path_hex: path.to_str().is_none().then(|| {
            use std::os::unix::ffi::OsStrExt;
            path.as_os_str()
                .as_bytes()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        }),
        input_bytes: 0,
        outcome: "unreadable".to_string(),
        detail: String::new(),
        peak_rss_bytes: 0,
        baseline_rss_bytes: measured.baseline_rss_bytes,
        above_baseline_bytes: 0,
        amplification: 0.0,
        wall_ms: 0.0,
        exit_code: None,
        signal: None,
        stderr_tail: String::new(),
        left_behind: 0,
    };
    // Read here so a file that cannot be read is a row, not a decoder's failure.
    match std::fs::read(path) {
        Ok(bytes) => row.input_bytes = bytes.len(),
        Err(e) => {
            row.detail = e.to_string();
            return Ok(row);
        }
    }
    let judged = run_one(&measured.decoder, measured.reuse, path, limits, scratch)?;
    row.above_baseline_bytes = judged
        .peak_rss_bytes
        .saturating_sub(measured.baseline_rss_bytes);
    row.amplification = row.above_baseline_bytes as f64 / row.input_bytes.max(1) as f64;
    row.outcome = judged.outcome;
    row.detail = judged.detail;
    row.peak_rss_bytes = judged.peak_rss_bytes;
    row.wall_ms = judged.run.wall.as_secs_f64() * 1e3;
    row.exit_code = judged.run.exit_code;
    row.signal = judged.run.signal;
    row.stderr_tail = judged.run.stderr_tail;
    row.left_behind = judged.run.left_behind;
    Ok(row)
}

/// Payload files and their ids: each input's files, named by their path below it (a file
/// given directly is named by its file name).
pub fn payloads_with_ids(inputs: &[PathBuf]) -> Result<Vec<(String, PathBuf)>, String> {
    let mut out = Vec::new();
    for input in inputs {
        for path in hardpack_check::guard::collect_payloads(std::slice::from_ref(input))? {
            let id = match path.strip_prefix(input) {
                Ok(below) if !below.as_os_str().is_empty() => below.display().to_string(),
                _ => path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| path.display().to_string()),
            };
            out.push((id, path));
        }
    }
    Ok(out)
}

/// The decoders' names, made unique (`name`, `name #2`) where two commands share one.
pub fn unique_names(measured: &mut [Measured]) {
    for i in 1..measured.len() {
        let name = measured[i].decoder.name.clone();
        let before = measured[..i]
            .iter()
            .filter(|m| m.decoder.name == name || m.decoder.name.starts_with(&format!("{name} #")))
            .count();
        if before > 0 {
            measured[i].decoder.name = format!("{name} #{}", before + 1);
        }
    }
}

/// A decoder's rows: failures first, then most memory above the baseline (ties by id).
fn rows_of<'a>(decoder: &str, rows: &'a [ExecRow]) -> Vec<&'a ExecRow> {
    let mut mine: Vec<&ExecRow> = rows.iter().filter(|r| r.decoder == decoder).collect();
    mine.sort_by(|a, b| {
        b.failed()
            .cmp(&a.failed())
            .then(b.above_baseline_bytes.cmp(&a.above_baseline_bytes))
            .then(a.id.cmp(&b.id))
    });
    mine
}

/// One decoder's rows in a table: failures first, then most memory above the baseline.
pub fn table(measured: &Measured, rows: &[ExecRow], limits: &ExecLimits) -> String {
    let sorted = rows_of(&measured.decoder.name, rows);
    let mut out = format!(
        "decoder {}: {}{}\n  baseline {} peak RSS on a one-byte document; each run capped at {} (each process's address space, and the process tree at once) and {}\n",
        measured.decoder.name,
        measured.decoder.command,
        if measured.reuse {
            " (stream reuse: the payload, then a valid document, to one decoder)"
        } else {
            ""
        },
        human_bytes(measured.baseline_rss_bytes as usize),
        human_bytes(limits.memory_bytes),
        human_duration(limits.timeout),
    );
    out += &format!(
        "  {:>10} {:>10} {:>9} {:>9}  {:<14} {:<40} {}\n",
        "above base", "peak RSS", "input", "wall", "outcome", "payload", "detail"
    );
    for r in sorted {
        out += &format!(
            "  {:>10} {:>10} {:>9} {:>9}  {:<14} {:<40} {}\n",
            human_bytes(r.above_baseline_bytes as usize),
            human_bytes(r.peak_rss_bytes as usize),
            human_bytes(r.input_bytes),
            human_duration(Duration::from_secs_f64(r.wall_ms / 1e3)),
            r.outcome,
            r.id,
            r.detail
        );
    }
    out
}

/// One decoder's outcomes counted, and its worst payload.
#[derive(Clone, Debug, Serialize)]
pub struct DecoderSummary {
    /// The decoder.
    pub decoder: String,
    /// Its command.
    pub command: String,
    /// Its peak RSS on the one-byte document.
    pub baseline_rss_bytes: u64,
    /// Each outcome and how many payloads had it, in the order of first appearance.
    pub outcomes: Vec<(String, usize)>,
    /// The most memory above the baseline a payload cost, and which payload.
    pub worst_above_baseline_bytes: u64,
    /// The payload of the worst.
    pub worst_payload: Option<String>,
    /// Payloads on which it failed (crash, oom, timeout, desynchronised, unanswered).
    pub failed: usize,
}

impl DecoderSummary {
    /// The outcomes counted, in words: `3 refused, 1 decoded`.
    pub fn outcomes_text(&self) -> String {
        self.outcomes
            .iter()
            .map(|(o, n)| format!("{n} {o}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A summary per decoder, in the order they were given.
pub fn summaries(measured: &[Measured], rows: &[ExecRow]) -> Vec<DecoderSummary> {
    measured
        .iter()
        .map(|m| {
            let mine: Vec<&ExecRow> = rows
                .iter()
                .filter(|r| r.decoder == m.decoder.name)
                .collect();
            let mut outcomes: Vec<(String, usize)> = Vec::new();
            for r in &mine {
                match outcomes.iter_mut().find(|(o, _)| *o == r.outcome) {
                    Some((_, n)) => *n += 1,
                    None => outcomes.push((r.outcome.clone(), 1)),
                }
            }
            let worst = mine
                .iter()
                .max_by(|a, b| {
                    a.above_baseline_bytes
                        .cmp(&b.above_baseline_bytes)
                        .then(b.id.cmp(&a.id))
                })
                .filter(|r| r.above_baseline_bytes > NOISE_FLOOR_BYTES);
            DecoderSummary {
                decoder: m.decoder.name.clone(),
                command: m.decoder.command.clone(),
                baseline_rss_bytes: m.baseline_rss_bytes,
                outcomes,
                worst_above_baseline_bytes: worst.map_or(0, |r| r.above_baseline_bytes),
                worst_payload: worst.map(|r| r.id.clone()),
                failed: mine.iter().filter(|r| r.failed()).count(),
            }
        })
        .collect()
}

/// The summaries as a text table.
pub fn summary_table(summaries: &[DecoderSummary], payloads: usize) -> String {
    let mut out = format!(
        "{payloads} payloads through {} decoders:\n  {:<32} {:>9} {:>7}  {:<44} {}\n",
        summaries.len(),
        "decoder",
        "baseline",
        "failed",
        "outcomes",
        "worst above baseline"
    );
    for s in summaries {
        let outcomes = s.outcomes_text();
        let worst = match &s.worst_payload {
            Some(p) => format!(
                "{} ({p})",
                human_bytes(s.worst_above_baseline_bytes as usize)
            ),
            None => format!(
                "none above the noise floor ({})",
                human_bytes(NOISE_FLOOR_BYTES as usize)
            ),
        };
        out += &format!(
            "  {:<32} {:>9} {:>7}  {:<44} {}\n",
            s.decoder,
            human_bytes(s.baseline_rss_bytes as usize),
            s.failed,
            outcomes,
            worst
        );
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A self-contained HTML page: the summary per decoder, then every row by decoder.
pub fn html(command: &str, summaries: &[DecoderSummary], rows: &[ExecRow]) -> String {
    let mut page = String::from(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>hardpack audit --exec</title>\n<style>\
         body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}\
         table{border-collapse:collapse;margin:1em 0}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right;vertical-align:top}\
         td.l,th.l{text-align:left}tr.failed td{background:#fde8e8}code{font-size:.9em}\
         dl.legend{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{font-weight:bold}\
         .bar{display:inline-block;height:.8em;background:#4a78c2;vertical-align:middle}\
         .stack{display:flex;width:24em;height:1em}.stack span{display:block;height:100%}\
         </style></head><body>\n<h1>Decoders under hostile MessagePack</h1>\n",
    );
    page += &format!("<p><code>{}</code></p>\n", escape(command));
    page += &legend();
    page += "<h2>Summary</h2>\n<table><tr><th class=\"l\">decoder</th><th>baseline RSS</th><th>failed</th><th class=\"l\">outcomes</th><th class=\"l\"></th><th>worst above baseline</th><th class=\"l\">payload</th></tr>\n";
    for s in summaries {
        let worst = match &s.worst_payload {
            Some(_) => human_bytes(s.worst_above_baseline_bytes as usize),
            None => "below the noise floor".into(),
        };
        page += &format!(
            "<tr{}><td class=\"l\"><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td class=\"l\">{}</td></tr>\n",
            if s.failed > 0 { " class=\"failed\"" } else { "" },
            anchor(&s.decoder),
            escape(&s.decoder),
            human_bytes(s.baseline_rss_bytes as usize),
            s.failed,
            escape(&s.outcomes_text()),
            outcome_stack(&s.outcomes),
            worst,
            escape(s.worst_payload.as_deref().unwrap_or("")),
        );
    }
    page += "</table>\n";
    for s in summaries {
        let mine = rows_of(&s.decoder, rows);
        let most = mine
            .iter()
            .map(|r| r.above_baseline_bytes)
            .max()
            .unwrap_or(0);
        let failed = mine.iter().filter(|r| r.failed()).count();
        page += &format!(
            "<h2 id=\"{}\">{}</h2>\n<p><code>{}</code>: {} runs, {failed} failed. Failures first, then the most memory above the baseline; the bar is memory above the baseline against this decoder's most.</p>\n",
            anchor(&s.decoder),
            escape(&s.decoder),
            escape(&s.command),
            mine.len(),
        );
        page += &memory_chart(&s.decoder, &mine);
        let header = "<table><tr><th>above baseline</th><th class=\"l\"></th><th>peak RSS</th><th>input</th><th>wall ms</th><th class=\"l\">outcome</th><th class=\"l\">payload</th><th class=\"l\">detail</th></tr>\n";
        // The failures and the costliest runs are shown; the rest are one click away.
        let shown = mine
            .iter()
            .take_while(|r| r.failed() || r.above_baseline_bytes > NOISE_FLOOR_BYTES)
            .count()
            .max(failed)
            .max(10.min(mine.len()));
        page += header;
        for r in &mine[..shown] {
            page += &html_row(r, most);
        }
        page += "</table>\n";
        if shown < mine.len() {
            page += &format!(
                "<details><summary>the other {} runs (none failed, none above the noise floor)</summary>\n{header}",
                mine.len() - shown
            );
            for r in &mine[shown..] {
                page += &html_row(r, most);
            }
            page += "</table></details>\n";
        }
    }
    page += "</body></html>\n";
    page
}

/// A decoder's memory above its baseline against input size, a point per run, with the
/// noise floor drawn: what grows with the input, and what a small input made large.
fn memory_chart(decoder: &str, rows: &[&ExecRow]) -> String {
    let entries: Vec<hardpack_check::html::Entry> = rows
        .iter()
        .map(|r| hardpack_check::html::Entry {
            name: r.id.clone(),
            input_bytes: r.input_bytes,
            outcome: r.outcome.clone(),
            detail: r.detail.clone(),
            peak_heap_bytes: r.above_baseline_bytes as usize,
            allocations: 0,
            depth_reached: None,
            elapsed_us: r.wall_ms * 1000.0,
            limit_value: None,
            broken: r.failed(),
        })
        .collect();
    let caption = format!("{decoder}: memory above baseline against input size");
    let chart = hardpack_check::html::MemoryChart {
        caption: &caption,
        y_desc: "peak RSS above baseline (0 B on the bottom edge)",
        value_lines: false,
        floor: Some((NOISE_FLOOR_BYTES as usize, "noise floor")),
    };
    match hardpack_check::html::memory_vs_input_svg(&entries, &chart) {
        Ok(svg) => format!("<figure>{svg}</figure>\n"),
        Err(e) => format!("<p>(no chart: {})</p>\n", escape(&e)),
    }
}

/// What each outcome and figure means, at the top of the page.
fn legend() -> String {
    let mut out = String::from("<h2>How to read this page</h2>\n<dl class=\"legend\">\n");
    let items: [(&str, String); 12] = [
        ("decoded", "exit status 0: the document decoded".into()),
        ("refused", "exit status 1: the library raised its error, whatever the message says".into()),
        ("crash", "another exit status, or a signal: the runtime failed (a stack overflow, a panic, a segfault)".into()),
        ("oom", "the runtime said an allocation failed, or the process tree held more than the cap at once".into()),
        ("timeout", "no answer within the time limit: the process tree was killed".into()),
        ("recovered", "stream reuse: after its error the same decoder object read the valid document that followed".into()),
        ("refused-again", "stream reuse: the decoder stayed failed (raised again on the valid document)".into()),
        ("desynchronised", "stream reuse: another value came back: the decoder resumed inside the bad document (a failure)".into()),
        ("no-error", "stream reuse: the payload raised no error (a value cut short waits for more bytes)".into()),
        ("unanswered", "stream reuse: the adapter answered none of the words above (a failure)".into()),
        ("above baseline", format!(
            "peak RSS of the run minus the decoder's peak on a one-byte document: what the payload cost. Figures under {} are noise.",
            human_bytes(NOISE_FLOOR_BYTES as usize)
        )),
        ("peak RSS", crate::spawner::MEASUREMENT.to_string()),
    ];
    for (term, meaning) in items {
        out += &format!("<dt>{}</dt><dd>{}</dd>\n", escape(term), escape(&meaning));
    }
    out += "</dl>\n";
    out
}

/// A bar of the decoder's outcomes, one colour each, in proportion.
fn outcome_stack(outcomes: &[(String, usize)]) -> String {
    let total: usize = outcomes.iter().map(|(_, n)| n).sum::<usize>().max(1);
    let colour = |outcome: &str| match outcome {
        "decoded" | "recovered" | "no-error" => "#6aa84f",
        "refused" | "refused-again" => "#93c47d",
        "crash" => "#cc0000",
        "oom" => "#e69138",
        "timeout" => "#8e7cc3",
        _ => "#999999",
    };
    let mut out = String::from("<div class=\"stack\">");
    for (outcome, n) in outcomes {
        out += &format!(
            "<span style=\"width:{:.2}%;background:{}\" title=\"{}: {n}\"></span>",
            *n as f64 * 100.0 / total as f64,
            colour(outcome),
            escape(outcome)
        );
    }
    out + "</div>"
}

fn html_row(r: &ExecRow, most: u64) -> String {
    let width = if most == 0 {
        0.0
    } else {
        r.above_baseline_bytes as f64 * 10.0 / most as f64
    };
    format!(
        "<tr{}><td>{}</td><td class=\"l\"><span class=\"bar\" style=\"width:{width:.2}em\"></span></td><td>{}</td><td>{}</td><td>{:.1}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>\n",
        if r.failed() { " class=\"failed\"" } else { "" },
        human_bytes(r.above_baseline_bytes as usize),
        human_bytes(r.peak_rss_bytes as usize),
        human_bytes(r.input_bytes),
        r.wall_ms,
        escape(&r.outcome),
        escape(&r.id),
        escape(&r.detail),
    )
}

/// An HTML id for a decoder's section.
fn anchor(decoder: &str) -> String {
    let id: String = decoder
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("decoder-{id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, outcome: &str, above: u64) -> ExecRow {
        ExecRow {
            decoder: "d".into(),
            id: id.into(),
            path: PathBuf::from(id),
            path_hex: None,
            input_bytes: 1,
            outcome: outcome.into(),
            detail: String::new(),
            peak_rss_bytes: (10 << 20) + above,
            baseline_rss_bytes: 10 << 20,
            above_baseline_bytes: above,
            amplification: above as f64,
            wall_ms: 1.0,
            exit_code: None,
            signal: None,
            stderr_tail: String::new(),
            left_behind: 0,
        }
    }

    fn measured() -> Measured {
        Measured {
            decoder: Decoder::parse("d {file}").unwrap(),
            reuse: false,
            baseline_rss_bytes: 10 << 20,
        }
    }

    #[test]
    fn no_payload_is_named_the_worst_for_a_figure_below_the_noise_floor() {
        let rows = [
            row("a", "decoded", 900 << 10),
            row("b", "refused", 300 << 10),
        ];
        let summary = &summaries(&[measured()], &rows)[0];
        assert_eq!(summary.worst_payload, None);
        assert!(summary_table(std::slice::from_ref(summary), 2)
            .contains("none above the noise floor (1.0 MiB)"));
        let rows = [
            row("a", "decoded", 900 << 10),
            row("big", "refused", 3 << 20),
        ];
        let summary = &summaries(&[measured()], &rows)[0];
        assert_eq!(summary.worst_payload.as_deref(), Some("big"));
        assert_eq!(summary.worst_above_baseline_bytes, 3 << 20);
    }

    #[test]
    fn the_page_has_a_legend_and_puts_failures_before_costlier_runs() {
        let rows = [
            row("costly", "decoded", 50 << 20),
            row("died", "crash", 0),
            row("quiet", "refused", 0),
        ];
        let page = html("hardpack audit", &summaries(&[measured()], &rows), &rows);
        for term in [
            "<dt>refused</dt>",
            "<dt>above baseline</dt>",
            "<dt>desynchronised</dt>",
        ] {
            assert!(page.contains(term), "no {term} in the legend");
        }
        let section = &page[page.find("<h2 id=\"decoder-d\">").unwrap()..];
        let died = section.find("<td class=\"l\">died</td>").unwrap();
        let costly = section.find("<td class=\"l\">costly</td>").unwrap();
        assert!(died < costly, "the failure is not first");
        assert!(page.contains("class=\"stack\""), "no outcome chart");
    }

    #[test]
    fn each_decoder_section_charts_memory_above_baseline_against_input_size() {
        let mut rows = vec![row("small", "decoded", 0), row("large", "oom", 3 << 30)];
        rows[1].input_bytes = 5;
        let mut other = row("x", "refused", 0);
        other.decoder = "e".into();
        rows.push(other);
        let mut second = measured();
        second.decoder = Decoder::parse("e {file}").unwrap();
        let page = html(
            "hardpack audit",
            &summaries(&[measured(), second], &rows),
            &rows,
        );
        for decoder in ["d", "e"] {
            let start = page
                .find(&format!("<h2 id=\"decoder-{decoder}\">"))
                .unwrap();
            let section = &page[start..];
            let end = section[4..].find("<h2").map_or(section.len(), |e| e + 4);
            let section = &section[..end];
            assert_eq!(section.matches("<svg").count(), 1, "{decoder}: one chart");
            assert!(section.contains("memory above baseline against input size"));
            assert!(
                section.contains("noise floor"),
                "{decoder}: the floor is drawn"
            );
        }
    }
}
