//! What each example test prints: its report, and one `table:` line for
//! `docs/harden-your-types.md`.

use hardpack_check::{Outcome, Report};

/// Prints the report and its `table:` line: type, decoder, payloads, places reached, broken
/// rows, time, build.
pub fn table(report: &Report, started: std::time::Instant) {
    eprintln!("{}", report.text());
    let places = report.places();
    let reached = places.iter().filter(|p| p.reached_by.is_some()).count();
    let broken: Vec<String> = report
        .broken()
        .iter()
        .map(|(row, _)| format!("{} ({})", row.id, outcome(&row.outcome)))
        .collect();
    eprintln!(
        "table: {} | {} | {} payloads | {reached}/{} places | {} broken: {} | {:.1} s | {}",
        report.type_name,
        report.decoder,
        report.rows.len(),
        places.len(),
        broken.len(),
        broken.join(", "),
        started.elapsed().as_secs_f64(),
        report.build
    );
}

fn outcome(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::StackOverflow => "stack overflow",
        Outcome::OverHeapCeiling(_) => "over the heap ceiling",
        Outcome::Panicked(_) => "panic",
        Outcome::TimedOut => "time",
        Outcome::Crashed(_) => "crash",
        _ => "held too much",
    }
}
