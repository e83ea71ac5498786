//! The owned decoder's targets: `decode` (round trip) and `decode_limits` (the budget, the
//! charge the value accounts for, each limit's refusal).

use std::sync::OnceLock;

use hardpack::{
    decode::DecodeStats, decode::InvalidUtf8, encode, Decoder, ErrorKind, Limit, Limits, Value,
};

use crate::alloc_meter;

use super::*;

/// The outcome of a decode of a whole input (`consumed` is the input's length).
pub(super) fn outcome(result: &Result<Value, hardpack::Error>, input_len: usize) -> Outcome {
    match result {
        Ok(value) => decoded(value, input_len),
        Err(e) => Outcome::Rejected(e.clone()),
    }
}

pub(super) fn decoded(value: &Value, consumed: usize) -> Outcome {
    Outcome::Decoded {
        type_name: value.type_name(),
        shape: value.shape(),
        consumed,
    }
}

/// Raw bytes, default limits; a decoded value must round-trip through a minimal encoding.
pub fn decode(data: &[u8]) -> Outcome {
    let result = hardpack::decode(data);
    match &result {
        Ok(value) => {
            check_decoded(value, &Limits::default());
            check_round_trip(value, data.len());
        }
        Err(e) => names_its_offset(e),
    }
    outcome(&result, data.len())
}

/// An error's message says where the input went wrong, as the README promises.
pub(super) fn names_its_offset(e: &hardpack::Error) {
    let message = e.to_string();
    assert!(
        message.contains(&format!("at byte {}", e.offset())),
        "the message does not name the error's offset {}: {message}",
        e.offset()
    );
}

pub(super) fn check_round_trip(value: &Value, input_len: usize) {
    let encoded = encode(value).expect("a decoded value always encodes");
    assert!(
        encoded.len() <= input_len,
        "re-encoding is longer than the input ({} > {input_len})",
        encoded.len()
    );
    let again = Decoder::new(Limits::unlimited())
        .decode(&encoded)
        .unwrap_or_else(|e| panic!("re-encoded value does not decode: {e}"));
    assert!(again == *value, "decode(encode(v)) != v");
    assert_eq!(
        encode(&again).expect("encodes"),
        encoded,
        "encoding is not canonical"
    );
}

/// How many of the first bytes of a `decode_limits` input choose the limits: one byte for
/// each limit of [`Limit::ALL`] but the budget, in that order, then two for the budget.
pub const LIMITS_HEADER_LEN: usize = Limit::ALL.len() + 1;

/// One byte to a length or depth limit: small values as they are (the interesting edges),
/// the top few to the large settings.
pub(super) fn length_limit(b: u8) -> usize {
    match b {
        0..=249 => usize::from(b),
        250 => 1 << 10,
        251 => 1 << 16,
        252 => 1 << 20,
        253 => 1 << 24,
        _ => usize::MAX,
    }
}

/// The Limits a `decode_limits` input asks for, and the payload after the header. Missing
/// header bytes are 0xff. The limits come from [`Limit::ALL`], so a new limit is fuzzed
/// as soon as it exists.
pub fn limits_from_input(data: &[u8]) -> (Limits, &[u8]) {
    let mut header = [0xffu8; LIMITS_HEADER_LEN];
    for (h, d) in header.iter_mut().zip(data) {
        *h = *d;
    }
    let payload = data.get(LIMITS_HEADER_LEN..).unwrap_or_default();
    let mut bytes = header.iter().copied();
    let mut limits = Limits::default();
    for limit in Limit::ALL {
        let value = if limit == Limit::AllocBytes {
            // 0 to 4 MiB in 64-byte steps.
            let hi = bytes.next().unwrap_or(0xff);
            let lo = bytes.next().unwrap_or(0xff);
            usize::from(u16::from_be_bytes([hi, lo])) * 64
        } else {
            length_limit(bytes.next().unwrap_or(0xff))
        };
        limits.set(limit, value);
    }
    (limits, payload)
}

/// The most `decode_limits` lets its second decode (a limit raised to what the payload
/// claimed) charge.
pub const RECHECK_BUDGET_BYTES: usize = 256 << 20;

/// The input chooses the limits; the decode must stay within them, in what it allocates and
/// in what it returns, and may only refuse for a limit the payload really exceeds.
pub fn decode_limits(data: &[u8]) -> Outcome {
    let (limits, payload) = limits_from_input(data);
    assert!(
        alloc_meter::is_installed(),
        "decode_limits needs alloc_meter::CountingAlloc as the global allocator"
    );
    let result = decode_within_budget(&limits, InvalidUtf8::Reject, payload);
    // The Replace policy allocates on its own path: it must keep the same budget, and may
    // differ from Reject only where Reject found invalid UTF-8.
    let replaced = decode_within_budget(&limits, InvalidUtf8::Replace, payload);
    match (&result, &replaced) {
        (Ok(strict), Ok(lossy)) => {
            assert!(
                strict.value == lossy.value,
                "InvalidUtf8::Replace changed a valid document"
            )
        }
        (Ok(_), Err(e)) => panic!("InvalidUtf8::Replace refused what Reject accepts: {e}"),
        (Err(e), Ok(lossy)) => {
            assert!(
                matches!(e.kind(), ErrorKind::InvalidUtf8 { .. }),
                "InvalidUtf8::Replace accepted what Reject refused for another reason: {e}"
            );
            check_decoded(&lossy.value, &limits);
        }
        (Err(_), Err(_)) => {}
    }
    match &result {
        Ok(decoded) => {
            check_decoded(&decoded.value, &limits);
            check_documented_charge(decoded);
        }
        Err(e) => {
            if let ErrorKind::LimitExceeded {
                limit,
                max,
                claimed,
            } = *e.kind()
            {
                assert!(claimed > max, "{limit} refused {claimed} <= {max}");
                // With that limit raised to the claim, the same refusal must not happen. The
                // second decode runs under a budget of at most RECHECK_BUDGET_BYTES, so this
                // oracle never leans on the sanitizer to stop a huge allocation; a budget
                // claim above it is not re-checked.
                let mut raised = limits.clone().with(limit, claimed);
                raised.max_alloc_bytes = raised.max_alloc_bytes.min(RECHECK_BUDGET_BYTES);
                let checkable = limit != Limit::AllocBytes || claimed <= RECHECK_BUDGET_BYTES;
                if let (true, Err(again)) = (checkable, Decoder::new(raised).decode_prefix(payload))
                {
                    assert!(
                        again != *e,
                        "refused by {limit} even with {limit} = {claimed}: {e}"
                    );
                }
            }
        }
    }
    let outcome = match &result {
        Ok(d) => decoded(&d.value, d.stats.consumed),
        Err(e) => Outcome::Rejected(e.clone()),
    };
    drop_within_charge(result);
    drop_within_charge(replaced);
    outcome
}

/// Decodes under `limits` and `policy`, asserting that the peak heap stayed within the budget
/// and within what the decode charged. Returns the result with the bytes the value holds.
pub(super) fn decode_within_budget(
    limits: &Limits,
    policy: InvalidUtf8,
    payload: &[u8],
) -> Result<Decoded, hardpack::Error> {
    let decoder = Decoder::new(limits.clone()).with_invalid_utf8(policy);
    let (result, cost) = alloc_meter::measure(|| decoder.decode_with_stats(payload));
    assert!(
        cost.peak_bytes <= budget_with_slack(limits),
        "decode ({policy:?}) allocated {} bytes at peak, above max_alloc_bytes {}",
        cost.peak_bytes,
        limits.max_alloc_bytes
    );
    let (value, stats) = result?;
    assert!(
        cost.peak_bytes <= stats.charged_bytes,
        "decode ({policy:?}) allocated {} bytes at peak but charged only {}",
        cost.peak_bytes,
        stats.charged_bytes
    );
    Ok(Decoded {
        value,
        stats,
        held_bytes: cost.kept_bytes,
    })
}

/// The bounds the README documents for a decode, checked exactly on each decoded value: it
/// charges its containers' slots (one `Value` an element, two an entry) and drop reserves,
/// the bytes of each str longer than inline text, each non-empty bin and each ext (with its
/// type byte), and the stack of open containers (grown 4, 8, 16... entries as deep as the value
/// goes), and nothing else; its container slots take at most one `Value` per input byte. A
/// decoder that reserved or charged twice what it should, or once too little, fails here.
pub(super) fn check_documented_charge(decoded: &Decoded) {
    let (value_charge, slot_bytes, deepest) = documented_charge(&decoded.value);
    let stack = open_stack_charge(deepest);
    assert_eq!(
        decoded.stats.charged_bytes,
        value_charge + stack,
        "the decode charged {} bytes; its value accounts for {value_charge} and its \
         {deepest}-deep stack of open containers for {stack}",
        decoded.stats.charged_bytes
    );
    let bound = std::mem::size_of::<Value>() * decoded.stats.consumed;
    assert!(
        slot_bytes <= bound,
        "containers reserved {slot_bytes} bytes of slots for {} input bytes (at most one \
         Value per byte: {bound})",
        decoded.stats.consumed
    );
}

/// What decoding `value` charges for the value itself, from the value alone (see
/// [`check_documented_charge`]): the charge, the container slot bytes within it, and the
/// deepest nesting of non-empty containers.
pub(super) fn documented_charge(value: &Value) -> (usize, usize, usize) {
    let (mut charge, mut slots, mut deepest) = (0, 0, 0);
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        match v {
            Value::Array(items) if !items.is_empty() => {
                slots += items.len() * std::mem::size_of::<Value>();
                charge += hardpack::value::DROP_RESERVE_PER_CONTAINER;
                deepest = deepest.max(depth + 1);
                stack.extend(items.iter().map(|c| (c, depth + 1)));
            }
            Value::Map(entries) if !entries.is_empty() => {
                slots += entries.len() * std::mem::size_of::<(Value, Value)>();
                charge += hardpack::value::DROP_RESERVE_PER_CONTAINER;
                deepest = deepest.max(depth + 1);
                for (k, c) in entries.iter() {
                    stack.push((k, depth + 1));
                    stack.push((c, depth + 1));
                }
            }
            Value::Str(s) if s.len() > hardpack::value::Str::INLINE_CAPACITY => charge += s.len(),
            Value::Bin(b) => charge += b.len(),
            Value::Ext(e) => charge += e.data().len() + 1,
            _ => {}
        }
    }
    (charge + slots, slots, deepest)
}

/// What a decode charges for its stack of open containers when they nest `deepest` deep:
/// none for no container, else room for 4 entries doubled until it holds `deepest`. The
/// bytes an entry takes are measured once, on `[0]` (one container: 4 entries).
pub(super) fn open_stack_charge(deepest: usize) -> usize {
    static ENTRY_BYTES: OnceLock<usize> = OnceLock::new();
    let entry = *ENTRY_BYTES.get_or_init(|| {
        let (value, stats) = Decoder::default()
            .decode_with_stats(&[0x91, 0x00])
            .expect("[0] decodes");
        let (value_charge, _, _) = documented_charge(&value);
        (stats.charged_bytes - value_charge) / 4
    });
    if deepest == 0 {
        return 0;
    }
    let mut entries = 4;
    while entries < deepest {
        entries *= 2;
    }
    entries * entry
}

/// A value from [`decode_within_budget`].
pub(super) struct Decoded {
    value: Value,
    stats: DecodeStats,
    /// Heap bytes the value holds.
    held_bytes: usize,
}

/// Drops a decoded value, asserting that the traversal stack its drop may need fits in the
/// room the decode charged for it: what the value holds plus that stack stays within the
/// charge.
pub(super) fn drop_within_charge(decoded: Result<Decoded, hardpack::Error>) {
    let Ok(Decoded {
        value,
        stats,
        held_bytes,
    }) = decoded
    else {
        return;
    };
    let ((), dropped) = alloc_meter::measure(|| drop(value));
    assert!(
        held_bytes.saturating_add(dropped.peak_bytes) <= stats.charged_bytes,
        "dropping a value that holds {held_bytes} bytes allocated {} more, above the {} \
         charged",
        dropped.peak_bytes,
        stats.charged_bytes
    );
}

pub(super) fn budget_with_slack(limits: &Limits) -> usize {
    limits
        .max_alloc_bytes
        .saturating_add(alloc_meter::ALLOC_SLACK_BYTES)
}

/// Checks what every decoded value must satisfy, without recursion: each container, str, bin
/// and ext within `limits`, and each timestamp's nanoseconds at most 999,999,999.
pub fn check_decoded(value: &Value, limits: &Limits) {
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((v, depth)) = stack.pop() {
        let (limit, len) = match v {
            Value::Array(items) => {
                stack.extend(items.iter().map(|c| (c, depth + 1)));
                (Limit::ArrayLen, items.len())
            }
            Value::Map(entries) => {
                for (k, c) in entries.iter() {
                    stack.push((k, depth + 1));
                    stack.push((c, depth + 1));
                }
                (Limit::MapLen, entries.len())
            }
            Value::Str(s) => (Limit::StrLen, s.len()),
            Value::Bin(b) => (Limit::BinLen, b.len()),
            Value::Ext(e) => (Limit::ExtLen, e.data().len()),
            Value::Timestamp(ts) => {
                assert!(
                    ts.nanoseconds() <= 999_999_999,
                    "decoded a timestamp with {} nanoseconds",
                    ts.nanoseconds()
                );
                continue;
            }
            _ => continue,
        };
        assert!(
            len <= limits.get(limit),
            "decoded a {} of {len} with {limit} {}",
            v.type_name(),
            limits.get(limit)
        );
        if matches!(limit, Limit::ArrayLen | Limit::MapLen) {
            assert!(
                depth < limits.max_depth,
                "decoded a container at depth {} with max_depth {}",
                depth + 1,
                limits.max_depth
            );
        }
    }
}
