//! Sizes, durations and hex as people write and read them.

use std::time::Duration;

/// Formats a byte count the way people read it: `512 B`, `64.0 KiB`, `1.5 MiB` (the kit's
/// reports and the command's print sizes alike).
pub use hardpack_check::human_bytes;

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

/// Parses a duration: `60s`, `500ms`, `2m`, `1.5s`; a bare number is seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: f64 = number
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (examples: 60s, 500ms, 2m)"))?;
    let seconds = match unit.trim() {
        "" | "s" => n,
        "ms" => n / 1e3,
        "m" | "min" => n * 60.0,
        other => return Err(format!("unknown unit {other:?} in {s:?} (use ms, s, m)")),
    };
    match Duration::try_from_secs_f64(seconds) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(format!("{s:?}: a duration above zero, e.g. 60s")),
    }
}

/// Decodes hex text (whitespace, commas, `0x` prefixes and `\x` escapes allowed) into
/// bytes. Anything else, non-ASCII included, is an error naming the character.
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let cleaned: String = text
        .replace("0x", "")
        .replace("\\x", "")
        .chars()
        .filter(|c| !c.is_whitespace() && *c != ',')
        .collect();
    if let Some((i, c)) = cleaned
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_hexdigit())
    {
        return Err(format!("{c:?} is not a hex digit (digit {})", i + 1));
    }
    // Every character is now one ASCII byte.
    let digits = cleaned.as_bytes();
    if digits.len() % 2 != 0 {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    digits
        .chunks(2)
        .map(|pair| {
            let pair = std::str::from_utf8(pair).map_err(|e| e.to_string())?;
            u8::from_str_radix(pair, 16).map_err(|e| e.to_string())
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
    fn hex_parses_common_spellings_and_refuses_the_rest() {
        assert_eq!(
            parse_hex("dd ff ff ff ff"),
            Ok(vec![0xdd, 0xff, 0xff, 0xff, 0xff])
        );
        assert_eq!(parse_hex("0xc1\n"), Ok(vec![0xc1]));
        assert_eq!(parse_hex("\\x91\\xc0"), Ok(vec![0x91, 0xc0]));
        assert!(parse_hex("abc").unwrap_err().contains("odd number"));
        assert!(parse_hex("zz")
            .unwrap_err()
            .contains("'z' is not a hex digit"));
        // Multi-byte characters used to panic when sliced as two bytes.
        assert!(parse_hex("é1")
            .unwrap_err()
            .contains("'é' is not a hex digit"));
        assert!(parse_hex("9é").is_err());
        assert!(parse_hex("日本").is_err());
    }

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3 fortnights").is_err());
    }

    #[test]
    fn human_units() {
        assert_eq!(human_bytes(10), "10 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_duration(Duration::from_micros(12)), "12.0 µs");
    }
}
