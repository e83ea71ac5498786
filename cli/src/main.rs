//! `hardpack`: reproduce a MessagePack payload under given limits and report what it cost.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use hardpack::{Limit, Limits};
use hardpack_cli::{audit, compare, html};
use hardpack_harness::alloc_meter::{self, CountingAlloc};
use hardpack_harness::repro::{
    self, human_bytes, human_duration, parse_hex, parse_size, OutcomeReport,
};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Exit status for a payload the codec rejected.
const REJECTED: u8 = 1;
/// Exit status for bad usage or an unreadable input.
const USAGE: u8 = 2;
/// Exit status for a payload on which a fuzz target's oracle fails.
const ORACLE_FAILED: u8 = 3;

fn target_name(name: &str) -> Result<String, String> {
    match hardpack_harness::target(name) {
        Some(_) => Ok(name.to_string()),
        None => {
            let names: Vec<&str> = hardpack_harness::TARGETS.iter().map(|t| t.name).collect();
            Err(format!(
                "unknown target {name:?}; one of {}",
                names.join(", ")
            ))
        }
    }
}

/// Runs a target's harness; `Err` carries the oracle's panic message.
fn run_target(name: &str, payload: &[u8]) -> Result<String, String> {
    let target = hardpack_harness::target(name).ok_or_else(|| format!("unknown target {name}"))?;
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(|| (target.run)(payload));
    std::panic::set_hook(previous_hook);
    result.map(|outcome| outcome.to_string()).map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "the harness panicked".to_string())
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
    /// Exit status: 0 decoded, 1 rejected by the codec, 2 usage or I/O error.
    Repro(ReproArgs),
    /// Decode many payloads, each in an isolated child process, and report what each cost.
    ///
    /// A directory is walked (metadata files are skipped). Prints a table sorted by
    /// amplification (peak heap / input size). Exit status: 0 clean, 1 if any payload
    /// crashed its child or went above max_alloc_bytes, 2 usage or I/O error.
    Audit(AuditArgs),
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

#[derive(Args)]
struct AuditArgs {
    /// Payload files or directories (regression/, corpus/ ...)
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Write the results as JSON to this file (- for standard output)
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write a self-contained HTML report with charts to this file
    #[arg(long)]
    html: Option<PathBuf>,
    /// Decode every payload under a range of one limit: LIMIT=A..B, e.g.
    /// max_alloc_bytes=1KiB..64MiB or max_depth=1..100000 (A, doubling, B)
    #[arg(long)]
    sweep: Option<String>,
    #[command(flatten)]
    limits: LimitFlags,
}

/// One flag per limit; unset flags keep `Limits::default()`. Sizes take units: 64KiB, 16MiB, max.
#[derive(Args)]
struct LimitFlags {
    /// Containers nested inside each other [default: 128]
    #[arg(long, value_parser = parse_size)]
    max_depth: Option<usize>,
    /// Elements of one array [default: 1048576]
    #[arg(long, value_parser = parse_size)]
    max_array_len: Option<usize>,
    /// Entries of one map [default: 262144]
    #[arg(long, value_parser = parse_size)]
    max_map_len: Option<usize>,
    /// Bytes of one str [default: 16MiB]
    #[arg(long, value_parser = parse_size)]
    max_str_len: Option<usize>,
    /// Bytes of one bin [default: 16MiB]
    #[arg(long, value_parser = parse_size)]
    max_bin_len: Option<usize>,
    /// Payload bytes of one ext [default: 16MiB]
    #[arg(long, value_parser = parse_size)]
    max_ext_len: Option<usize>,
    /// Heap bytes one decode may allocate [default: 64MiB]
    #[arg(long, value_parser = parse_size)]
    max_alloc_bytes: Option<usize>,
}

impl LimitFlags {
    fn limits(&self) -> Limits {
        let flags = [
            (Limit::Depth, self.max_depth),
            (Limit::ArrayLen, self.max_array_len),
            (Limit::MapLen, self.max_map_len),
            (Limit::StrLen, self.max_str_len),
            (Limit::BinLen, self.max_bin_len),
            (Limit::ExtLen, self.max_ext_len),
            (Limit::AllocBytes, self.max_alloc_bytes),
        ];
        flags
            .into_iter()
            .fold(Limits::default(), |limits, (limit, value)| match value {
                Some(v) => limits.with(limit, v),
                None => limits,
            })
    }
}

#[derive(Args)]
struct ReproArgs {
    /// The payload file, or - for standard input
    input: PathBuf,
    /// The input is hex text (whitespace, 0x and \x allowed), not raw bytes
    #[arg(long)]
    hex: bool,
    /// Print one JSON object instead of text
    #[arg(long)]
    json: bool,
    /// Also decode it with rmpv and rmp-serde in guarded child processes, side by side
    #[arg(long)]
    compare: bool,
    /// Also run this fuzz target's harness on the payload, oracle included (exit 3 if it
    /// fails): decode, decode_limits, differential_rmpv, roundtrip_structured, encode_deep
    #[arg(long, value_parser = target_name)]
    target: Option<String>,
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
    let payload = read_input(&args.input, args.hex)?;
    let report = repro::repro(&payload, &args.limits.limits());
    let oracle = args.target.as_deref().map(|t| (t, run_target(t, &payload)));
    if args.json {
        let mut json = serde_json::to_value(&report).map_err(|e| e.to_string())?;
        if let Some((target, result)) = &oracle {
            json["target"] = serde_json::json!({
                "name": target,
                "oracle": if result.is_ok() { "held" } else { "failed" },
                "detail": match result { Ok(outcome) => outcome, Err(message) => message },
            });
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?
        );
    } else {
        println!(
            "payload:  {} ({})",
            args.input.display(),
            human_bytes(report.input_bytes)
        );
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
        }
        let meter = if alloc_meter::is_installed() {
            ""
        } else {
            " (allocator not counted)"
        };
        println!(
            "heap:     {} at peak, {} allocations{meter}",
            human_bytes(report.peak_heap_bytes),
            report.allocations
        );
        println!(
            "time:     {}",
            human_duration(Duration::from_secs_f64(report.elapsed_us / 1e6))
        );
        match &oracle {
            Some((target, Ok(outcome))) => println!("target:   {target}: oracle held ({outcome})"),
            Some((target, Err(message))) => {
                println!("target:   {target}: ORACLE FAILED: {message}")
            }
            None => {}
        }
    }
    if args.compare {
        print_comparison(&args.input, &report, &args.limits.limits())?;
    }
    if matches!(oracle, Some((_, Err(_)))) {
        return Ok(ExitCode::from(ORACLE_FAILED));
    }
    Ok(ExitCode::from(if report.decoded() { 0 } else { REJECTED }))
}

fn print_comparison(
    input: &std::path::Path,
    ours: &repro::Report,
    limits: &Limits,
) -> Result<(), String> {
    if input.as_os_str() == "-" {
        return Err("--compare needs a file, not standard input".into());
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // The peers get the memory hardpack was allowed, plus room for the program.
    let memory = limits.max_alloc_bytes.min(16 << 30).saturating_add(1 << 30);
    let peers = compare::compare_peers(&exe, input, memory)?;
    let ours_detail = match &ours.outcome {
        OutcomeReport::Decoded { .. } => String::new(),
        OutcomeReport::Rejected { message, .. } => message.clone(),
    };
    println!(
        "\n{:<10} {:<9} {:>10} {:>12}  detail",
        "decoder", "outcome", "peak heap", "time"
    );
    let ours_status = if ours.decoded() {
        "decoded"
    } else {
        "rejected"
    };
    let rows = std::iter::once((
        "hardpack".to_string(),
        ours_status.to_string(),
        ours.peak_heap_bytes,
        ours.elapsed_us,
        ours_detail,
    ))
    .chain(peers.into_iter().map(|p| {
        (
            p.implementation,
            p.status,
            p.peak_heap_bytes,
            p.elapsed_us,
            p.detail,
        )
    }));
    for (name, status, peak, us, detail) in rows {
        println!(
            "{name:<10} {status:<9} {:>10} {:>12}  {detail}",
            human_bytes(peak),
            human_duration(Duration::from_secs_f64(us / 1e6))
        );
    }
    println!(
        "(each peer ran in a child process with an 8 MiB stack and a {} memory cap)",
        human_bytes(memory)
    );
    Ok(())
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
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let payloads = audit::collect_payloads(&args.inputs)?;
    if payloads.is_empty() {
        return Err("no payloads found".into());
    }
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
            rows.push(audit::audit_one(&exe, path, limits, *value)?);
            progress(rows.len(), total, path);
        }
    }
    print!("{}", audit::table(&rows));
    if let Some((_, s)) = &sweep {
        println!(
            "\nwhere each payload starts to decode as {} grows:",
            s.limit
        );
        for (path, flip) in audit::flip_points(&rows) {
            match flip {
                Some(v) => println!("  {:>12}  {}", v, path.display()),
                None => println!("  {:>12}  {}", "never", path.display()),
            }
        }
    }
    let failed: Vec<&audit::Row> = rows.iter().filter(|r| r.failed()).collect();
    let worst = rows.iter().map(|r| r.amplification).fold(0.0, f64::max);
    println!(
        "\n{} decodes of {} payloads; worst amplification {worst:.1}x; {} failed (crashed or over max_alloc_bytes)",
        rows.len(),
        payloads.len(),
        failed.len()
    );
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    if let Some(path) = &args.json {
        let json = serde_json::json!({
            "command": command,
            "limits": repro::LimitsReport(Limit::ALL.iter().map(|l| (l.name(), base.get(*l))).collect()),
            "sweep": sweep.as_ref().map(|(_, s)| s),
            "rows": rows,
        });
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        if path.as_os_str() == "-" {
            println!("{text}");
        } else {
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    if let Some(path) = &args.html {
        let page = html::report(&rows, sweep.as_ref().map(|(_, s)| s.limit), &command)?;
        std::fs::write(path, page).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("audit: report written to {}", path.display());
    }
    Ok(ExitCode::from(if failed.is_empty() { 0 } else { 1 }))
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
