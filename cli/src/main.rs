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
    if args.json {
        let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        println!("{json}");
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
