//! Reproducing one payload: decode it under given limits and report the outcome and its
//! cost. `hardpack repro` prints this; the logic lives here so it is tested and reusable.

use std::time::Duration;

use hardpack::{Decoder, Limit, Limits};
use serde::Serialize;

use crate::alloc_meter;

/// What one decode of a payload did.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Size of the payload.
    pub input_bytes: usize,
    /// The limits it was decoded under.
    pub limits: LimitsReport,
    /// Decoded or rejected, with details.
    pub outcome: OutcomeReport,
    /// Heap bytes live at peak during the decode (0 unless the counting allocator is installed).
    pub peak_heap_bytes: usize,
    /// Allocations made during the decode.
    pub allocations: usize,
    /// Wall-clock time of the decode, in microseconds.
    pub elapsed_us: f64,
    /// Deepest nesting the decode reached: the value's depth, or the depth of the error.
    pub depth_reached: usize,
}

/// The limits, by field name.
#[derive(Clone, Debug, Serialize)]
pub struct LimitsReport(pub std::collections::BTreeMap<&'static str, usize>);

/// The result of the decode.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum OutcomeReport {
    /// The payload decoded.
    Decoded {
        /// Type of the top-level value.
        top_level_type: &'static str,
        /// Values in the tree, the root and map keys included.
        values: usize,
        /// Arrays and maps in the tree.
        containers: usize,
        /// Deepest nesting reached.
        max_depth: usize,
        /// Bytes the value took.
        bytes_consumed: usize,
    },
    /// The codec refused it.
    Rejected {
        /// Error kind name (`hardpack::Error::kind_name`).
        kind: &'static str,
        /// The limit that refused it, if one did.
        limit: Option<&'static str>,
        /// Byte offset of the item.
        offset: usize,
        /// Nesting depth there.
        depth: usize,
        /// The full message.
        message: String,
    },
}

impl Report {
    /// True when the payload decoded.
    pub fn decoded(&self) -> bool {
        matches!(self.outcome, OutcomeReport::Decoded { .. })
    }
}

/// Decodes `payload` under `limits` (trailing bytes are an error) and reports what happened.
pub fn repro(payload: &[u8], limits: &Limits) -> Report {
    let decoder = Decoder::new(limits.clone());
    // Only the decode is measured; describing its result afterwards allocates too.
    let (result, cost) = alloc_meter::measure(|| decoder.decode(payload));
    let (outcome, depth_reached) = match &result {
        Ok(value) => {
            let shape = value.shape();
            let outcome = OutcomeReport::Decoded {
                top_level_type: value.type_name(),
                values: shape.values,
                containers: shape.containers,
                max_depth: shape.max_depth,
                bytes_consumed: payload.len(),
            };
            (outcome, shape.max_depth)
        }
        Err(e) => {
            let outcome = OutcomeReport::Rejected {
                kind: e.kind_name(),
                limit: e.limit().map(Limit::name),
                offset: e.offset(),
                depth: e.depth(),
                message: e.to_string(),
            };
            (outcome, e.depth())
        }
    };
    drop(result);
    Report {
        input_bytes: payload.len(),
        limits: LimitsReport(
            Limit::ALL
                .iter()
                .map(|l| (l.name(), limits.get(*l)))
                .collect(),
        ),
        outcome,
        peak_heap_bytes: cost.peak_bytes,
        allocations: cost.allocations,
        elapsed_us: cost.elapsed.as_secs_f64() * 1e6,
        depth_reached,
    }
}

/// Formats a byte count the way people read it: `512 B`, `64.0 KiB`, `1.5 MiB`.
pub fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut size = bytes as f64 / 1024.0;
    let mut unit = 0;
    while size >= 1024.0 && unit + 1 < UNITS.len() {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// Formats a duration compactly: `850 ns`, `12.3 µs`, `4.56 ms`, `1.23 s`.
pub fn human_duration(d: Duration) -> String {
    let ns = d.as_nanos();
    match ns {
        0..=999 => format!("{ns} ns"),
        1_000..=999_999 => format!("{:.1} µs", ns as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.2} ms", ns as f64 / 1e6),
        _ => format!("{:.2} s", d.as_secs_f64()),
    }
}

/// Parses a size such as `1048576`, `64KiB`, `16MiB`, `1GiB`, `10k`, or `max`.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("max") || t.eq_ignore_ascii_case("unlimited") {
        return Ok(usize::MAX);
    }
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '_')
        .unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: usize = digits
        .replace('_', "")
        .parse()
        .map_err(|_| format!("{s:?} is not a size (examples: 1048576, 64KiB, 16MiB, max)"))?;
    let factor: usize = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" => 1_000,
        "m" => 1_000_000,
        "kib" | "ki" => 1 << 10,
        "mib" | "mi" => 1 << 20,
        "gib" | "gi" => 1 << 30,
        other => {
            return Err(format!(
                "unknown unit {other:?} in {s:?} (use KiB, MiB, GiB, k, m)"
            ))
        }
    };
    n.checked_mul(factor)
        .ok_or_else(|| format!("{s:?} does not fit in usize"))
}

/// Decodes hex text (whitespace, `0x` prefixes and `\x` escapes allowed) into bytes.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let cleaned: String = text
        .replace("0x", "")
        .replace("\\x", "")
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',')
        .collect();
    if cleaned.len() % 2 != 0 {
        return Err(format!("odd number of hex digits ({})", cleaned.len()));
    }
    (0..cleaned.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&cleaned[i..i + 2], 16)
                .map_err(|_| format!("not hex at digit {i}: {:?}", &cleaned[i..i + 2]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("16MiB"), Ok(16 << 20));
        assert_eq!(parse_size("1_000"), Ok(1000));
        assert_eq!(parse_size("max"), Ok(usize::MAX));
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("").is_err());
    }

    #[test]
    fn hex_parses_common_spellings() {
        assert_eq!(
            parse_hex("dd ff ff ff ff"),
            Ok(vec![0xdd, 0xff, 0xff, 0xff, 0xff])
        );
        assert_eq!(parse_hex("0xc1\n"), Ok(vec![0xc1]));
        assert!(parse_hex("abc").is_err());
        assert!(parse_hex("zz").is_err());
    }

    #[test]
    fn human_units() {
        assert_eq!(human_bytes(10), "10 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_duration(Duration::from_micros(12)), "12.0 µs");
    }
}
