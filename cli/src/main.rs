//! `hardpack`: reproduce a MessagePack payload under given limits and report what it cost.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use hardpack::{Limit, Limits};
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
    if matches!(oracle, Some((_, Err(_)))) {
        return Ok(ExitCode::from(ORACLE_FAILED));
    }
    Ok(ExitCode::from(if report.decoded() { 0 } else { REJECTED }))
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
    };
    result.unwrap_or_else(|message| {
        eprintln!("hardpack: {message}");
        ExitCode::from(USAGE)
    })
}
