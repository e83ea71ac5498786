//! `hardpack audit`: decode every payload in an isolated child process (`hardpack repro
//! --json` under a memory cap and a time limit), and record what each decode cost.

use std::path::{Path, PathBuf};

use clap::ValueEnum;

use crate::limit_flags::{limit_args, limit_by_name};
use crate::repro::{StreamOptions, Surface};
use crate::units::parse_size;
use hardpack::{Limit, Limits};
pub use hardpack_check::guard::collect_payloads;
use hardpack_check::guard::{run_guarded, ChildLimits};
use serde::Serialize;
use serde_json::Value as Json;

/// What one child decode did.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The payload file.
    pub path: PathBuf,
    /// Its size.
    pub input_bytes: usize,
    /// `decoded`, `rejected`, `crashed`, or `unreadable` (the file could not be read).
    pub status: &'static str,
    /// The error kind, the limit that refused it, or why the child died.
    pub detail: String,
    /// Heap bytes at peak during the decode (0 when the child crashed).
    pub peak_heap_bytes: usize,
    /// Allocations during the decode.
    pub allocations: usize,
    /// Peak heap per input byte.
    pub amplification: f64,
    /// Deepest nesting reached.
    pub depth_reached: usize,
    /// Decode time in microseconds.
    pub elapsed_us: f64,
    /// In a sweep: the value of the swept limit.
    pub limit_value: Option<usize>,
    /// The decode held more than its surface may (the report's `heap_bound_bytes`).
    pub over_budget: bool,
}

impl Row {
    /// True when the file could not be read, the child died or the decode went over its
    /// budget.
    pub fn failed(&self) -> bool {
        matches!(self.status, "crashed" | "unreadable") || self.over_budget
    }

    /// The row as the HTML report shows it.
    pub fn html_entry(&self) -> hardpack_check::html::Entry {
        hardpack_check::html::Entry {
            name: self.path.display().to_string(),
            input_bytes: self.input_bytes,
            outcome: self.status.to_string(),
            detail: self.detail.clone(),
            peak_heap_bytes: self.peak_heap_bytes,
            allocations: self.allocations,
            depth_reached: Some(self.depth_reached),
            elapsed_us: self.elapsed_us,
            limit_value: self.limit_value,
            broken: self.failed(),
        }
    }
}

/// Decodes one payload in a child `hardpack repro --json` and records the result.
pub fn audit_one(
    exe: &Path,
    path: &Path,
    limits: &Limits,
    limit_value: Option<usize>,
    surface: Surface,
    stream: StreamOptions,
) -> Result<Row, String> {
    // A row for a payload that did not get as far as a report.
    let empty_row = |input_bytes: usize, status: &'static str, detail: String| Row {
        path: path.to_path_buf(),
        input_bytes,
        status,
        detail,
        peak_heap_bytes: 0,
        allocations: 0,
        amplification: 0.0,
        depth_reached: 0,
        elapsed_us: 0.0,
        limit_value,
        over_budget: false,
    };
    // Reading it here also catches what metadata alone would not (permissions, directories).
    let input_bytes = match std::fs::read(path) {
        Ok(bytes) => bytes.len(),
        Err(e) => return Ok(empty_row(0, "unreadable", e.to_string())),
    };
    let mut args = vec!["repro".to_string(), "--json".to_string()];
    if let Some(name) = surface.to_possible_value() {
        args.extend(["--surface".to_string(), name.get_name().to_string()]);
    }
    if let Some(feed) = stream.feed {
        args.extend(["--feed".to_string(), feed.to_string()]);
    }
    if let Some(max) = stream.max_buffer_bytes {
        args.extend(["--max-buffer-bytes".to_string(), max.to_string()]);
    }
    args.extend(limit_args(limits));
    args.push(path.display().to_string());
    let (code, stdout) = run_guarded(exe, &args, &ChildLimits::for_limits(limits))?;
    let parsed: Option<Json> = serde_json::from_slice(&stdout).ok();
    let mut row = empty_row(input_bytes, "crashed", String::new());
    match (code, parsed) {
        (Ok(0 | 1), Some(report)) => {
            let outcome = &report["outcome"];
            let accepted = ["decoded", "valid", "streamed"];
            row.status = if accepted.iter().any(|s| outcome["status"] == *s) {
                "decoded"
            } else {
                "rejected"
            };
            row.detail = match (outcome["kind"].as_str(), outcome["limit"].as_str()) {
                (Some(kind), Some(limit)) => format!("{kind} ({limit})"),
                (Some(kind), None) => kind.to_string(),
                _ => String::new(),
            };
            let n = |k: &str| report[k].as_u64().unwrap_or(0) as usize;
            row.peak_heap_bytes = n("peak_heap_bytes");
            row.allocations = n("allocations");
            row.depth_reached = n("depth_reached");
            row.elapsed_us = report["elapsed_us"].as_f64().unwrap_or(0.0);
            row.amplification = row.peak_heap_bytes as f64 / input_bytes.max(1) as f64;
            row.over_budget = row.peak_heap_bytes > n("heap_bound_bytes");
        }
        (Ok(c), _) => row.detail = format!("exit status {c} without a report"),
        (Err(why), _) => row.detail = why,
    }
    Ok(row)
}

/// One limit and the values a sweep tries.
#[derive(Clone, Debug, Serialize)]
pub struct Sweep {
    /// The limit swept.
    pub limit: &'static str,
    /// The values, ascending.
    pub values: Vec<usize>,
}

impl Sweep {
    /// Parses `LIMIT=A..B` (e.g. `max_alloc_bytes=1KiB..64MiB`): A, then doubling, then B.
    pub fn parse(spec: &str) -> Result<(Limit, Sweep), String> {
        let (name, range) = spec.split_once('=').ok_or("--sweep takes LIMIT=A..B")?;
        let limit = limit_by_name(name)?;
        let (a, b) = range.split_once("..").ok_or("--sweep takes LIMIT=A..B")?;
        let (a, b) = (parse_size(a)?, parse_size(b)?);
        if a > b || b == usize::MAX {
            return Err(format!("--sweep {spec}: need A <= B < max"));
        }
        let mut values = Vec::new();
        let mut v = a.max(1);
        if a == 0 {
            values.push(0);
        }
        while v < b {
            values.push(v);
            v = v.saturating_mul(2);
        }
        values.push(b);
        Ok((
            limit,
            Sweep {
                limit: limit.name(),
                values,
            },
        ))
    }
}

/// Per payload in a sweep: the smallest value at which it decodes (values below were refused).
pub fn flip_points(rows: &[Row]) -> Vec<(PathBuf, Option<usize>)> {
    let mut paths: Vec<&PathBuf> = rows.iter().map(|r| &r.path).collect();
    paths.dedup();
    paths
        .into_iter()
        .map(|p| {
            let flip = rows
                .iter()
                .filter(|r| &r.path == p && r.status == "decoded")
                .filter_map(|r| r.limit_value)
                .min();
            (p.clone(), flip)
        })
        .collect()
}

/// The rows by amplification, highest first (ties by path).
pub fn by_amplification(rows: &[Row]) -> Vec<&Row> {
    let mut sorted: Vec<&Row> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        b.amplification
            .total_cmp(&a.amplification)
            .then(a.path.cmp(&b.path))
    });
    sorted
}

/// The table, sorted by amplification, highest first.
pub fn table(rows: &[Row]) -> String {
    use crate::units::human_bytes;
    let sorted = by_amplification(rows);
    let mut out = format!(
        "{:>9} {:>10} {:>10} {:>7} {:>6} {:>10} {:<9} {:<28} {}\n",
        "amplif.", "input", "peak", "allocs", "depth", "time", "outcome", "detail", "payload"
    );
    for r in sorted {
        let limit = r.limit_value.map(|v| format!(" [{v}]")).unwrap_or_default();
        out += &format!(
            "{:>8.1}x {:>10} {:>10} {:>7} {:>6} {:>8.1}µs {:<9} {:<28} {}{limit}{}\n",
            r.amplification,
            human_bytes(r.input_bytes),
            human_bytes(r.peak_heap_bytes),
            r.allocations,
            r.depth_reached,
            r.elapsed_us,
            r.status,
            r.detail,
            r.path.display(),
            if r.over_budget { "  OVER BUDGET" } else { "" }
        );
    }
    out
}
