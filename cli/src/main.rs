//! `hardpack`: reproduce a MessagePack payload under given limits and report what it cost.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use hardpack::Limits;
use hardpack_cli::exec::ExecLimits;
use hardpack_cli::exec_report::{self, ExecRow, Measured, Scratch};
use hardpack_cli::limit_flags::LimitFlags;
use hardpack_cli::repro::{self, LimitsReport, OutcomeReport, Surface};
use hardpack_cli::units::{human_bytes, human_duration, parse_duration, parse_hex, parse_size};
use hardpack_cli::{audit, compare};
use hardpack_harness::alloc_meter::{self, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Exit status for a payload the codec rejected.
const REJECTED: u8 = 1;
/// Exit status for bad usage or an unreadable input.
const USAGE: u8 = 2;
/// Exit status for a payload on which a fuzz target's oracle fails.
const ORACLE_FAILED: u8 = 3;
/// Exit status for a payload on which the program of `repro --exec` crashed, ran out of
/// memory, hung or lost its place in a stream.
const DECODER_FAILED: u8 = 4;

fn target_name(name: &str) -> Result<&'static hardpack_harness::Target, String> {
    hardpack_harness::target(name).ok_or_else(|| {
        let names: Vec<&str> = hardpack_harness::TARGETS.iter().map(|t| t.name).collect();
        format!("unknown target {name:?}; one of {}", names.join(", "))
    })
}

#[derive(Parser)]
#[command(
    name = "hardpack",
    version,
    about = "Reproduce MessagePack payloads and audit what they make a decoder allocate"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Decode one payload and report the outcome, peak heap, allocations and time.
    ///
    /// Exit status: 0 decoded (or a structured target's oracle held), 1 rejected by the
    /// codec (with --exec: the program refused it), 2 usage or I/O error, 3 a fuzz target's
    /// oracle failed, 4 with --exec: the program crashed, ran out of memory, hung or lost its
    /// place in a stream.
    Repro(ReproArgs),
    /// Decode many payloads, each in an isolated child process, and report what each cost.
    ///
    /// A directory is walked (hidden files, notes and tables are skipped: the report lists
    /// what counts). Prints a table sorted by amplification (peak heap / input size). Exit
    /// status: 0 clean, 1 if any payload crashed its child or went above max_alloc_bytes
    /// (with --exec: if any run crashed, ran out of memory, hung, lost its place in a stream
    /// or did not answer), 2 usage or I/O error.
    Audit(AuditArgs),
    /// List the fuzz targets (one name a line; --json for what each checks). The scripts
    /// read the list from here.
    Targets {
        /// Print a JSON array of {name, checks, structured}
        #[arg(long)]
        json: bool,
    },
    /// List the generic hostile payloads hardpack-check runs against any decoder.
    ///
    /// Recursion bombs, length claims, amplification and malformed input: index, id, size and
    /// what each does; --write DIR writes each to DIR/<id>. scripts/gen-corpus seeds the fuzz
    /// targets from here.
    Payloads {
        /// Write each payload to DIR/<id> (the directory is created)
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
        /// Print a JSON array of {index, id, what, bytes}
        #[arg(long)]
        json: bool,
    },
    /// Write the attacks on captured messages, node by node, for a decoder in any language.
    ///
    /// Each MESSAGE (a file holding one valid MessagePack value, or a directory of them) is
    /// attacked at every node in its place: the largest claim at each array, map, str and
    /// bin, the extremes at each integer, each container nested --depth deep, a bomb in an
    /// unknown key of each map, duplicate keys, every cut. The rest of each document stays
    /// valid, so the decoder reaches each attack. Without --write, lists them; `audit --exec`
    /// runs the written ones through that decoder.
    Mutate {
        /// Captured messages: files, or directories walked for files
        #[arg(required = true, value_name = "MESSAGE")]
        messages: Vec<PathBuf>,
        /// Write each payload to DIR/<message>/<id> (created)
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
        /// How deep each container is nested
        #[arg(long, default_value_t = hardpack_check::RECURSION_DEPTH, value_name = "LEVELS")]
        depth: usize,
        /// Print a JSON array of {message, id, what, place, offset, bytes}
        #[arg(long)]
        json: bool,
    },
    /// Decode a payload with another implementation in this process, measured (used by
    /// `repro --compare` inside a guarded child).
    #[command(hide = true)]
    PeerDecode {
        /// rmpv or rmp-serde
        implementation: String,
        /// The payload file
        input: PathBuf,
    },
}

/// How `--surface stream` feeds a payload.
#[derive(Args, Clone, Copy)]
struct StreamFlags {
    /// With --surface stream: feed the payload N bytes at a time (default: all at once;
    /// --feed 1 is the slowloris case). Sizes take KiB/MiB suffixes
    #[arg(long, value_name = "N", value_parser = positive_size)]
    feed: Option<usize>,
    /// With --surface stream: the most bytes held for a value that has not arrived whole
    /// (default: the longest str/bin/ext the limits allow, plus 64 KiB)
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_buffer_bytes: Option<usize>,
}

impl StreamFlags {
    /// The options, refused with a surface that is not `stream`.
    fn options(&self, surface: Surface) -> Result<repro::StreamOptions, String> {
        if surface != Surface::Stream && (self.feed.is_some() || self.max_buffer_bytes.is_some()) {
            return Err("--feed and --max-buffer-bytes need --surface stream".into());
        }
        Ok(repro::StreamOptions {
            feed: self.feed,
            max_buffer_bytes: self.max_buffer_bytes,
        })
    }
}

fn positive_size(s: &str) -> Result<usize, String> {
    match parse_size(s)? {
        0 => Err("must be at least 1".into()),
        n => Ok(n),
    }
}

/// Running another program on each payload instead of hardpack.
#[derive(Args)]
struct ExecFlags {
    /// With --exec: the memory cap of each run, on each process's address space (`ulimit
    /// -v`) and on the resident memory of its whole process tree at once; a decoder that
    /// asks for more dies at the cap, as out of memory
    #[arg(long, value_name = "SIZE", value_parser = positive_size, default_value = "4GiB", requires = "exec")]
    memory: usize,
    /// With --exec: the wall-clock limit of each run; one that runs longer is killed, as a
    /// timeout
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "60s", requires = "exec")]
    timeout: Duration,
}

impl ExecFlags {
    fn limits(&self) -> ExecLimits {
        ExecLimits {
            memory_bytes: self.memory,
            timeout: self.timeout,
        }
    }
}

#[derive(Args)]
struct AuditArgs {
    /// Payload files or directories (regression/, corpus/, `hardpack payloads --write` or
    /// `hardpack mutate --write` output ...)
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Run each payload through this program instead of hardpack, as its own process: a
    /// command line in which {file} is the payload (exit 0 decoded, 1 refused; see
    /// adapters/README.md). {valid} in it runs the stream reuse mode: the payload, then a
    /// valid document, to one decoder. Repeat for several decoders
    #[arg(long, value_name = "CMD")]
    exec: Vec<String>,
    #[command(flatten)]
    exec_flags: ExecFlags,
    /// Write the results as JSON to this file (- for standard output)
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write a self-contained HTML report with charts to this file: peak heap against input
    /// size (with --sweep, against the limit); with --exec, a section per decoder with its
    /// memory above baseline against input size, failures first
    #[arg(long)]
    html: Option<PathBuf>,
    /// Decode every payload under a range of one limit: LIMIT=A..B, e.g.
    /// max_alloc_bytes=1KiB..64MiB or max_depth=1..100000 (A, doubling, B)
    #[arg(long)]
    sweep: Option<String>,
    /// The decoding surface each payload goes through: owned (a Value), borrowed (a
    /// ValueRef), validate (nothing built), strict (a Value, canonical forms and unique str
    /// keys only), typed (serde into a schema that takes any document), typed-strict (the
    /// same in strict mode) or stream (values back to back, fed --feed bytes at a time)
    #[arg(long, value_enum, default_value_t = Surface::Owned)]
    surface: Surface,
    #[command(flatten)]
    stream: StreamFlags,
    #[command(flatten)]
    limits: LimitFlags,
}

#[derive(Args)]
struct ReproArgs {
    /// The payload file, or - for standard input
    input: PathBuf,
    /// Run the payload through this program instead of hardpack, as its own process: a
    /// command line in which {file} is the payload (exit 0 decoded, 1 refused; see
    /// adapters/README.md); {valid} in it runs the stream reuse mode
    #[arg(long, value_name = "CMD", conflicts_with_all = ["compare", "target"])]
    exec: Option<String>,
    #[command(flatten)]
    exec_flags: ExecFlags,
    /// The input is hex text (whitespace, 0x and \x allowed), not raw bytes
    #[arg(long)]
    hex: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// Print nothing but, for a rejected payload, its error on standard error: the exit
    /// status is the answer (how adapters/hardpack runs it)
    #[arg(long, conflicts_with_all = ["json", "compare"])]
    quiet: bool,
    /// Also decode it with rmpv (read_value, read_value_ref) and rmp-serde in guarded child
    /// processes, side by side
    /// (needs a file, not standard input)
    #[arg(long)]
    compare: bool,
    /// Run this fuzz target's harness on the payload instead, oracle included, and report
    /// what the target did (exit 3 if its oracle fails). `hardpack targets` lists them.
    #[arg(long, value_parser = target_name, conflicts_with = "surface")]
    target: Option<&'static hardpack_harness::Target>,
    /// The decoding surface: owned (decode to a Value), borrowed (a ValueRef that borrows
    /// str, bin and ext payloads from the input), validate (the same verdict, nothing built),
    /// strict (a Value; non-canonical forms, non-str keys and repeated keys refused), typed
    /// (serde's from_slice into a schema that takes any document), typed-strict (the same
    /// through a strict Decoder) or stream (a StreamDecoder fed --feed bytes at a time;
    /// values back to back)
    #[arg(long, value_enum, default_value_t = Surface::Owned)]
    surface: Surface,
    /// With --surface stream: the stream reuse mode. Feed VALID (a valid document) to the
    /// same StreamDecoder after the payload failed, and print one word: recovered,
    /// refused-again, desynchronised, or no-error (the payload raised none)
    #[arg(long, value_name = "VALID")]
    then: Option<PathBuf>,
    #[command(flatten)]
    stream: StreamFlags,
    #[command(flatten)]
    limits: LimitFlags,
}

fn read_input(path: &PathBuf, hex: bool) -> Result<Vec<u8>, String> {
    let mut raw = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut raw)
            .map_err(|e| format!("reading standard input: {e}"))?;
    } else {
        raw = std::fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    }
    if hex {
        let text = String::from_utf8(raw).map_err(|_| "--hex input is not text".to_string())?;
        parse_hex(&text).map_err(|e| format!("--hex input: {e}"))
    } else {
        Ok(raw)
    }
}

fn run_repro(args: &ReproArgs) -> Result<ExitCode, String> {
    if let Some(command) = &args.exec {
        return run_exec_repro(args, command);
    }
    // Arguments first: nothing is decoded for a command that cannot finish.
    if args.compare && args.input.as_os_str() == "-" {
        return Err("--compare needs a file, not standard input".into());
    }
    let stream = args.stream.options(args.surface)?;
    let payload = read_input(&args.input, args.hex)?;
    let name = args.input.display().to_string();
    let limits = args.limits.limits();
    if let Some(valid) = &args.then {
        if args.surface != Surface::Stream || args.compare || args.target.is_some() {
            return Err("--then needs --surface stream (and no --compare or --target)".into());
        }
        let valid =
            std::fs::read(valid).map_err(|e| format!("reading {}: {e}", valid.display()))?;
        let (answer, detail) = repro::stream_reuse(&payload, &valid, &limits, stream);
        if args.json {
            let json = serde_json::json!({"payload": name, "reuse": answer, "detail": detail});
            println!(
                "{}",
                serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?
            );
        } else {
            println!("{answer}\n{detail}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let report = match args.target {
        Some(target) => repro::repro_target(&name, &payload, target),
        None => repro::repro(&name, &payload, &limits, args.surface, stream),
    };
    let peers = if args.compare {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        Some(compare::compare_peers(
            &exe,
            &args.input,
            peer_memory(&limits),
        )?)
    } else {
        None
    };
    if args.quiet {
        if let OutcomeReport::Rejected { message, .. } = &report.outcome {
            eprintln!("{message}");
        }
    } else if args.json {
        let mut json = serde_json::to_value(&report).map_err(|e| e.to_string())?;
        if let Some(peers) = &peers {
            json["compare"] = serde_json::to_value(peers).map_err(|e| e.to_string())?;
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?
        );
    } else {
        print_report(&report);
        if let Some(peers) = &peers {
            print_comparison(&report, peers, peer_memory(&limits));
        }
    }
    if report.oracle_failed() {
        return Ok(ExitCode::from(ORACLE_FAILED));
    }
    // A structured target's run whose oracle held rejected nothing: its input is no payload.
    let clean = report.decoded() || matches!(report.outcome, OutcomeReport::Checked { .. });
    Ok(ExitCode::from(if clean { 0 } else { REJECTED }))
}

/// The memory a peer decoder gets: what hardpack was allowed, plus room for the program.
fn peer_memory(limits: &Limits) -> usize {
    limits.max_alloc_bytes.min(16 << 30).saturating_add(1 << 30)
}

fn print_report(report: &repro::Report) {
    println!(
        "payload:  {} ({})",
        report.payload,
        human_bytes(report.input_bytes)
    );
    if !matches!(report.surface, "owned" | "target") {
        println!("surface:  {}", report.surface);
    }
    if let Some(target) = &report.target {
        println!("target:   {}", target.name);
        println!("limits:   {}", describe_limits(&report.limits));
    }
    match &report.outcome {
        OutcomeReport::Decoded {
            top_level_type,
            values,
            containers,
            max_depth,
            bytes_consumed,
        } => println!(
            "outcome:  decoded {top_level_type}: {values} values, {containers} containers, max depth {max_depth}, {bytes_consumed} bytes consumed"
        ),
        OutcomeReport::Rejected { kind, message, .. } => {
            println!("outcome:  rejected ({kind})\n          {message}")
        }
        OutcomeReport::Streamed {
            values,
            bytes_consumed,
        } => println!("outcome:  streamed: {values} values, {bytes_consumed} bytes consumed"),
        OutcomeReport::Valid {
            bytes_consumed,
            charged_bytes,
        } => println!(
            "outcome:  valid: {bytes_consumed} bytes consumed; a decode would charge {charged_bytes} bytes (nothing was built)"
        ),
        OutcomeReport::Checked { detail } => println!("outcome:  {detail}"),
    }
    if let Some(stream) = &report.stream {
        let max = match stream.max_buffer_bytes.0 {
            usize::MAX => "unlimited".to_string(),
            n => human_bytes(n),
        };
        println!(
            "stream:   fed {} at a time; {} values ({} bytes) returned; at most {} held for an incomplete value (max_buffer_bytes {max})",
            human_bytes(stream.feed_bytes),
            stream.values,
            stream.bytes_consumed,
            human_bytes(stream.peak_buffered_bytes),
        );
    }
    let meter = if alloc_meter::is_installed() {
        ""
    } else {
        " (allocator not counted)"
    };
    let what = if report.target.is_some() {
        " (the whole target run)"
    } else {
        ""
    };
    println!(
        "heap:     {} at peak, {} allocations{meter}{what}; may hold {}",
        human_bytes(report.peak_heap_bytes),
        report.allocations,
        human_bytes(report.heap_bound_bytes)
    );
    println!(
        "time:     {}",
        human_duration(Duration::from_secs_f64(report.elapsed_us / 1e6))
    );
    if let Some(target) = &report.target {
        match target.oracle {
            "held" => println!("oracle:   held"),
            _ => println!("oracle:   FAILED: {}", target.detail),
        }
    }
}

/// `max_depth 3, max_array_len 250, ...`, unlimited ones as `max`.
fn describe_limits(limits: &LimitsReport) -> String {
    limits
        .0
        .iter()
        .map(|(name, value)| match value.0 {
            usize::MAX => format!("{name} max"),
            v => format!("{name} {v}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_comparison(ours: &repro::Report, peers: &[compare::PeerResult], memory: usize) {
    let ours_detail = match &ours.outcome {
        OutcomeReport::Rejected { message, .. } => message.clone(),
        _ => String::new(),
    };
    println!(
        "\n{:<15} {:<9} {:>10} {:>12}  detail",
        "decoder", "outcome", "peak heap", "time"
    );
    let ours_status = if ours.decoded() {
        "decoded"
    } else {
        "rejected"
    };
    let rows = std::iter::once((
        "hardpack",
        ours_status,
        ours.peak_heap_bytes,
        ours.elapsed_us,
        ours_detail.as_str(),
    ))
    .chain(peers.iter().map(|p| {
        (
            p.implementation.as_str(),
            p.status.as_str(),
            p.peak_heap_bytes,
            p.elapsed_us,
            p.detail.as_str(),
        )
    }));
    for (name, status, peak, us, detail) in rows {
        println!(
            "{name:<15} {status:<9} {:>10} {:>12}  {detail}",
            human_bytes(peak),
            human_duration(Duration::from_secs_f64(us / 1e6))
        );
    }
    println!(
        "(each peer ran in a child process with an 8 MiB stack and a {} memory cap)",
        human_bytes(memory)
    );
}

fn progress(done: usize, total: usize, what: &std::path::Path) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        eprint!(
            "\raudit {done}/{total} {:<60.60}",
            what.display().to_string()
        );
        if done == total {
            eprintln!();
        }
    } else if done == total || done % 50 == 0 {
        eprintln!("audit {done}/{total}");
    }
}

fn run_audit(args: &AuditArgs) -> Result<ExitCode, String> {
    if !args.exec.is_empty() {
        return run_exec_audit(args);
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let payloads = audit::collect_payloads(&args.inputs)?;
    if payloads.is_empty() {
        return Err("no payloads found".into());
    }
    let stream = args.stream.options(args.surface)?;
    let base = args.limits.limits();
    let sweep = args.sweep.as_deref().map(audit::Sweep::parse).transpose()?;
    let runs: Vec<(Limits, Option<usize>)> = match &sweep {
        None => vec![(base.clone(), None)],
        Some((limit, s)) => s
            .values
            .iter()
            .map(|v| (base.clone().with(*limit, *v), Some(*v)))
            .collect(),
    };
    let total = payloads.len() * runs.len();
    let mut rows = Vec::with_capacity(total);
    for path in &payloads {
        for (limits, value) in &runs {
            rows.push(audit::audit_one(
                &exe,
                path,
                limits,
                *value,
                args.surface,
                stream,
            )?);
            progress(rows.len(), total, path);
        }
    }
    let mut text = audit::table(&rows);
    if let Some((_, s)) = &sweep {
        text += &format!(
            "\nwhere each payload starts to decode as {} grows:\n",
            s.limit
        );
        for (path, flip) in audit::flip_points(&rows) {
            let at = flip.map_or("never".to_string(), |v| v.to_string());
            text += &format!("  {:>12}  {}\n", at, path.display());
        }
    }
    let failed = rows.iter().filter(|r| r.failed()).count();
    let worst = rows.iter().map(|r| r.amplification).fold(0.0, f64::max);
    text += &format!(
        "\n{} decodes of {} payloads; worst amplification {worst:.1}x; {failed} failed (unreadable, crashed or over the heap the surface may hold)\n",
        rows.len(),
        payloads.len(),
    );
    let command = command_line();
    let json = serde_json::json!({
        "command": command,
        "limits": LimitsReport::of(&base),
        "sweep": sweep.as_ref().map(|(_, s)| s),
        "rows": rows,
    });
    let html = || {
        let entries: Vec<_> = rows.iter().map(audit::Row::html_entry).collect();
        hardpack_check::html::page(
            "hardpack allocation audit",
            &command,
            &entries,
            sweep.as_ref().map(|(limit, _)| *limit),
        )
    };
    write_audit_reports(args, &text, &json, html)?;
    Ok(ExitCode::from(if failed == 0 { 0 } else { 1 }))
}

/// An audit's reports: the text (on standard error when `--json -` takes standard output,
/// which then carries the JSON document and nothing else), `--json` and `--html`.
fn write_audit_reports(
    args: &AuditArgs,
    text: &str,
    json: &serde_json::Value,
    html: impl FnOnce() -> Result<String, String>,
) -> Result<(), String> {
    let json_on_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if json_on_stdout {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(json).map_err(|e| e.to_string())?;
        if json_on_stdout {
            println!("{json}");
        } else {
            std::fs::write(path, json).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    if let Some(path) = &args.html {
        std::fs::write(path, html()?).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("audit: report written to {}", path.display());
    }
    Ok(())
}

/// The flags that set up hardpack's own decode, refused with --exec, where another program
/// decodes.
fn refuse_hardpack_flags(
    surface: Surface,
    stream: &StreamFlags,
    limits: &hardpack_cli::limit_flags::LimitFlags,
) -> Result<(), String> {
    if surface != Surface::Owned
        || stream.feed.is_some()
        || stream.max_buffer_bytes.is_some()
        || !limits.is_empty()
    {
        return Err(
            "--exec runs another program: --surface, --feed, --max-buffer-bytes and the \
                    limit flags set up hardpack's own decode (the hardpack adapter passes them \
                    to hardpack)"
                .into(),
        );
    }
    Ok(())
}

/// The command as typed, without the path of this executable (reports are committed).
fn command_line() -> String {
    std::iter::once("hardpack".to_string())
        .chain(
            std::env::args_os()
                .skip(1)
                .map(|a| a.to_string_lossy().into_owned())
                .map(|a| shlex::try_quote(&a).map(|q| q.into_owned()).unwrap_or(a)),
        )
        .collect::<Vec<_>>()
        .join(" ")
}

fn run_exec_audit(args: &AuditArgs) -> Result<ExitCode, String> {
    refuse_hardpack_flags(args.surface, &args.stream, &args.limits)?;
    if args.sweep.is_some() {
        return Err("--sweep sweeps one of hardpack's limits; it does not apply to --exec".into());
    }
    let limits = args.exec_flags.limits();
    let payloads = exec_report::payloads_with_ids(&args.inputs)?;
    if payloads.is_empty() {
        return Err("no payloads found".into());
    }
    let scratch = Scratch::new()?;
    let mut measured = Vec::new();
    for command in &args.exec {
        eprintln!("audit: measuring {command} on a one-byte document");
        measured.push(exec_report::measure(command, &limits, &scratch)?);
    }
    exec_report::unique_names(&mut measured);
    let total = payloads.len() * measured.len();
    let mut rows: Vec<ExecRow> = Vec::with_capacity(total);
    for m in &measured {
        for (id, path) in &payloads {
            rows.push(exec_report::audit_one(m, id, path, &limits, &scratch)?);
            progress(
                rows.len(),
                total,
                &PathBuf::from(format!("{}: {id}", m.decoder.name)),
            );
        }
    }
    let summaries = exec_report::summaries(&measured, &rows);
    let mut text = String::new();
    for m in &measured {
        text += &exec_report::table(m, &rows, &limits);
        text += "\n";
    }
    text += &exec_report::summary_table(&summaries, payloads.len());
    text += &format!(
        "payloads: {}\nmemory: {}\n",
        hardpack_check::guard::payload_rule(),
        hardpack_cli::spawner::MEASUREMENT
    );
    let failed = rows.iter().filter(|r| r.failed()).count();
    text += &format!(
        "{} runs; {failed} failed (crash, out of memory, timeout, a stream that lost its place, no answer, or an unreadable file)\n",
        rows.len()
    );
    let command = command_line();
    let json = serde_json::json!({
        "command": command,
        "memory_cap_bytes": limits.memory_bytes,
        "timeout_ms": limits.timeout.as_millis() as u64,
        "payloads": hardpack_check::guard::payload_rule(),
        "measurement": hardpack_cli::spawner::MEASUREMENT,
        "decoders": summaries,
        "rows": rows,
    });
    write_audit_reports(args, &text, &json, || {
        Ok(exec_report::html(&command, &summaries, &rows))
    })?;
    Ok(ExitCode::from(if failed == 0 { 0 } else { 1 }))
}

fn run_exec_repro(args: &ReproArgs, command: &str) -> Result<ExitCode, String> {
    refuse_hardpack_flags(args.surface, &args.stream, &args.limits)?;
    let limits = args.exec_flags.limits();
    let scratch = Scratch::new()?;
    // A payload from standard input or hex text becomes a file the program can open.
    let path = if args.hex || args.input.as_os_str() == "-" {
        scratch.write("payload", &read_input(&args.input, args.hex)?)?
    } else {
        std::fs::metadata(&args.input)
            .map_err(|e| format!("reading {}: {e}", args.input.display()))?;
        args.input.clone()
    };
    let measured: Measured = exec_report::measure(command, &limits, &scratch)?;
    let id = args.input.display().to_string();
    let row = exec_report::audit_one(&measured, &id, &path, &limits, &scratch)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&row).map_err(|e| e.to_string())?
        );
    } else {
        println!("payload:  {} ({})", row.id, human_bytes(row.input_bytes));
        println!("decoder:  {} ({})", row.decoder, measured.decoder.command);
        match row.detail.as_str() {
            "" => println!("outcome:  {}", row.outcome),
            detail => println!("outcome:  {}: {detail}", row.outcome),
        }
        println!(
            "memory:   {} peak RSS, {} above the baseline ({} on a one-byte document); cap {}",
            human_bytes(row.peak_rss_bytes as usize),
            human_bytes(row.above_baseline_bytes as usize),
            human_bytes(row.baseline_rss_bytes as usize),
            human_bytes(limits.memory_bytes)
        );
        let ended = match (row.exit_code, row.signal) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(signal)) => format!("signal {signal}"),
            (None, None) => "no status".to_string(),
        };
        println!(
            "time:     {} wall; {ended}",
            human_duration(Duration::from_secs_f64(row.wall_ms / 1e3))
        );
        if row.left_behind > 0 {
            println!(
                "left:     {} process(es) it started were still running when it ended: killed",
                row.left_behind
            );
        }
        if !row.stderr_tail.trim().is_empty() {
            println!("stderr (end):");
            for line in row
                .stderr_tail
                .lines()
                .rev()
                .take(12)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                println!("  {line}");
            }
        }
    }
    Ok(ExitCode::from(match row.outcome.as_str() {
        _ if row.failed() => DECODER_FAILED,
        "refused" => REJECTED,
        _ => 0,
    }))
}

fn run_targets(json: bool) -> Result<ExitCode, String> {
    let targets = hardpack_harness::TARGETS;
    if json {
        let list: Vec<serde_json::Value> = targets
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name,
                    "structured": t.is_structured(),
                    "checks": t.checks,
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&list).map_err(|e| e.to_string())?
        );
    } else {
        for t in targets {
            println!("{}", t.name);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_payloads(write: Option<&std::path::Path>, json: bool) -> Result<ExitCode, String> {
    let payloads = hardpack_check::generic();
    if let Some(dir) = write {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for p in &payloads {
            let path = dir.join(&p.id);
            p.bytes
                .write_file(&path)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        eprintln!(
            "hardpack payloads: {} written to {}",
            payloads.len(),
            dir.display()
        );
    }
    if json {
        let list: Vec<serde_json::Value> = payloads
            .iter()
            .enumerate()
            .map(|(index, p)| {
                serde_json::json!({"index": index, "id": p.id, "what": p.what, "bytes": p.bytes.len()})
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&list).map_err(|e| e.to_string())?
        );
    } else if write.is_none() {
        for (index, p) in payloads.iter().enumerate() {
            println!(
                "{index:4}  {:<40} {:>9}  {}",
                p.id,
                human_bytes(p.bytes.len()),
                p.what
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_mutate(
    messages: &[PathBuf],
    write: Option<&std::path::Path>,
    depth: usize,
    json: bool,
) -> Result<ExitCode, String> {
    if depth == 0 {
        return Err("--depth must be at least 1".into());
    }
    let files = hardpack_check::guard::collect_payloads(messages)?;
    let mut list = Vec::new();
    let (mut count, mut total) = (0usize, 0usize);
    for file in &files {
        let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let name: String = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "message".into());
        let payloads = hardpack_check::for_sample(&name, &bytes, depth)
            .map_err(|e| format!("{}: not one MessagePack value: {e}", file.display()))?;
        let dir = write.map(|dir| dir.join(payload_dir_name(&name)));
        if let Some(dir) = &dir {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        for p in &payloads {
            if let Some(dir) = &dir {
                let path = dir.join(p.file_name());
                p.bytes
                    .write_file(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
            if json {
                list.push(serde_json::json!({
                    "message": file.display().to_string(),
                    "id": p.id,
                    "what": p.what,
                    "place": p.place,
                    "offset": p.offset,
                    "bytes": p.bytes.len(),
                }));
            } else if write.is_none() {
                use std::io::Write as _;
                let line = format!("{:<56} {:>9}  {}", p.id, human_bytes(p.bytes.len()), p.what);
                if writeln!(std::io::stdout().lock(), "{line}").is_err() {
                    // The reader went away (`| head`): nothing more to say.
                    return Ok(ExitCode::SUCCESS);
                }
            }
            total += p.bytes.len();
        }
        count += payloads.len();
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&list).map_err(|e| e.to_string())?
        );
    }
    eprintln!(
        "hardpack mutate: {count} payloads ({}) from {} messages{}",
        human_bytes(total),
        files.len(),
        write
            .map(|dir| format!(", written to {}", dir.display()))
            .unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}

/// A message's file name as a directory name.
fn payload_dir_name(name: &str) -> String {
    hardpack_check::Payload::new(name, "", Vec::new()).file_name()
}

fn run_peer_decode(implementation: &str, input: &std::path::Path) -> Result<ExitCode, String> {
    let payload = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let result = compare::decode_in_process(implementation, &payload)?;
    println!(
        "{}",
        serde_json::to_string(&result).map_err(|e| e.to_string())?
    );
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    #[cfg(unix)]
    {
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        if args.first().map(|a| a.as_os_str()) == Some(hardpack_cli::spawner::SPAWNER_ARG.as_ref())
        {
            return hardpack_cli::spawner::main(&args[1..]);
        }
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { USAGE } else { 0 });
        }
    };
    let result = match &cli.command {
        Command::Repro(args) => run_repro(args),
        Command::Audit(args) => run_audit(args),
        Command::Targets { json } => run_targets(*json),
        Command::Payloads { write, json } => run_payloads(write.as_deref(), *json),
        Command::Mutate {
            messages,
            write,
            depth,
            json,
        } => run_mutate(messages, write.as_deref(), *depth, *json),
        Command::PeerDecode {
            implementation,
            input,
        } => run_peer_decode(implementation, input),
    };
    result.unwrap_or_else(|message| {
        eprintln!("hardpack: {message}");
        ExitCode::from(USAGE)
    })
}
