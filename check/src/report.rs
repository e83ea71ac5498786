//! What a check found: a row per payload (outcome, peak heap, allocations, time,
//! amplification), what counts as broken, and the report as text and JSON.

use std::fmt::Write as _;
use std::time::Duration;

use hardpack::{Limit, Limits};

use crate::payload::Payload;

/// What decoding one payload did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Decoded into the type.
    Accepted,
    /// Refused with an error: what a hostile payload should get.
    Refused(String),
    /// The decoder panicked (with its message).
    Panicked(String),
    /// The decoding thread overflowed its stack: the process aborted.
    StackOverflow,
    /// The decode asked for more heap than the ceiling: the allocator refused and the
    /// process aborted.
    OverHeapCeiling(String),
    /// The process died another way (signal, abort), with its last words.
    Crashed(String),
    /// The decode took longer than the time limit; it was killed.
    TimedOut,
    /// Not run: the check could not go on (see [`Report::failure`]).
    NotRun,
}

/// The build this crate was compiled in, as the report names it.
pub(crate) const BUILD: &str = if cfg!(debug_assertions) {
    "debug"
} else {
    "release"
};

/// A place of the type (or of a sample), and whether some payload got to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaceReach {
    /// Its path, as payload ids name it: `Request.params[]`, `sample-0.items[0]`.
    pub place: String,
    /// How many payloads attack it.
    pub attacks: usize,
    /// What showed the decoder got there; `None` when nothing did.
    pub reached_by: Option<String>,
}

/// One payload's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Its index in the check's list of payloads.
    pub index: usize,
    /// Its id.
    pub id: String,
    /// What it does.
    pub what: String,
    /// Its size.
    pub input_bytes: usize,
    /// What decoding it did.
    pub outcome: Outcome,
    /// The most heap the decode held at once (0 when the process died: not measured).
    pub peak_heap_bytes: usize,
    /// Allocations the decode made.
    pub allocations: usize,
    /// With hardpack as the decoder, for a payload it accepted: what the decode charged to
    /// `max_alloc_bytes` (serde cannot tell an inline struct from a boxed one, so a struct is
    /// charged at every level it appears: the charge can exceed the heap).
    pub charged_bytes: Option<usize>,
    /// How long the decode took.
    pub time: Duration,
    /// In a limit sweep: the value of the swept limit this decode ran under.
    pub limit_value: Option<usize>,
    /// The place of the type (or of a sample) the payload attacks.
    pub place: Option<String>,
    /// Where the attack starts in the payload.
    pub offset: Option<usize>,
    /// For a valid document: the places it holds.
    pub reaches: Vec<String>,
    /// With hardpack as the decoder, for a refused payload: the byte the error names.
    pub refused_at: Option<usize>,
}

impl Row {
    pub(crate) fn new(index: usize, payload: &Payload, outcome: Outcome) -> Self {
        Row {
            index,
            id: payload.id.clone(),
            what: payload.what.clone(),
            input_bytes: payload.bytes.len(),
            outcome,
            peak_heap_bytes: 0,
            allocations: 0,
            charged_bytes: None,
            time: Duration::ZERO,
            limit_value: None,
            place: payload.place.clone(),
            offset: payload.offset,
            reaches: payload.reaches.clone(),
            refused_at: None,
        }
    }

    /// The places this payload showed the decoder got to, each with what showed it: a valid
    /// document that decoded reaches every place it holds; an attack reached its place when
    /// it decoded, killed the decoder, or (with hardpack, whose errors say where) was refused
    /// at or after the byte where the attack starts. An attack refused before its place
    /// tested nothing there.
    pub fn reached_places(&self) -> Vec<(&str, &'static str)> {
        let mut out = Vec::new();
        if let Some(place) = &self.place {
            let reached = match &self.outcome {
                Outcome::Accepted => Some("an attack decoded"),
                Outcome::Refused(_) => match (self.refused_at, self.offset) {
                    (Some(refused), Some(offset)) if refused >= offset => {
                        Some("an attack refused in its place")
                    }
                    _ => None,
                },
                Outcome::NotRun => None,
                _ => Some("an attack broke the decoder there"),
            };
            if let Some(why) = reached {
                out.push((place.as_str(), why));
            }
        }
        if self.outcome == Outcome::Accepted {
            for place in &self.reaches {
                out.push((place.as_str(), "a valid document holding it decoded"));
            }
        }
        out
    }

    /// Peak heap per input byte (an empty input counts as one byte).
    pub fn amplification(&self) -> f64 {
        self.peak_heap_bytes as f64 / self.input_bytes.max(1) as f64
    }
}

/// The result of a check.
#[derive(Clone, Debug)]
pub struct Report {
    /// The type checked.
    pub type_name: String,
    /// The decoder, in words.
    pub decoder: String,
    /// Every request of the type and what the check saw of it: the verdict's one source.
    pub ledger: crate::ledger::Ledger,
    /// Which nodes of the type each valid sample passes through.
    pub passages: Vec<crate::ledger::Passage>,
    /// hardpack's limits, when the decoder is hardpack's.
    pub limits: Option<Limits>,
    /// In a limit sweep, the limit swept: each row ran with it set to its
    /// [`Row::limit_value`], the other limits as in [`Report::limits`].
    pub sweep: Option<Limit>,
    /// The stack of each decoding thread.
    pub stack_bytes: usize,
    /// The heap ceiling of each decode.
    pub heap_ceiling: usize,
    /// The time limit of each decode.
    pub time_limit: Duration,
    /// The heap a decode may hold for its input's size, whatever the decoder.
    pub amplification: crate::Amplification,
    /// The build the check ran in: `debug` (debug assertions on, unoptimised frames: deeper
    /// stacks a level) or `release`.
    pub build: &'static str,
    /// Why the type's shape could not be traced (it then got the generic payloads only).
    pub trace_error: Option<String>,
    /// Places the trace saw only in part ([`crate::shape::Traced::gaps`]).
    pub trace_gaps: Vec<String>,
    /// What the trace did not see: variants it could not build, places that accepted
    /// every value tried ([`crate::shape::Traced::unseen`]).
    pub unseen: Vec<crate::shape::Unseen>,
    /// Every place of the type, as payload ids name them (each variant of each enum, those
    /// the trace could not build too): what [`Report::places`] lists beside the samples'.
    pub type_places: Vec<String>,
    /// Why the check could not run every payload, if it could not.
    pub failure: Option<String>,
    /// Whether the verdict needs the type's places reached (a check of generated payloads;
    /// not one of reported payload files).
    pub verdict_needs_reach: bool,
    /// How many valid samples the check was given.
    pub samples: usize,
    /// Why a sample given could not be used.
    pub sample_errors: Vec<String>,
    /// A row per payload, in the payloads' order.
    pub rows: Vec<Row>,
    /// How long the check took, tracing and child processes included.
    pub elapsed: Duration,
    /// How many child processes decoded the payloads: one a job ([`crate::Check::jobs`]),
    /// and one more a death where the OS cannot fork the child past it (on Linux, a death
    /// costs a fork instead).
    pub processes: usize,
}

impl Report {
    /// The report of a check that a child process passes over (it runs another check).
    pub(crate) fn skipped(type_name: &str) -> Self {
        Report {
            type_name: type_name.to_string(),
            decoder: String::new(),
            ledger: Default::default(),
            passages: Vec::new(),
            limits: None,
            sweep: None,
            stack_bytes: 0,
            heap_ceiling: 0,
            time_limit: Duration::ZERO,
            amplification: crate::DEFAULT_AMPLIFICATION,
            build: BUILD,
            trace_error: None,
            trace_gaps: Vec::new(),
            unseen: Vec::new(),
            type_places: Vec::new(),
            failure: None,
            verdict_needs_reach: false,
            samples: 0,
            sample_errors: Vec::new(),
            rows: Vec::new(),
            elapsed: Duration::ZERO,
            processes: 0,
        }
    }

    /// With hardpack as the decoder: the most heap decoding this row's payload may hold
    /// under the limits, as `hardpack::de` documents it ([`crate::fuzz::heap_bound`]).
    pub fn heap_bound(&self, row: &Row) -> Option<usize> {
        self.limits_of(row)
            .map(|limits| crate::fuzz::heap_bound(&limits, row.input_bytes))
    }

    /// The limits a row ran under (with hardpack as the decoder).
    pub fn limits_of(&self, row: &Row) -> Option<Limits> {
        let limits = self.limits.clone()?;
        Some(match (self.sweep, row.limit_value) {
            (Some(limit), Some(value)) => limits.with(limit, value),
            _ => limits,
        })
    }

    /// In a limit sweep: per payload (by index), the smallest value of the swept limit under
    /// which it was accepted, `None` when it was accepted under none.
    pub fn flip_points(&self) -> Vec<(usize, Option<usize>)> {
        let mut flips: std::collections::BTreeMap<usize, Option<usize>> = Default::default();
        for row in &self.rows {
            let flip = flips.entry(row.index).or_default();
            if row.outcome == Outcome::Accepted {
                *flip = match (*flip, row.limit_value) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
        }
        flips.into_iter().collect()
    }

    /// Why a row counts as broken: a crash, an abort (stack overflow, heap ceiling), a
    /// panic, a time over the limit, or a peak heap over the ceiling or over the documented
    /// bound for hardpack's limits. `None` for a row that held.
    pub fn broken_because(&self, row: &Row) -> Option<String> {
        let bound = self.heap_bound(row);
        match &row.outcome {
            Outcome::Accepted | Outcome::Refused(_) => {}
            Outcome::Panicked(message) => return Some(format!("panicked: {message}")),
            Outcome::StackOverflow => {
                return Some(format!(
                    "overflowed a {} stack",
                    human_bytes(self.stack_bytes)
                ))
            }
            Outcome::OverHeapCeiling(_) => {
                return Some(format!(
                    "asked for more than the {} heap ceiling",
                    human_bytes(self.heap_ceiling)
                ))
            }
            Outcome::Crashed(how) => return Some(format!("crashed: {how}")),
            Outcome::TimedOut => return Some(format!("took longer than {:?}", self.time_limit)),
            Outcome::NotRun => return Some("not run".into()),
        }
        if row.peak_heap_bytes > self.heap_ceiling {
            return Some(format!(
                "held {} at peak, over the {} ceiling",
                human_bytes(row.peak_heap_bytes),
                human_bytes(self.heap_ceiling)
            ));
        }
        let amplified = self.amplification.bound(row.input_bytes);
        if row.peak_heap_bytes > amplified {
            return Some(format!(
                "held {} at peak from {} of input, over the {} allowed ({} + {} per input byte)",
                human_bytes(row.peak_heap_bytes),
                human_bytes(row.input_bytes),
                human_bytes(amplified),
                human_bytes(self.amplification.floor),
                human_bytes(self.amplification.per_input_byte),
            ));
        }
        match bound {
            Some(bound) if row.peak_heap_bytes > bound => Some(format!(
                "held {} at peak, over the {} the limits allow",
                human_bytes(row.peak_heap_bytes),
                human_bytes(bound)
            )),
            _ => None,
        }
    }

    /// The rows that broke the decoder, with why.
    pub fn broken(&self) -> Vec<(&Row, String)> {
        self.rows
            .iter()
            .filter_map(|row| self.broken_because(row).map(|why| (row, why)))
            .collect()
    }

    /// True when every payload ran, none broke the decoder, and no line of the
    /// [`ledger`](Report::ledger) is open: the one rule of the verdict.
    pub fn is_hardened(&self) -> bool {
        self.failure.is_none() && self.broken().is_empty() && self.ledger.is_closed()
    }

    /// Each place of the type (and of each sample) that some payload attacks, and whether
    /// some payload got to it: a valid document holding it decoded, an attack on it decoded or
    /// killed the decoder, or (with hardpack, whose errors say where) was refused at or after
    /// the byte where the attack starts. An attack refused before its place tested nothing
    /// there.
    pub fn places(&self) -> Vec<PlaceReach> {
        let mut places: Vec<PlaceReach> = Vec::new();
        let mut index: std::collections::BTreeMap<String, usize> = Default::default();
        let mut entry = |place: &str, places: &mut Vec<PlaceReach>| -> usize {
            *index.entry(place.to_string()).or_insert_with(|| {
                places.push(PlaceReach {
                    place: place.to_string(),
                    attacks: 0,
                    reached_by: None,
                });
                places.len() - 1
            })
        };
        for place in &self.type_places {
            entry(place, &mut places);
        }
        for row in &self.rows {
            if let Some(place) = &row.place {
                let at = entry(place, &mut places);
                places[at].attacks += 1;
            }
            for place in &row.reaches {
                entry(place, &mut places);
            }
            for (place, why) in row.reached_places() {
                let at = entry(place, &mut places);
                if places[at].reached_by.is_none() {
                    places[at].reached_by = Some(format!("{why} (#{})", row.index));
                }
            }
        }
        places
    }

    /// Why this check did not test the whole type, if it did not: the open lines of the
    /// [`ledger`](Report::ledger), each with its reason. `None` for a check of payload files,
    /// which asks only whether they hurt.
    pub fn untested(&self) -> Option<String> {
        if !self.verdict_needs_reach || self.failure.is_some() {
            return None;
        }
        let open = self.ledger.open();
        if open.is_empty() {
            return None;
        }
        let shown: Vec<String> = open
            .iter()
            .take(12)
            .map(|line| {
                let reason = line.open.as_ref().map(|o| o.reason(&self.decoder));
                format!("`{}` ({})", line.name(), reason.unwrap_or_default())
            })
            .collect();
        Some(format!(
            "{} of the type's {} places {} open: {}{}",
            open.len(),
            self.ledger.lines.len(),
            if open.len() == 1 { "is" } else { "are" },
            shown.join("; "),
            if open.len() > shown.len() {
                format!(
                    "; and {} more (Report::ledger lists them)",
                    open.len() - shown.len()
                )
            } else {
                String::new()
            }
        ))
    }

    /// With hardpack as the decoder: the most heap a decode held per byte it charged to
    /// `max_alloc_bytes`, over the accepted payloads that charged anything (and how many).
    pub fn peak_per_charged_byte(&self) -> Option<(f64, usize)> {
        let ratios: Vec<f64> = self
            .rows
            .iter()
            .filter_map(|r| match r.charged_bytes {
                Some(charged) if charged > 0 => Some(r.peak_heap_bytes as f64 / charged as f64),
                _ => None,
            })
            .collect();
        let worst = ratios
            .iter()
            .copied()
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))))?;
        Some((worst, ratios.len()))
    }

    /// The `max_alloc_bytes` that keeps a decode of this type under the heap ceiling, from
    /// the measured [`peak_per_charged_byte`](Self::peak_per_charged_byte) (at least 1).
    pub fn recommended_max_alloc_bytes(&self) -> Option<usize> {
        let (ratio, _) = self.peak_per_charged_byte()?;
        Some((self.heap_ceiling as f64 / ratio.max(1.0)) as usize)
    }

    /// The row with the highest amplification (peak heap per input byte).
    pub fn worst_amplification(&self) -> Option<&Row> {
        self.rows
            .iter()
            .max_by(|a, b| a.amplification().total_cmp(&b.amplification()))
    }

    /// Panics with the report's summary and every broken row when the decoder is not
    /// hardened against these payloads.
    pub fn assert_hardened(&self) {
        assert!(self.is_hardened(), "{}", self.text());
    }

    /// The report as text: a summary, the broken rows, then the ten highest amplifications.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let broken = self.broken();
        // A payload not run broke nothing: the check failed before it (its failure says why).
        let not_run = broken
            .iter()
            .filter(|(row, _)| matches!(row.outcome, Outcome::NotRun))
            .count();
        let _ = writeln!(
            out,
            "hardpack-check: {} decoded by {}: {} payloads, {} broke it{} ({:.1} s)",
            self.type_name,
            self.decoder,
            self.rows.len(),
            broken.len() - not_run,
            if not_run > 0 {
                format!(", {not_run} not run")
            } else {
                String::new()
            },
            self.elapsed.as_secs_f64()
        );
        let _ = writeln!(
            out,
            "  {} build, each payload on a {} stack, heap ceiling {}, at most {} + {} per \
             input byte held, {:?} a payload, {} child process{}",
            self.build,
            human_bytes(self.stack_bytes),
            human_bytes(self.heap_ceiling),
            human_bytes(self.amplification.floor),
            human_bytes(self.amplification.per_input_byte),
            self.time_limit,
            self.processes,
            if self.processes == 1 { "" } else { "es" }
        );
        if let Some(e) = &self.trace_error {
            let _ = writeln!(out, "  {e}");
        }
        for e in &self.sample_errors {
            let _ = writeln!(out, "  {e}");
        }
        if let Some(e) = &self.failure {
            let _ = writeln!(out, "  the check could not finish: {e}");
        }
        if self.verdict_needs_reach && !self.ledger.lines.is_empty() {
            let open = self.ledger.open();
            let _ = writeln!(
                out,
                "  {}: {} of the type's {} places open, {} closed (built and reached)",
                if open.is_empty() {
                    "ledger"
                } else {
                    "NOT TESTED"
                },
                open.len(),
                self.ledger.lines.len(),
                self.ledger.lines.len() - open.len(),
            );
            for line in &open {
                if let Some(why) = &line.open {
                    let _ = writeln!(
                        out,
                        "  open: `{}` ({}): {}",
                        line.name(),
                        line.what,
                        why.reason(&self.decoder)
                    );
                }
            }
        }
        if let Some(limits) = &self.limits {
            let _ = writeln!(
                out,
                "  heap bound for its limits: 2 x max_alloc_bytes ({}) + {} of serde's \
                 size-hint reservation per collection open at once (at most {})",
                human_bytes(limits.max_alloc_bytes.saturating_mul(2)),
                human_bytes(crate::fuzz::SERDE_RESERVE_CAP_BYTES),
                limits.max_depth.saturating_add(1)
            );
        }
        if let (Some((ratio, count)), Some(recommended)) = (
            self.peak_per_charged_byte(),
            self.recommended_max_alloc_bytes(),
        ) {
            let _ = writeln!(
                out,
                "  the budget's charge against the real peak: at most {ratio:.2} bytes held per \
                 byte charged ({count} payloads decoded); for at most {} a decode, set \
                 max_alloc_bytes to {}",
                human_bytes(self.heap_ceiling),
                human_bytes(recommended)
            );
        }
        let table = |out: &mut String, rows: &mut dyn Iterator<Item = (&Row, String)>| {
            let _ = writeln!(
                out,
                "  {:>5}  {:<48} {:>9} {:>10} {:>7} {:>10}  outcome",
                "#", "payload", "input", "peak heap", "amp", "time"
            );
            for (row, note) in rows {
                let id = match row.limit_value {
                    Some(value) => format!("{} [{value}]", row.id),
                    None => row.id.clone(),
                };
                let _ = writeln!(
                    out,
                    "  {:>5}  {:<48} {:>9} {:>10} {:>6.1}x {:>10?}  {note}",
                    row.index,
                    truncate(&id, 48),
                    human_bytes(row.input_bytes),
                    human_bytes(row.peak_heap_bytes),
                    row.amplification(),
                    row.time,
                );
            }
        };
        if !broken.is_empty() {
            let _ = writeln!(out, "broken:");
            table(
                &mut out,
                &mut broken
                    .iter()
                    .map(|(row, why)| (*row, format!("{why} ({})", row.what))),
            );
        }
        if let Some(limit) = self.sweep {
            let values: Vec<usize> = {
                let mut v: Vec<usize> = self.rows.iter().filter_map(|r| r.limit_value).collect();
                v.sort_unstable();
                v.dedup();
                v
            };
            let flips = self.flip_points();
            let always = flips
                .iter()
                .filter(|(_, flip)| *flip == values.first().copied())
                .count();
            let never = flips.iter().filter(|(_, flip)| flip.is_none()).count();
            let _ = writeln!(
                out,
                "sweep of {} over {values:?}: {always} payloads accepted under every value, \
                 {never} under none; where the others start to decode:",
                limit.name()
            );
            for (index, flip) in &flips {
                if let (Some(flip), Some(row)) = (flip, self.rows.get(*index)) {
                    if Some(*flip) != values.first().copied() {
                        let _ = writeln!(out, "  {flip:>12}  #{index} {}", row.id);
                    }
                }
            }
        }
        let mut by_amplification: Vec<&Row> = self.rows.iter().collect();
        by_amplification.sort_by(|a, b| b.amplification().total_cmp(&a.amplification()));
        let _ = writeln!(out, "highest amplification:");
        table(
            &mut out,
            &mut by_amplification
                .into_iter()
                .take(10)
                .map(|row| (row, outcome_text(&row.outcome))),
        );
        out
    }

    /// The report as JSON: the settings, and every row with its outcome and whether (and
    /// why) it broke the decoder.
    pub fn json(&self) -> serde_json::Value {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|row| {
                serde_json::json!({
                    "index": row.index,
                    "id": row.id,
                    "what": row.what,
                    "input_bytes": row.input_bytes,
                    "outcome": outcome_name(&row.outcome),
                    "message": outcome_message(&row.outcome),
                    "peak_heap_bytes": row.peak_heap_bytes,
                    "allocations": row.allocations,
                    "charged_bytes": row.charged_bytes,
                    "elapsed_us": row.time.as_micros() as u64,
                    "amplification": row.amplification(),
                    "limit_value": row.limit_value,
                    "heap_bound": self.heap_bound(row),
                    "broken": self.broken_because(row),
                    "place": row.place,
                    "offset": row.offset,
                    "refused_at": row.refused_at,
                })
            })
            .collect();
        serde_json::json!({
            "type": self.type_name,
            "decoder": self.decoder,
            "max_alloc_bytes": self.limits.as_ref().map(|l| l.max_alloc_bytes),
            "max_depth": self.limits.as_ref().map(|l| l.max_depth),
            "sweep": self.sweep.map(|limit| limit.name()),
            "stack_bytes": self.stack_bytes,
            "heap_ceiling": self.heap_ceiling,
            "time_limit_ms": self.time_limit.as_millis() as u64,
            "trace_error": self.trace_error,
            "ledger": self.ledger.lines.iter().map(|line| serde_json::json!({
                "place": line.place,
                "what": line.what,
                "variant": line.variant,
                "built_by": line.built_by,
                "reached_by": line.reached_by,
                "open": line.open.as_ref().map(crate::ledger::Open::name),
                "reason": line.open.as_ref().map(|o| o.reason(&self.decoder)),
            })).collect::<Vec<_>>(),
            "failure": self.failure,
            "build": self.build,
            "elapsed_ms": self.elapsed.as_millis() as u64,
            "amplification_floor": self.amplification.floor,
            "amplification_per_input_byte": self.amplification.per_input_byte,
            "samples": self.samples,
            "sample_errors": self.sample_errors,
            "untested": self.untested(),
            "places": self.places().iter().map(|p| serde_json::json!({
                "place": p.place,
                "attacks": p.attacks,
                "reached_by": p.reached_by,
            })).collect::<Vec<_>>(),
            "hardened": self.is_hardened(),
            "peak_per_charged_byte": self.peak_per_charged_byte().map(|(r, _)| r),
            "recommended_max_alloc_bytes": self.recommended_max_alloc_bytes(),
            "rows": rows,
        })
    }
}

#[cfg(feature = "html")]
impl Report {
    /// The report as one self-contained HTML page, as `hardpack audit --html` writes: peak
    /// heap against input size, the sweep's chart in a sweep, and every row by amplification,
    /// the broken ones marked.
    pub fn html(&self) -> Result<String, String> {
        let entries: Vec<crate::html::Entry> = self
            .rows
            .iter()
            .map(|row| {
                let broken = self.broken_because(row);
                crate::html::Entry {
                    name: format!("#{} {}", row.index, row.id),
                    input_bytes: row.input_bytes,
                    outcome: outcome_name(&row.outcome).to_string(),
                    detail: broken
                        .clone()
                        .or_else(|| outcome_message(&row.outcome).map(str::to_string))
                        .unwrap_or_default(),
                    peak_heap_bytes: row.peak_heap_bytes,
                    allocations: row.allocations,
                    depth_reached: None,
                    elapsed_us: row.time.as_secs_f64() * 1e6,
                    limit_value: row.limit_value,
                    broken: broken.is_some(),
                }
            })
            .collect();
        let summary = format!(
            "{} decoded by {}, on a {} stack under a {} heap ceiling{}",
            self.type_name,
            self.decoder,
            human_bytes(self.stack_bytes),
            human_bytes(self.heap_ceiling),
            self.recommended_max_alloc_bytes()
                .map(|r| format!("; recommended max_alloc_bytes {}", human_bytes(r)))
                .unwrap_or_default()
        );
        crate::html::page_with(
            "hardpack-check report",
            &summary,
            &self.ledger_html(),
            &entries,
            self.sweep,
        )
    }

    /// The verdict and the ledger as HTML: the open lines first, each with its reason.
    fn ledger_html(&self) -> String {
        use crate::html::escape;
        if !self.verdict_needs_reach || self.ledger.lines.is_empty() {
            return String::new();
        }
        let open = self.ledger.open();
        let mut html = format!(
            "<h2>Verdict: {}</h2>\n<p>{} of the type's {} places open, {} closed (built and \
             reached); {} payloads broke the decoder. Hardened means no place open and \
             nothing broken.</p>\n<table><tr><th class=\"l\">place</th><th class=\"l\">asked \
             for</th><th class=\"l\">open: why</th><th class=\"l\">built by</th><th \
             class=\"l\">reached by</th></tr>\n",
            if self.is_hardened() {
                "hardened"
            } else {
                "not hardened"
            },
            open.len(),
            self.ledger.lines.len(),
            self.ledger.lines.len() - open.len(),
            self.broken().len(),
        );
        let mut lines: Vec<&crate::ledger::Line> = self.ledger.lines.iter().collect();
        lines.sort_by_key(|l| l.open.is_none());
        for line in lines {
            html += &format!(
                "<tr{}><td class=\"l\">{}</td><td class=\"l\">{}</td><td \
                 class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>\n",
                if line.open.is_some() {
                    " class=\"bad\""
                } else {
                    ""
                },
                escape(line.name()),
                escape(&line.what),
                escape(
                    &line
                        .open
                        .as_ref()
                        .map(|o| o.reason(&self.decoder))
                        .unwrap_or_default()
                ),
                escape(line.built_by.as_deref().unwrap_or("")),
                escape(line.reached_by.as_deref().unwrap_or("")),
            );
        }
        html + "</table>\n"
    }
}

fn outcome_name(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Accepted => "accepted",
        Outcome::Refused(_) => "refused",
        Outcome::Panicked(_) => "panicked",
        Outcome::StackOverflow => "stack_overflow",
        Outcome::OverHeapCeiling(_) => "over_heap_ceiling",
        Outcome::Crashed(_) => "crashed",
        Outcome::TimedOut => "timed_out",
        Outcome::NotRun => "not_run",
    }
}

fn outcome_message(outcome: &Outcome) -> Option<&str> {
    match outcome {
        Outcome::Refused(m)
        | Outcome::Panicked(m)
        | Outcome::OverHeapCeiling(m)
        | Outcome::Crashed(m) => Some(m),
        _ => None,
    }
}

fn outcome_text(outcome: &Outcome) -> String {
    match outcome_message(outcome) {
        Some(m) => format!("{}: {m}", outcome_name(outcome)),
        None => outcome_name(outcome).to_string(),
    }
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let kept: String = text.chars().take(width - 1).collect();
    format!("{kept}…")
}

/// Bytes for a person: `512 B`, `1.5 KiB`, `64.0 MiB`.
pub fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(input_bytes: usize, peak_heap_bytes: usize) -> Row {
        let payload = Payload::new("p", "a payload", vec![0; input_bytes]);
        let mut row = Row::new(0, &payload, Outcome::Accepted);
        row.peak_heap_bytes = peak_heap_bytes;
        row
    }

    fn report(limits: Option<Limits>) -> Report {
        let mut report = Report::skipped("T");
        report.limits = limits;
        report.heap_ceiling = 1 << 30;
        report.stack_bytes = 2 << 20;
        report
    }

    #[test]
    fn a_place_is_reached_by_what_shows_the_decoder_got_there() {
        let attack = |index: usize, place: &str, outcome: Outcome, refused_at: Option<usize>| {
            let payload =
                Payload::new(format!("{place}.attack"), "", vec![0; 8]).at_place(place, 4);
            let mut row = Row::new(index, &payload, outcome);
            row.refused_at = refused_at;
            row
        };
        let refused = || Outcome::Refused("no".into());
        let mut valid = Row::new(6, &Payload::new("valid", "", vec![0; 8]), Outcome::Accepted);
        valid.reaches = vec!["D".into()];
        let mut report = report(None);
        report.rows = vec![
            attack(0, "A", Outcome::Accepted, None),
            attack(1, "A", refused(), Some(0)),
            attack(2, "B", refused(), Some(4)),
            attack(3, "C", refused(), Some(3)),
            attack(4, "C", refused(), None),
            attack(5, "E", Outcome::StackOverflow, None),
            valid,
        ];
        let places = report.places();
        let by_name = |name: &str| places.iter().find(|p| p.place == name).unwrap().clone();
        assert_eq!(by_name("A").attacks, 2);
        assert_eq!(
            by_name("A").reached_by.as_deref(),
            Some("an attack decoded (#0)")
        );
        assert_eq!(
            by_name("B").reached_by.as_deref(),
            Some("an attack refused in its place (#2)")
        );
        // Refused a byte before the attack, or without saying where: not reached.
        assert_eq!(by_name("C").attacks, 2);
        assert_eq!(by_name("C").reached_by, None);
        assert_eq!(by_name("D").attacks, 0);
        assert_eq!(
            by_name("D").reached_by.as_deref(),
            Some("a valid document holding it decoded (#6)")
        );
        assert_eq!(
            by_name("E").reached_by.as_deref(),
            Some("an attack broke the decoder there (#5)")
        );
    }

    #[test]
    fn the_recommended_budget_comes_from_the_worst_peak_per_charged_byte() {
        let mut report = report(None);
        report.heap_ceiling = 1 << 20;
        let charged = |peak: usize, charged: Option<usize>| {
            let mut row = row(10, peak);
            row.charged_bytes = charged;
            row
        };
        report.rows = vec![
            charged(2000, Some(1000)),
            charged(4000, Some(1000)),
            charged(9000, Some(0)),
            charged(9000, None),
        ];
        assert_eq!(report.peak_per_charged_byte(), Some((4.0, 2)));
        assert_eq!(report.recommended_max_alloc_bytes(), Some((1 << 20) / 4));
        assert_eq!(
            report.worst_amplification().map(|r| r.peak_heap_bytes),
            Some(9000)
        );
        // A ratio under 1 recommends the ceiling itself.
        report.rows = vec![charged(500, Some(1000))];
        assert_eq!(report.recommended_max_alloc_bytes(), Some(1 << 20));
    }

    /// The ledger of a type whose root the trace built, after `rows`.
    fn built_root_ledger(rows: &[Row]) -> crate::ledger::Ledger {
        let root = crate::shape::Node {
            place: String::new(),
            what: "struct T".into(),
            variant: false,
            trace: crate::shape::NodeTrace::Built,
        };
        crate::ledger::Ledger::new(crate::ledger::Entries {
            nodes: &[root],
            passages: &[],
            place_keys: &Default::default(),
            rows,
            decoded_attack_keys: &|_| None,
            trace_error: None,
        })
    }

    #[test]
    fn a_payload_not_run_reaches_no_place() {
        let mut attack = row(4, 0);
        attack.place = Some("T.x".into());
        attack.offset = Some(0);
        attack.reaches = vec!["T.y".into()];
        attack.outcome = Outcome::NotRun;
        assert!(attack.reached_places().is_empty());
        attack.outcome = Outcome::StackOverflow;
        assert_eq!(
            attack.reached_places(),
            [("T.x", "an attack broke the decoder there")]
        );
    }

    #[test]
    fn payloads_not_run_are_counted_as_not_run_not_as_breaking_the_decoder() {
        let mut report = report(None);
        let mut overflowed = row(1, 10);
        overflowed.outcome = Outcome::StackOverflow;
        let mut not_run = row(2, 10);
        not_run.outcome = Outcome::NotRun;
        report.rows = vec![row(0, 10), overflowed, not_run.clone(), not_run];
        let headline = report.text().lines().next().unwrap_or_default().to_string();
        assert!(
            headline.contains(": 4 payloads, 1 broke it, 2 not run ("),
            "{headline}"
        );
        assert!(!report.is_hardened());
        report.rows.truncate(2);
        let headline = report.text().lines().next().unwrap_or_default().to_string();
        assert!(
            headline.contains(": 2 payloads, 1 broke it ("),
            "{headline}"
        );
    }

    #[cfg(feature = "html")]
    #[test]
    fn payload_files_get_no_ledger_section_in_the_html() {
        let mut report = report(None);
        report.rows = vec![row(4, 10)];
        report.verdict_needs_reach = false;
        report.ledger = built_root_ledger(&report.rows);
        assert_eq!(report.ledger_html(), "");
        report.verdict_needs_reach = true;
        assert!(report
            .ledger_html()
            .contains("<h2>Verdict: not hardened</h2>"));
        report.ledger = Default::default();
        assert_eq!(report.ledger_html(), "");
    }

    #[test]
    fn the_json_and_the_text_say_each_outcome_and_the_verdict() {
        let mut report = report(None);
        report.verdict_needs_reach = true;
        let mut refused = row(4, 10);
        refused.outcome = Outcome::Refused("too deep".into());
        report.rows = vec![refused.clone()];
        report.ledger = built_root_ledger(&report.rows);
        let json = report.json();
        assert_eq!(json["rows"][0]["outcome"], "refused");
        assert_eq!(json["rows"][0]["message"], "too deep");
        assert_eq!(json["hardened"], false);
        assert!(json["untested"]
            .as_str()
            .unwrap()
            .contains("`the root` (never reached under"));
        let text = report.text();
        assert!(text.contains("NOT TESTED"), "{text}");
        assert!(!text.contains("broken:"), "{text}");
        assert!(text.contains("refused: too deep"), "{text}");
        // Payload files: whether they hurt, not whether they reached the type.
        report.verdict_needs_reach = false;
        assert_eq!(report.untested(), None);
        assert!(!report.text().contains("NOT TESTED"));
        let mut died = row(4, 0);
        died.outcome = Outcome::StackOverflow;
        report.rows = vec![died];
        let json = report.json();
        assert_eq!(json["rows"][0]["outcome"], "stack_overflow");
        assert_eq!(json["rows"][0]["message"], serde_json::Value::Null);
        assert!(report.text().contains("broken:"));
    }

    #[test]
    fn sizes_and_names_are_written_for_a_person() {
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.0 KiB");
        assert_eq!(human_bytes(3 << 20), "3.0 MiB");
        assert_eq!(human_bytes(1 << 40), "1.0 TiB");
        assert_eq!(human_bytes(1 << 50), "1024.0 TiB");
        assert_eq!(truncate("abcdef", 6), "abcdef");
        assert_eq!(truncate("abcdefg", 6), "abcde…");
    }

    #[test]
    fn amplification_is_peak_heap_per_input_byte() {
        assert_eq!(row(10, 1000).amplification(), 100.0);
        assert_eq!(row(0, 64).amplification(), 64.0);
    }

    #[test]
    fn each_heap_bound_holds_at_its_value_and_breaks_one_byte_above() {
        let any = report(None);
        // The documented default: 16 MiB + 1 KiB per input byte.
        let amplified = 16 * 1024 * 1024 + 1024 * 100;
        assert_eq!(any.amplification.bound(100), amplified);
        assert_eq!(any.broken_because(&row(100, amplified)), None);
        let why = any.broken_because(&row(100, amplified + 1)).unwrap();
        assert!(why.contains("per input byte"), "{why}");

        let mut small_ceiling = report(None);
        small_ceiling.heap_ceiling = 1000;
        assert_eq!(small_ceiling.broken_because(&row(100, 1000)), None);
        let why = small_ceiling.broken_because(&row(100, 1001)).unwrap();
        assert!(why.contains("ceiling"), "{why}");

        // With hardpack as the decoder, its documented bound, under a budget small enough
        // that the bound is below the amplification bound.
        let limits = Limits::default()
            .with(Limit::AllocBytes, 1024)
            .with(Limit::Depth, 2);
        let hardpack = report(Some(limits.clone()));
        // As hardpack::de documents it: 2 x max_alloc_bytes + 1 MiB per collection open at
        // once, at most max_depth + 1 of them.
        let bound = 2 * 1024 + (1 << 20) * 3;
        assert_eq!(hardpack.heap_bound(&row(100, 0)), Some(bound));
        assert!(bound < amplified);
        assert_eq!(hardpack.broken_because(&row(100, bound)), None);
        let why = hardpack.broken_because(&row(100, bound + 1)).unwrap();
        assert!(why.contains("the limits allow"), "{why}");
    }
}
