//! `differential_rmpv`: hardpack against rmpv where both accept, every disagreement a
//! documented one.

use std::sync::OnceLock;

use hardpack::{rmpv::from_rmpv, Decoder, ErrorKind, Limit, Limits};

use super::*;

/// The shallowest nesting of arrays that `rmpv::decode::read_value` refuses.
pub fn rmpv_depth_limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        (1..100_000)
            .find(|&depth| {
                let mut bytes = vec![0x91u8; depth];
                bytes.push(0xc0);
                rmpv::decode::read_value(&mut bytes.as_slice()).is_err()
            })
            .unwrap_or(usize::MAX)
    })
}

/// The shallowest nesting of arrays that `rmpv::decode::read_value_ref` refuses (it counts
/// each container twice).
pub fn rmpv_ref_depth_limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        (1..100_000)
            .find(|&depth| {
                let mut bytes = vec![0x91u8; depth];
                bytes.push(0xc0);
                rmpv::decode::read_value_ref(&mut bytes.as_slice()).is_err()
            })
            .unwrap_or(usize::MAX)
    })
}

/// Where rmpv and hardpack may legitimately disagree. Anything else is a bug in one of them.
pub const DOCUMENTED_DISAGREEMENTS: &[&str] = &[
    "hardpack refuses invalid UTF-8 in str; rmpv keeps the bytes",
    "hardpack refuses the reserved marker 0xc1; rmpv reads it as nil",
    "hardpack refuses an ext -1 that is not a valid timestamp; rmpv keeps it as ext",
    "hardpack refuses input over its Limits (lengths, allocation); rmpv has no such limits",
    "rmpv refuses nesting at or beyond its depth limit (counting a str or ext leaf as one more \
     level; read_value_ref's limit is about half read_value's); hardpack's differential limit \
     is higher",
];

/// The limits `differential_rmpv` decodes under: the defaults, with the depth raised above
/// rmpv's so that rmpv's own limit is the one met first.
pub(super) fn differential_limits() -> Limits {
    Limits::default().with(Limit::Depth, rmpv_depth_limit().saturating_mul(2))
}

/// hardpack (depth raised above rmpv's) against `rmpv::decode::read_value`.
pub fn differential_rmpv(data: &[u8]) -> Outcome {
    let rmpv_limit = rmpv_depth_limit();
    let limits = differential_limits();
    let ours = Decoder::new(limits.clone()).decode_prefix(data);
    if let Ok((value, _)) = &ours {
        check_decoded(value, &limits);
    }
    let mut rest = data;
    let theirs = rmpv::decode::read_value(&mut rest);
    match (&ours, &theirs) {
        (Ok((value, used)), Ok(their_value)) => {
            let their_used = data.len() - rest.len();
            assert_eq!(
                *used, their_used,
                "hardpack and rmpv consumed different lengths"
            );
            let converted = from_rmpv(their_value)
                .unwrap_or_else(|e| panic!("rmpv's value does not convert: {e:?}"));
            assert!(
                converted == *value,
                "hardpack and rmpv decoded different values"
            );
        }
        (Err(e), Ok(their_value)) => assert!(
            refusal_is_real(e, data, their_value),
            "hardpack refused what rmpv accepts, for an undocumented reason or at the wrong \
             item: {e}"
        ),
        (Ok((value, _)), Err(their_error)) => assert!(
            // rmpv counts a str or ext leaf as one more level than its containers.
            value.shape().max_depth.saturating_add(1) >= rmpv_limit
                && their_error.to_string().contains("depth"),
            "rmpv refused ({their_error}) what hardpack accepts, for an undocumented reason"
        ),
        (Err(_), Err(_)) => {}
    }
    borrowed_against_rmpv(data, &limits);
    match &ours {
        Ok((value, used)) => decoded(value, *used),
        Err(e) => Outcome::Rejected(e.clone()),
    }
}

/// Whether hardpack's refusal of what rmpv accepts is one the README requires, found where
/// it is: a 0xc1 marker at the error's offset; a str at the offset, and a str in rmpv's value
/// that is not UTF-8; an ext −1 at the offset, and an ext −1 in rmpv's value (which hardpack
/// must check as a timestamp); or a length over one of hardpack's limits.
pub(super) fn refusal_is_real(e: &hardpack::Error, data: &[u8], theirs: &rmpv::Value) -> bool {
    let marker = data.get(e.offset()).copied();
    let mut values = vec![theirs];
    let (mut invalid_str, mut ext_minus_one) = (false, false);
    while let Some(v) = values.pop() {
        match v {
            rmpv::Value::String(s) => invalid_str |= s.as_str().is_none(),
            rmpv::Value::Ext(-1, _) => ext_minus_one = true,
            rmpv::Value::Array(items) => values.extend(items),
            rmpv::Value::Map(entries) => values.extend(entries.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
    match e.kind() {
        ErrorKind::ReservedMarker => marker == Some(0xc1),
        ErrorKind::InvalidUtf8 { .. } => {
            invalid_str && matches!(marker, Some(0xa0..=0xbf | 0xd9..=0xdb))
        }
        ErrorKind::InvalidTimestamp(_) => {
            // The ext's type byte follows its length: 1 byte on for fixext, 2/3/5 for ext 8/16/32.
            let type_at = match marker {
                Some(0xd4..=0xd8) => 1,
                Some(0xc7) => 2,
                Some(0xc8) => 3,
                Some(0xc9) => 5,
                _ => return false,
            };
            ext_minus_one && data.get(e.offset() + type_at) == Some(&0xff)
        }
        ErrorKind::LimitExceeded { max, claimed, .. } => claimed > max,
        _ => false,
    }
}

/// hardpack's `decode_ref_prefix` against `rmpv::decode::read_value_ref`, with the same
/// documented disagreements as the owned decoders.
pub(super) fn borrowed_against_rmpv(data: &[u8], limits: &Limits) {
    let ours = Decoder::new(limits.clone()).decode_ref_prefix(data);
    let mut rest = data;
    let theirs = rmpv::decode::read_value_ref(&mut rest);
    match (&ours, &theirs) {
        (Ok((doc, used)), Ok(their_value)) => {
            assert_eq!(
                *used,
                data.len() - rest.len(),
                "hardpack's decode_ref and rmpv's read_value_ref consumed different lengths"
            );
            let converted = from_rmpv(&their_value.to_owned())
                .unwrap_or_else(|e| panic!("rmpv's value does not convert: {e:?}"));
            assert!(
                *doc == converted,
                "hardpack's decode_ref and rmpv's read_value_ref decoded different values"
            );
        }
        (Err(e), Ok(their_value)) => assert!(
            refusal_is_real(e, data, &their_value.to_owned()),
            "hardpack's decode_ref refused what read_value_ref accepts, for an undocumented \
             reason or at the wrong item: {e}"
        ),
        (Ok((doc, _)), Err(their_error)) => assert!(
            doc.shape().max_depth.saturating_add(1) >= rmpv_ref_depth_limit()
                && their_error.to_string().contains("depth"),
            "read_value_ref refused ({their_error}) what hardpack's decode_ref accepts, for an \
             undocumented reason"
        ),
        (Err(_), Err(_)) => {}
    }
}
