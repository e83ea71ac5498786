//! The fuzz targets, each defined once. A target takes the raw input, checks its property and
//! panics with a message naming the broken property when it does not hold; otherwise it
//! returns what the codec did with the input, which the regression replay compares with the
//! case's expected outcome.

use std::sync::OnceLock;

use hardpack::{
    decode::DecodeStats, decode::InvalidUtf8, encode, rmpv::from_rmpv, value::Shape, Decoder,
    ErrorKind, Limit, Limits, Value,
};

use crate::alloc_meter;

/// What the codec did with an input, as a target saw it.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The input decoded.
    Decoded {
        /// The top-level value's type.
        type_name: &'static str,
        /// Its shape.
        shape: Shape,
        /// Bytes it took.
        consumed: usize,
    },
    /// The codec refused it.
    Rejected(hardpack::Error),
    /// A structured target's input described a value, and every check on it held; there is no
    /// decoding verdict on the input itself.
    Checked,
    /// A structured target's input was too short to describe a value.
    NoValue,
}

impl Outcome {
    /// The error kind (`hardpack::Error::kind_name`) of a rejection.
    pub fn kind_name(&self) -> Option<&'static str> {
        match self {
            Outcome::Rejected(e) => Some(e.kind_name()),
            _ => None,
        }
    }

    /// The limit that refused the input, if one did.
    pub fn limit_name(&self) -> Option<&'static str> {
        match self {
            Outcome::Rejected(e) => e.limit().map(Limit::name),
            _ => None,
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Decoded { .. } => f.write_str("decoded"),
            Outcome::Rejected(e) => match e.limit() {
                None => write!(f, "rejected: {}", e.kind_name()),
                Some(limit) => write!(f, "rejected: {} ({limit})", e.kind_name()),
            },
            Outcome::Checked => f.write_str("checked"),
            Outcome::NoValue => f.write_str("no value"),
        }
    }
}

/// A named target.
pub struct Target {
    /// Its name, as used by cargo-fuzz, AFL, `regression/` metadata and `hardpack repro`.
    pub name: &'static str,
    /// Its entry point: checks the target's properties (panicking when one does not hold)
    /// and returns what the codec did.
    pub run: fn(&[u8]) -> Outcome,
    /// The limits the target decodes this input under (`None` for the structured targets,
    /// whose input is no MessagePack).
    pub limits: fn(&[u8]) -> Option<Limits>,
    /// What it checks, for the README and `hardpack targets`.
    pub checks: &'static str,
}

/// Every target: the one list that the fuzz wrappers, the scripts (through `hardpack
/// targets`), the regression replay and `hardpack repro --target` use.
pub const TARGETS: &[Target] = &[
    Target {
        name: "decode",
        run: decode,
        limits: |_| Some(Limits::default()),
        checks: "default Limits; if Ok, encode then decode gives the same value, and the \
                 re-encoding is minimal (re-encoding it again is identical) and no longer than \
                 the input",
    },
    Target {
        name: "decode_limits",
        run: decode_limits,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits; measured peak heap <= max_alloc_bytes \
                 under both InvalidUtf8 policies (Replace differs only on invalid UTF-8); \
                 every container of an Ok value within its limit; a rejection names a limit \
                 the payload really exceeds",
    },
    Target {
        name: "roundtrip_structured",
        run: roundtrip_structured,
        limits: |_| None,
        checks: "an arbitrary Value (deep and wide shapes, every scalar edge) encodes, \
                 decodes back equal, and its encoding equals rmpv's encoding of the same value",
    },
    Target {
        name: "encode_deep",
        run: encode_deep,
        limits: |_| None,
        checks: "an arbitrary deep/wide shape (up to 1,024 levels, depth on a log scale) \
                 built iteratively is encoded, decoded, cloned, compared, printed and dropped \
                 on one long-lived thread with a 64 KiB stack",
    },
    Target {
        name: "validate_agrees",
        run: validate_agrees,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits (as in decode_limits); under both \
                 InvalidUtf8 policies skip and validate give what decode_prefix and decode give \
                 (the same error, offset and depth; the same bytes consumed and charged), and \
                 skip makes no heap allocation when max_depth <= 128 (one above)",
    },
    Target {
        name: "value_ref_agrees",
        run: value_ref_agrees,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits (as in decode_limits); decode_ref and \
                 decode_ref_prefix give what decode and decode_prefix give (an equal value, \
                 to_owned equal to the owned decode, the same encoding, shape and bytes \
                 consumed, or the same error), but for refusals by max_alloc_bytes, which \
                 each charges for its own allocations; decode_ref's measured peak heap stays \
                 within max_alloc_bytes and within what it charged",
    },
    Target {
        name: "tokens_roundtrip",
        run: tokens_roundtrip,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits; the token reader's tokens of the first \
                 value, re-encoded, are the owned decode's encoding, and read back give the \
                 same tokens; it refuses what skip refuses, with the same error (but for \
                 max_alloc_bytes, as in value_ref_agrees); its peak heap is what it charged",
    },
    Target {
        name: "strict",
        run: strict,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits; a document strict mode accepts is the \
                 lenient decode's value and re-encodes byte for byte, with str keys only and \
                 no key twice in a map; a strict refusal (non_canonical, non_str_key, \
                 duplicate_key) names a violation the lenient value really has; any other \
                 refusal is the lenient decode's (but for max_alloc_bytes, which strict mode \
                 also charges for its keys); skip and decode_ref in strict mode agree",
    },
    Target {
        name: "model_agrees",
        run: model_agrees,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits (the budget aside); decode_prefix and \
                 decode give the reference decoder's verdict (model.rs, written from the \
                 specification, sharing no decoding code): the same value and length, or the \
                 same error kind, offset, depth and needed",
    },
    Target {
        name: "stream_split",
        run: stream_split,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits, the next one how the rest is split \
                 (0: one byte at a time); fed to a StreamDecoder in those pieces, it yields \
                 exactly the values and the error (kind, stream offset, depth) that \
                 decode_prefix gives value after value on the whole; with a small \
                 max_buffer_bytes it yields a prefix of them, then the same error or \
                 buffer_limit, its peak held bytes within max_buffer_bytes and its measured \
                 peak heap within max_alloc_bytes + 2 x (max_buffer_bytes + piece) + 16 x \
                 open levels + 4 KiB; \
                 next_as::<schema::Any> on the same pieces gives the same values and the same \
                 kind of error (budget refusals aside)",
    },
    Target {
        name: "serde_typed",
        run: serde_typed,
        limits: |data| Some(limits_from_input(data).0),
        checks: "the first 8 bytes choose the Limits; from_slice into the built-in schema \
                 (schema::Any, any document) and into a ValueRef gives decode's verdict (the \
                 same error, but for max_alloc_bytes) and, if Ok, the same value; into a wide \
                 struct and into a recursive enum of every variant form it never panics, accepts \
                 only what decode accepts and refuses what decode accepts only for the type \
                 (a serde message), the depth or the budget; a value decoded (owned or through serde \
                 into a ValueRef) serializes through serde (to_vec, to_writer) to the bytes \
                 encode writes, unless deeper than SERIALIZE_MAX_DEPTH; into a newtype of an Option of \
                 itself it ends (each Some and newtype counts toward max_depth, capped at 128 \
                 here, as for the enum); measured peak heap <= 2 x max_alloc_bytes + the serde slack \
                 (HINT_ELEMENT_BYTES, serde's 1 MiB cap per open collection)",
    },
    Target {
        name: "serde_differential",
        run: serde_differential,
        limits: |_| Some(serde_differential_limits()),
        checks: "hardpack's from_slice and rmp_serde::from_slice agree on the built-in schema \
                 (schema::Any) where both accept; every disagreement is one of \
                 SERDE_DISAGREEMENTS",
    },
    Target {
        name: "differential_rmpv",
        run: differential_rmpv,
        limits: |_| Some(differential_limits()),
        checks: "hardpack's decode and rmpv::decode::read_value agree where both accept, \
                 and so do hardpack's decode_ref and rmpv::decode::read_value_ref; every \
                 disagreement is one of the documented kinds",
    },
];

impl Target {
    /// True for the targets whose input describes a value to build (through `arbitrary`)
    /// rather than MessagePack to decode.
    pub fn is_structured(&self) -> bool {
        (self.limits)(&[]).is_none()
    }
}

/// Looks a target up by name.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// The outcome of a decode of a whole input (`consumed` is the input's length).
fn outcome(result: &Result<Value, hardpack::Error>, input_len: usize) -> Outcome {
    match result {
        Ok(value) => decoded(value, input_len),
        Err(e) => Outcome::Rejected(e.clone()),
    }
}

fn decoded(value: &Value, consumed: usize) -> Outcome {
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
fn names_its_offset(e: &hardpack::Error) {
    let message = e.to_string();
    assert!(
        message.contains(&format!("at byte {}", e.offset())),
        "the message does not name the error's offset {}: {message}",
        e.offset()
    );
}

fn check_round_trip(value: &Value, input_len: usize) {
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
fn length_limit(b: u8) -> usize {
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
fn decode_within_budget(
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
fn check_documented_charge(decoded: &Decoded) {
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
fn documented_charge(value: &Value) -> (usize, usize, usize) {
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
fn open_stack_charge(deepest: usize) -> usize {
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
struct Decoded {
    value: Value,
    stats: DecodeStats,
    /// Heap bytes the value holds.
    held_bytes: usize,
}

/// Drops a decoded value, asserting that the traversal stack its drop may need fits in the
/// room the decode charged for it: what the value holds plus that stack stays within the
/// charge.
fn drop_within_charge(decoded: Result<Decoded, hardpack::Error>) {
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

fn budget_with_slack(limits: &Limits) -> usize {
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

/// The limits come from the input, as in `decode_limits`; the validator must give the owned
/// decoder's verdict, bytes consumed and bytes charged, without allocating.
pub fn validate_agrees(data: &[u8]) -> Outcome {
    let (limits, payload) = limits_from_input(data);
    for policy in [InvalidUtf8::Reject, InvalidUtf8::Replace] {
        let decoder = Decoder::new(limits.clone()).with_invalid_utf8(policy);
        let (skipped, cost) = alloc_meter::measure(|| decoder.skip(payload));
        let most = usize::from(limits.max_depth > hardpack::decode::INLINE_DEPTH);
        assert!(
            cost.allocations <= most,
            "skip ({policy:?}) made {} heap allocations with max_depth {} (at most {most})",
            cost.allocations,
            limits.max_depth
        );
        let decoded = decoder.decode_with_stats(payload).map(|(_, stats)| stats);
        match (&decoded, &skipped) {
            // The validator asks the allocator for nothing, so it cannot be refused.
            (Err(e), Ok(_)) if matches!(e.kind(), ErrorKind::OutOfMemory { .. }) => {}
            _ => assert!(
                decoded == skipped,
                "skip ({policy:?}) and decode_prefix disagree: {skipped:?} against {decoded:?}"
            ),
        }
        let validated = decoder.validate(payload).map(|stats| stats.consumed);
        let whole = decoder.decode(payload).map(|_| payload.len());
        if !matches!(&whole, Err(e) if matches!(e.kind(), ErrorKind::OutOfMemory { .. })) {
            assert!(
                validated == whole,
                "validate ({policy:?}) and decode disagree: {validated:?} against {whole:?}"
            );
        }
    }
    let result = Decoder::new(limits).decode(payload);
    outcome(&result, payload.len())
}

/// True for the errors where a borrowing surface may differ from the owned decode: it
/// charges what it allocates itself, not what the owned decode would.
fn budget_error(e: &hardpack::Error) -> bool {
    e.limit() == Some(Limit::AllocBytes) || matches!(e.kind(), ErrorKind::OutOfMemory { .. })
}

/// Two verdicts that must be the same, but for refusals by the budget (see [`budget_error`]).
fn same_verdict<T, U>(
    what: &str,
    ours: &Result<T, hardpack::Error>,
    owned: &Result<U, hardpack::Error>,
) {
    match (ours, owned) {
        (Err(a), Err(b)) if budget_error(a) || budget_error(b) => {}
        (Err(a), Err(b)) => assert!(a == b, "{what} refused with {a}, decode with {b}"),
        (Err(e), Ok(_)) => assert!(budget_error(e), "{what} refused what decode accepts: {e}"),
        (Ok(_), Err(e)) => assert!(budget_error(e), "{what} accepted what decode refuses: {e}"),
        (Ok(_), Ok(_)) => {}
    }
}

/// The borrowed decode agrees with the owned one, within its own budget.
pub fn value_ref_agrees(data: &[u8]) -> Outcome {
    let (limits, payload) = limits_from_input(data);
    let decoder = Decoder::new(limits.clone());
    let (borrowed, cost) = alloc_meter::measure(|| decoder.decode_ref_with_stats(payload));
    assert!(
        cost.peak_bytes <= budget_with_slack(&limits),
        "decode_ref allocated {} bytes at peak, above max_alloc_bytes {}",
        cost.peak_bytes,
        limits.max_alloc_bytes
    );
    let owned = decoder.decode_with_stats(payload);
    same_verdict("decode_ref_prefix", &borrowed, &owned);
    if let (Ok((doc, stats)), Ok((value, owned_stats))) = (&borrowed, &owned) {
        assert!(
            cost.peak_bytes <= stats.charged_bytes,
            "decode_ref allocated {} bytes at peak but charged only {}",
            cost.peak_bytes,
            stats.charged_bytes
        );
        assert_eq!(
            stats.consumed, owned_stats.consumed,
            "bytes consumed differ"
        );
        assert!(
            *doc == *value,
            "decode_ref and decode differ: {doc:?} against {value:?}"
        );
        assert!(
            doc.to_owned() == *value,
            "to_owned differs from the owned decode"
        );
        assert_eq!(
            doc.encode(),
            encode(value).expect("a decoded value encodes"),
            "decode_ref and decode re-encode differently"
        );
        assert_eq!(doc.shape(), value.shape(), "shapes differ");
        assert!(doc.clone() == *doc, "a clone differs");
    }
    let whole = decoder.decode_ref(payload);
    same_verdict("decode_ref", &whole, &decoder.decode(payload));
    match borrowed {
        Ok((doc, stats)) => Outcome::Decoded {
            type_name: doc.root().type_name(),
            shape: doc.shape(),
            consumed: stats.consumed,
        },
        Err(e) => Outcome::Rejected(e),
    }
}

/// Reads the tokens of the first value in `input` into `tokens`; the bytes they took, or the
/// reader's error.
fn first_value_tokens<'a>(
    input: &'a [u8],
    limits: &Limits,
    tokens: &mut Vec<hardpack::decode::Token<'a>>,
) -> Result<usize, hardpack::Error> {
    let mut reader = hardpack::decode::TokenReader::new(input, limits);
    while let Some((_, token)) = reader.next_token()? {
        tokens.push(token);
        if reader.depth() == 0 {
            return Ok(reader.position());
        }
    }
    // The input ended between values, before the first: what decoding an empty input says.
    Err(Decoder::new(limits.clone())
        .skip(input)
        .expect_err("an empty input is refused"))
}

/// The token reader's tokens re-encode to the owned decode's encoding and read back the same.
pub fn tokens_roundtrip(data: &[u8]) -> Outcome {
    let (limits, payload) = limits_from_input(data);
    // Room for every token (each is at least a byte), so the measured heap is the reader's.
    let mut tokens = Vec::with_capacity(payload.len());
    let (read, cost) = alloc_meter::measure(|| first_value_tokens(payload, &limits, &mut tokens));
    assert!(
        cost.peak_bytes <= budget_with_slack(&limits),
        "the token reader allocated {} bytes at peak, above max_alloc_bytes {}",
        cost.peak_bytes,
        limits.max_alloc_bytes
    );
    let owned = Decoder::new(limits.clone()).decode_prefix(payload);
    same_verdict("the token reader", &read, &owned);
    if let (Ok(used), Ok((value, owned_used))) = (&read, &owned) {
        assert_eq!(used, owned_used, "bytes consumed differ");
        let mut written = Vec::new();
        for token in &tokens {
            token.encode_into(&mut written);
        }
        assert_eq!(
            written,
            encode(value).expect("a decoded value encodes"),
            "re-encoded tokens differ from the value's encoding"
        );
        let mut again = Vec::new();
        first_value_tokens(&written, &Limits::unlimited(), &mut again)
            .unwrap_or_else(|e| panic!("re-encoded tokens do not read back: {e}"));
        assert!(
            again == tokens,
            "tokens read back differ: {again:?} against {tokens:?}"
        );
    }
    match owned {
        Ok((value, used)) => decoded(&value, used),
        Err(e) => Outcome::Rejected(e),
    }
}

/// What makes a leniently decoded document unacceptable to strict mode, found by walking
/// it (without recursion): `non_canonical`, `non_str_key`, `duplicate_key`.
fn strict_violations(value: &Value, bytes: &[u8]) -> Vec<&'static str> {
    let mut found = Vec::new();
    if encode(value).expect("a decoded value encodes") != bytes {
        found.push("non_canonical");
    }
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items.iter()),
            Value::Map(map) => {
                let mut keys = Vec::new();
                for (k, v) in map.iter() {
                    match k.as_str() {
                        Some(s) => keys.push(s),
                        None => found.push("non_str_key"),
                    }
                    stack.push(k);
                    stack.push(v);
                }
                keys.sort_unstable();
                if keys.windows(2).any(|pair| pair[0] == pair[1]) {
                    found.push("duplicate_key");
                }
            }
            _ => {}
        }
    }
    found
}

/// Strict mode against the oracle of [`strict_violations`] on the lenient decode.
pub fn strict(data: &[u8]) -> Outcome {
    let (limits, payload) = limits_from_input(data);
    let strict = Decoder::new(limits.clone()).strict();
    let (verdict, cost) = alloc_meter::measure(|| strict.decode_with_stats(payload));
    assert!(
        cost.peak_bytes <= budget_with_slack(&limits),
        "strict decode allocated {} bytes at peak, above max_alloc_bytes {}",
        cost.peak_bytes,
        limits.max_alloc_bytes
    );
    let lenient = Decoder::new(limits.clone()).decode_prefix(payload);
    match (&lenient, &verdict) {
        (Ok((value, used)), Ok((strict_value, stats))) => {
            assert!(
                cost.peak_bytes <= stats.charged_bytes,
                "strict decode allocated {} bytes at peak but charged only {}",
                cost.peak_bytes,
                stats.charged_bytes
            );
            assert_eq!(
                *used, stats.consumed,
                "strict and lenient consumed different lengths"
            );
            assert!(
                strict_value == value,
                "strict and lenient decoded different values"
            );
            let found = strict_violations(value, &payload[..*used]);
            assert!(
                found.is_empty(),
                "strict accepted a document with {found:?}"
            );
        }
        (Ok((value, used)), Err(e)) => {
            if !budget_error(e) {
                let found = strict_violations(value, &payload[..*used]);
                assert!(
                    found.contains(&e.kind_name()),
                    "strict refused ({e}) a document where the oracle finds {found:?}"
                );
            }
        }
        (Err(e), Ok(_)) => assert!(budget_error(e), "strict accepted what lenient refuses: {e}"),
        (Err(lenient_error), Err(e)) => {
            let strict_kind = matches!(
                e.kind(),
                ErrorKind::NonCanonical { .. }
                    | ErrorKind::NonStrKey
                    | ErrorKind::DuplicateKey { .. }
            );
            if !strict_kind && !budget_error(e) && !budget_error(lenient_error) {
                assert!(
                    e == lenient_error,
                    "strict refused with {e}, lenient with {lenient_error}"
                );
            }
        }
    }
    if let Err(e) = &verdict {
        names_its_offset(e);
    }
    let stats = verdict
        .as_ref()
        .map(|(_, stats)| *stats)
        .map_err(Clone::clone);
    match (&stats, strict.skip(payload)) {
        (Err(e), Ok(_)) if matches!(e.kind(), ErrorKind::OutOfMemory { .. }) => {}
        (decoded, skipped) => assert!(
            *decoded == skipped,
            "strict skip and decode disagree: {skipped:?} against {decoded:?}"
        ),
    }
    same_verdict(
        "strict decode_ref",
        &strict.decode_ref_prefix(payload),
        &verdict,
    );
    // The typed path runs the same strict checks: the same verdict, and the same value.
    let typed = strict.from_slice_prefix::<Value>(payload);
    same_verdict("strict typed", &typed, &verdict);
    if let (Ok((typed_value, typed_used)), Ok((value, stats))) = (&typed, &verdict) {
        assert!(
            typed_value == value && *typed_used == stats.consumed,
            "strict typed decoded a different value or length"
        );
    }
    match verdict {
        Ok((value, stats)) => decoded(&value, stats.consumed),
        Err(e) => Outcome::Rejected(e),
    }
}

/// A struct with a field of every kind, for typed decoding of arbitrary bytes.
#[derive(serde::Deserialize, Debug)]
#[allow(dead_code)]
struct WideStruct<'a> {
    flag: bool,
    small: i8,
    big: u64,
    float: f64,
    text: &'a str,
    owned: String,
    #[serde(with = "serde_bytes_field")]
    bytes: Vec<u8>,
    maybe: Option<Box<WideStruct<'a>>>,
    list: Vec<u16>,
    map: std::collections::BTreeMap<String, i32>,
    when: Option<hardpack::timestamp::Timestamp>,
    tuple: (u8, char),
}

/// A type serde recurses through without reading a container: a newtype around an
/// `Option` of itself. Only the depth limit's count of such levels ends it.
#[derive(serde::Deserialize, Debug)]
#[allow(dead_code)]
struct Chain(Option<Box<Chain>>);

/// An enum of every variant form rmp-serde writes (a unit variant as its name; newtype,
/// tuple and struct variants as a one-entry map from the name), recursive through `Box`,
/// `Vec` and a map as the reported serde depth bombs were, with the shapes serde_derive
/// reads besides a struct: `()`, a unit struct, a tuple struct.
#[derive(serde::Deserialize, Debug, PartialEq)]
#[allow(dead_code)]
enum Tree<'a> {
    Leaf,
    Boxed(Box<Tree<'a>>),
    List(Vec<Tree<'a>>),
    Map(std::collections::BTreeMap<&'a str, Tree<'a>>),
    Number(i16),
    Tuple(u8, Marker, Pair),
    Node {
        name: &'a str,
        nothing: (),
        next: Option<Box<Tree<'a>>>,
    },
}

/// A unit struct (rmp-serde writes an empty array).
#[derive(serde::Deserialize, Debug, PartialEq)]
struct Marker;

/// A tuple struct (an array of its fields).
#[derive(serde::Deserialize, Debug, PartialEq)]
#[allow(dead_code)]
struct Pair(u32, bool);

/// The depth `serde_typed` decodes [`Chain`] under: every level the limit lets through is a
/// native call chain, and the target runs on the fuzzer's own thread.
const CHAIN_MAX_DEPTH: usize = 128;

mod serde_bytes_field {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        crate::schema::deserialize_bytes(d)
    }
}

/// Heap typed decoding may hold beyond twice the budget: serde reserves up to 1 MiB per open
/// collection from a hint (see `hardpack::de::HINT_ELEMENT_BYTES`); the fuzzer's inputs keep
/// that far smaller, so the bound asserted is this, per open level.
pub const SERDE_SLACK_PER_LEVEL: usize = 1 << 20;

/// Typed decoding into the built-in schema agrees with decode; into a wide struct it holds.
pub fn serde_typed(data: &[u8]) -> Outcome {
    let (limits, payload) = limits_from_input(data);
    let decoder = Decoder::new(limits.clone());
    let (typed, cost) = alloc_meter::measure(|| decoder.from_slice::<crate::schema::Any>(payload));
    let bound = limits.max_alloc_bytes.saturating_mul(2).saturating_add(
        SERDE_SLACK_PER_LEVEL.saturating_mul(limits.max_depth.min(payload.len()).saturating_add(1)),
    );
    assert!(
        cost.peak_bytes <= bound,
        "typed decoding allocated {} bytes at peak, above 2 x max_alloc_bytes {} + slack",
        cost.peak_bytes,
        limits.max_alloc_bytes
    );
    let owned = decoder.decode(payload);
    same_verdict("from_slice::<Any>", &typed, &owned);
    if let (Ok(any), Ok(value)) = (&typed, &owned) {
        assert!(
            any.to_value() == *value,
            "typed and owned decoding differ: {any:?} against {value:?}"
        );
    }
    // ValueRef through serde: the borrowed decode's document, borrowing from the payload.
    let (borrowed, cost) =
        alloc_meter::measure(|| decoder.from_slice::<hardpack::ValueRef>(payload));
    assert!(
        cost.peak_bytes <= bound,
        "typed decoding into a ValueRef allocated {} bytes at peak",
        cost.peak_bytes
    );
    same_verdict("from_slice::<ValueRef>", &borrowed, &owned);
    if let (Ok(doc), Ok(value)) = (&borrowed, &owned) {
        assert!(doc == value, "from_slice::<ValueRef> and decode differ");
        // Back through serde's Serializer: the bytes encode writes, from either.
        let depth = value.shape().max_depth;
        serializes_as_encode("to_vec(&Value)", hardpack::to_vec(value), value, depth);
        serializes_as_encode("to_vec(&ValueRef)", hardpack::to_vec(doc), value, depth);
        let mut written = Vec::new();
        let to_writer = hardpack::ser::to_writer(&mut written, doc).map(|()| written);
        serializes_as_encode("to_writer(&ValueRef)", to_writer, value, depth);
    }
    let (wide, cost) = alloc_meter::measure(|| decoder.from_slice::<WideStruct>(payload).map(drop));
    assert!(
        cost.peak_bytes <= bound,
        "typed decoding into a struct allocated {} bytes at peak",
        cost.peak_bytes
    );
    refused_only_for_the_type("from_slice::<WideStruct>", &wide, &owned);
    // Each Some and each newtype is a level: any input ends within max_depth of them.
    let chain_limits = limits
        .clone()
        .with(Limit::Depth, limits.max_depth.min(CHAIN_MAX_DEPTH));
    if let Err(e) = Decoder::new(chain_limits.clone()).from_slice::<Chain>(payload) {
        assert!(
            e.depth() <= chain_limits.max_depth,
            "an error past max_depth: {e}"
        );
    }
    // Serde recurses natively through the enum: under the same capped depth.
    let (tree, cost) =
        alloc_meter::measure(|| Decoder::new(chain_limits.clone()).from_slice::<Tree>(payload));
    assert!(
        cost.peak_bytes <= bound,
        "typed decoding into an enum allocated {} bytes at peak",
        cost.peak_bytes
    );
    if let Err(e) = &tree {
        assert!(
            e.depth() <= chain_limits.max_depth,
            "an error past max_depth: {e}"
        );
    }
    refused_only_for_the_type("from_slice::<Tree>", &tree, &owned);
    match owned {
        Ok(value) => decoded(&value, payload.len()),
        Err(e) => Outcome::Rejected(e),
    }
}

/// A decoded value serialized through serde is what `encode` writes (each value in its
/// smallest form, ext and timestamps as rmp-serde's ext newtype), or, deeper than serde's
/// native recursion may go, refused for its depth alone.
fn serializes_as_encode(
    what: &str,
    serialized: Result<Vec<u8>, hardpack::error::EncodeError>,
    value: &Value,
    depth: usize,
) {
    match serialized {
        Ok(bytes) => assert!(
            bytes == hardpack::encode(value).expect("a decoded value encodes"),
            "{what} wrote other bytes than encode"
        ),
        Err(e) => assert!(
            depth > hardpack::ser::SERIALIZE_MAX_DEPTH,
            "{what} refused a value {depth} deep: {e}"
        ),
    }
}

/// A typed decode into a type that takes some documents, against the owned decode of the
/// same bytes: accepting means the document is well-formed and within the limits; where it
/// is, a refusal is the type's (a serde message: the wrong kind, a missing field, an unknown
/// variant) or a limit the type adds to (each `Some`, newtype and enum level counts toward
/// the depth; its charges differ from the owned decode's).
fn refused_only_for_the_type<T>(
    what: &str,
    typed: &Result<T, hardpack::Error>,
    owned: &Result<Value, hardpack::Error>,
) {
    match (typed, owned) {
        (Ok(_), Err(e)) => assert!(budget_error(e), "{what} accepted what decode refuses: {e}"),
        (Err(e), Ok(_)) => assert!(
            matches!(e.kind(), ErrorKind::Custom { .. })
                || e.limit() == Some(Limit::Depth)
                || budget_error(e),
            "{what} refused a well-formed document for a reason not its type's: {e}"
        ),
        _ => {}
    }
}

/// Where rmp-serde and hardpack's typed decoding may legitimately disagree.
pub const SERDE_DISAGREEMENTS: &[&str] = &[
    "rmp_serde::from_slice ignores bytes after the value; hardpack refuses them",
    "hardpack refuses invalid UTF-8 in str; rmp-serde hands the bytes on",
    "hardpack refuses the reserved marker 0xc1, an ext -1 that is no valid timestamp, and \
     input over its Limits",
    "rmp-serde refuses nesting past its own depth limit (1024); hardpack's differential limit \
     is higher",
    "rmp-serde hands an int in a signed form (int 8 to int 64) to the visitor as signed even \
     when it is not negative; hardpack hands every non-negative integer as u64: a visitor \
     that takes only u64 (an enum's variant index) takes 0xd0 0x04 from hardpack, not from \
     rmp-serde",
    "rmp-serde takes any item as a unit variant's name (a variant index, a bin); hardpack \
     takes a str (what rmp-serde writes) or a one-entry map, and names what it found",
    "rmp-serde takes a unit struct from nil or 0x90 only; hardpack from any empty array \
     (0xdc 0x0000 and 0xdd 0x00000000 too)",
    "both hand a bin to a type that asks for a sequence, tuple or struct as the sequence of \
     its bytes; rmp-serde ignores the bytes such a type leaves unread, hardpack refuses them \
     (as it refuses an array's unread elements)",
];

/// A refusal of hardpack's that rmp-serde does not make, for a reason
/// [`SERDE_DISAGREEMENTS`] gives: bytes after the value, invalid UTF-8, 0xc1, an invalid
/// timestamp, a limit.
fn refused_for_what_rmp_serde_does_not_check(e: &hardpack::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::TrailingBytes { .. }
            | ErrorKind::InvalidUtf8 { .. }
            | ErrorKind::ReservedMarker
            | ErrorKind::InvalidTimestamp(_)
            | ErrorKind::LimitExceeded { .. }
    )
}

/// The limits `serde_differential` decodes under: the defaults, with the depth above
/// rmp-serde's own limit so that rmp-serde's is met first.
fn serde_differential_limits() -> Limits {
    Limits::default().with(Limit::Depth, 2048)
}

/// hardpack's typed decoding against rmp-serde's, into the same schema.
pub fn serde_differential(data: &[u8]) -> Outcome {
    use crate::schema::Any;
    let limits = serde_differential_limits();
    let ours = Decoder::new(limits.clone()).from_slice::<Any>(data);
    let theirs = rmp_serde::from_slice::<Any>(data);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert!(
            a.to_value() == b.to_value(),
            "hardpack and rmp-serde decoded different values: {a:?} against {b:?}"
        ),
        (Err(e), Ok(_)) => assert!(
            refused_for_what_rmp_serde_does_not_check(e),
            "hardpack refused what rmp-serde accepts, for an undocumented reason: {e}"
        ),
        (Ok(any), Err(their_error)) => assert!(
            any.to_value().shape().max_depth >= 1024 / 2
                && their_error.to_string().contains("depth"),
            "rmp-serde refused ({their_error}) what hardpack accepts, for an undocumented reason"
        ),
        (Err(_), Err(_)) => {}
    }
    // Into the enum of every variant form, as rmp-serde writes and reads enums.
    let ours_tree = Decoder::new(limits.clone()).from_slice::<Tree>(data);
    let theirs_tree = rmp_serde::from_slice::<Tree>(data);
    match (&ours_tree, &theirs_tree) {
        (Ok(a), Ok(b)) => assert!(
            a == b,
            "hardpack and rmp-serde decoded different enums: {a:?} against {b:?}"
        ),
        (Err(e), Ok(_)) => assert!(
            refused_for_what_rmp_serde_does_not_check(e)
                || matches!(e.kind(), ErrorKind::Custom { message }
                    if message.starts_with("expected an enum")
                        || message.starts_with("the bin has")),
            "hardpack refused an enum rmp-serde accepts, for an undocumented reason: {e}"
        ),
        (Ok(_), Err(their_error)) => {
            let theirs = their_error.to_string();
            assert!(
                theirs.contains("depth")
                    || theirs.starts_with("invalid type: integer")
                        && theirs.ends_with("expected variant identifier")
                    || theirs == "invalid type: sequence, expected unit struct Marker",
                "rmp-serde refused ({theirs}) an enum hardpack accepts, for an undocumented reason"
            )
        }
        (Err(_), Err(_)) => {}
    }
    match ours {
        Ok(any) => decoded(&any.to_value(), data.len()),
        Err(e) => Outcome::Rejected(e),
    }
}

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
fn differential_limits() -> Limits {
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
fn refusal_is_real(e: &hardpack::Error, data: &[u8], theirs: &rmpv::Value) -> bool {
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
fn borrowed_against_rmpv(data: &[u8], limits: &Limits) {
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

/// An arbitrary value round-trips, and encodes exactly as rmpv encodes it (both minimal).
pub fn roundtrip_structured(data: &[u8]) -> Outcome {
    let value = crate::structured::value_from_bytes(data);
    let encoded = encode(&value).expect("a built value encodes");
    let decoded = Decoder::new(Limits::unlimited())
        .decode(&encoded)
        .unwrap_or_else(|e| panic!("encoding of a value does not decode: {e}"));
    assert!(decoded == value, "decode(encode(v)) != v");
    // rmpv's own drop recurses; its depth limit keeps the comparison to shapes it can hold.
    if value.shape().max_depth < rmpv_depth_limit() {
        let mut theirs = Vec::new();
        rmpv::encode::write_value(&mut theirs, &hardpack::rmpv::to_rmpv(&value))
            .expect("rmpv encodes");
        assert_eq!(
            encoded, theirs,
            "hardpack and rmpv encode the same value differently"
        );
    }
    Outcome::Checked
}

/// Stack size for [`encode_deep`]: small enough that any recursion over depth would overflow.
pub const SMALL_STACK: usize = 16 * 1024;

/// A deep value survives every operation on a small stack.
pub fn encode_deep(data: &[u8]) -> Outcome {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(shape) = u.arbitrary::<crate::structured::DeepShape>() else {
        return Outcome::NoValue;
    };
    on_small_stack(shape.nodes());
    Outcome::Checked
}

/// The checks of [`encode_deep`] on one shape: build, encode, decode, clone, compare, print
/// and drop.
fn deep_checks(nodes: Vec<crate::structured::Node>) {
    let value = crate::structured::build(nodes);
    let encoded = encode(&value).expect("encodes");
    let decoded = Decoder::new(Limits::unlimited())
        .decode(&encoded)
        .unwrap_or_else(|e| panic!("does not decode: {e}"));
    let copy = decoded.clone();
    assert!(
        copy == value && decoded == value,
        "clone or decode changed the value"
    );
    assert!(
        format!("{copy:?}") == format!("{value:?}"),
        "a clone prints differently"
    );
    drop((value, decoded, copy));
}

type DeepJob = (
    Vec<crate::structured::Node>,
    std::sync::mpsc::Sender<std::thread::Result<()>>,
);

/// Runs [`deep_checks`] on one long-lived thread with a [`SMALL_STACK`] (spawning one per
/// input cost more than the checks of a shallow shape), and resumes its panic here, so the
/// fuzzer sees it as the input's.
fn on_small_stack(nodes: Vec<crate::structured::Node>) {
    static WORKER: std::sync::Mutex<Option<std::sync::mpsc::Sender<DeepJob>>> =
        std::sync::Mutex::new(None);
    let mut worker = WORKER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let jobs = worker.get_or_insert_with(|| {
        let (jobs, inbox) = std::sync::mpsc::channel::<DeepJob>();
        std::thread::Builder::new()
            .name("encode_deep".into())
            .stack_size(SMALL_STACK)
            .spawn(move || {
                for (nodes, reply) in inbox {
                    let outcome = std::panic::catch_unwind(|| deep_checks(nodes));
                    let _ = reply.send(outcome);
                }
            })
            .expect("spawn the small-stack thread");
        jobs
    });
    let (reply, answer) = std::sync::mpsc::channel();
    jobs.send((nodes, reply))
        .expect("the small-stack thread is up");
    match answer.recv() {
        Ok(Ok(())) => {}
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        // A stack overflow aborts the process before this: the thread never dies quietly.
        Err(_) => panic!("the small-stack thread stopped"),
    }
}

/// The codec gives the reference decoder's verdict on the payload, under the limits the
/// input chooses (with no budget: the model does not keep the codec's accounts).
pub fn model_agrees(data: &[u8]) -> Outcome {
    let (mut limits, payload) = limits_from_input(data);
    limits.max_alloc_bytes = usize::MAX;
    let decoder = Decoder::new(limits.clone());
    let as_model = |e: &hardpack::Error| crate::model::ModelError {
        kind: e.kind().clone(),
        offset: e.offset(),
        depth: e.depth(),
    };
    let prefix = decoder.decode_prefix(payload);
    let whole = decoder.decode(payload);
    let refused_by_allocator = |e: Option<&hardpack::Error>| {
        e.is_some_and(|e| matches!(e.kind(), ErrorKind::OutOfMemory { .. }))
    };
    if !refused_by_allocator(prefix.as_ref().err()) && !refused_by_allocator(whole.as_ref().err()) {
        // The model recurses once per level: on a thread with room for the deepest input.
        let (input, model_limits) = (payload.to_vec(), limits.clone());
        let (model_prefix, model_whole) = on_big_stack(move || {
            (
                crate::model::decode_prefix(&input, &model_limits),
                crate::model::decode(&input, &model_limits),
            )
        });
        let codec_prefix = prefix
            .as_ref()
            .map(|(v, n)| (v.clone(), *n))
            .map_err(as_model);
        assert!(
            codec_prefix == model_prefix,
            "decode_prefix gave {codec_prefix:?}, the specification {model_prefix:?}"
        );
        let codec_whole = whole.as_ref().cloned().map_err(as_model);
        assert!(
            codec_whole == model_whole,
            "decode gave {codec_whole:?}, the specification {model_whole:?}"
        );
    }
    outcome(&whole, payload.len())
}

/// Runs `f` on one long-lived thread with a 256 MiB stack (virtual: only what is touched is
/// committed), for the reference decoder's recursion.
fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    type Job = Box<dyn FnOnce() + Send>;
    static WORKER: std::sync::Mutex<Option<std::sync::mpsc::Sender<Job>>> =
        std::sync::Mutex::new(None);
    let mut worker = WORKER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let jobs = worker.get_or_insert_with(|| {
        let (jobs, inbox) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("model".into())
            .stack_size(256 << 20)
            .spawn(move || {
                for job in inbox {
                    job();
                }
            })
            .expect("spawn the model's thread");
        jobs
    });
    let (reply, answer) = std::sync::mpsc::channel();
    jobs.send(Box::new(move || {
        let _ = reply.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    }))
    .expect("the model's thread is up");
    match answer.recv() {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("the model's thread stopped"),
    }
}

/// Slice decoding, value after value: the values and the first error, with the offset where
/// the value it is in starts. The reference the stream decoder must equal.
pub fn values_back_to_back(
    decoder: &Decoder,
    input: &[u8],
) -> (Vec<Value>, Option<(hardpack::Error, usize)>) {
    let mut values = Vec::new();
    let mut at = 0;
    while let Some(rest) = input.get(at..).filter(|rest| !rest.is_empty()) {
        match decoder.decode_prefix(rest) {
            Ok((value, len)) => {
                values.push(value);
                at += len;
            }
            Err(e) => return (values, Some((e, at))),
        }
    }
    (values, None)
}

/// The piece lengths a `stream_split` input's split byte asks for, cycled.
fn split_pieces(split: u8) -> [usize; 3] {
    match split {
        0 => [1, 1, 1],
        s => [usize::from(s), 1, usize::from(s) * 7 % 64 + 1],
    }
}

/// `payload` fed to `stream` in `pieces` (cycled), each value handed to `take` as it
/// completes; then finished. The error, if any, as (kind, offset, depth).
fn feed_in_pieces(
    stream: &mut hardpack::StreamDecoder,
    payload: &[u8],
    pieces: [usize; 3],
    mut take: impl FnMut(Value),
) -> Option<(ErrorKind, usize, usize)> {
    let verdict = |e: hardpack::Error| Some((e.kind().clone(), e.offset(), e.depth()));
    let mut at = 0;
    for len in pieces.iter().copied().cycle() {
        let Some(piece) = payload.get(at..).filter(|rest| !rest.is_empty()) else {
            break;
        };
        let piece = piece.get(..len).unwrap_or(piece);
        at += piece.len();
        stream.feed(piece);
        loop {
            match stream.next() {
                Ok(Some(value)) => take(value),
                Ok(None) => break,
                Err(e) => return verdict(e),
            }
        }
    }
    if let Err(e) = stream.finish() {
        return verdict(e);
    }
    loop {
        match stream.next() {
            Ok(Some(value)) => take(value),
            Ok(None) => return None,
            Err(e) => return verdict(e),
        }
    }
}

/// The input split into pieces and fed to a stream decoder gives what slice decoding gives.
pub fn stream_split(data: &[u8]) -> Outcome {
    let (limits, rest) = limits_from_input(data);
    let (split, payload) = match rest.split_first() {
        Some((split, payload)) => (*split, payload),
        None => (0, rest),
    };
    let pieces = split_pieces(split);
    let decoder = Decoder::new(limits.clone());
    let (expected, first_error) = values_back_to_back(&decoder, payload);
    let expected_error = first_error
        .as_ref()
        .map(|(e, start)| (e.kind().clone(), start + e.offset(), e.depth()));

    let mut stream =
        hardpack::StreamDecoder::new(decoder.clone()).with_max_buffer_bytes(usize::MAX);
    let mut values = Vec::new();
    let error = feed_in_pieces(&mut stream, payload, pieces, |v| values.push(v));
    assert!(
        values == expected,
        "fed in pieces {pieces:?}, the stream gave {} values where slice decoding gives {}",
        values.len(),
        expected.len()
    );
    assert!(
        error == expected_error,
        "fed in pieces {pieces:?}, the stream ended with {error:?}, slice decoding with {expected_error:?}"
    );

    // With little room to hold a value: a prefix of the values, then the same error or a
    // refusal by the buffer limit, holding and allocating within the bounds.
    let max_buffer = 16 + usize::from(split) * 8;
    let mut small = hardpack::StreamDecoder::new(decoder).with_max_buffer_bytes(max_buffer);
    let mut taken = 0;
    let (error, cost) = alloc_meter::measure(|| {
        feed_in_pieces(&mut small, payload, pieces, |v| {
            assert!(
                expected.get(taken) == Some(&v),
                "with max_buffer_bytes {max_buffer}, value {taken} differs from slice decoding's"
            );
            taken += 1;
        })
    });
    match &error {
        Some((ErrorKind::BufferLimit { max, needed }, _, _)) => {
            assert!(*max == max_buffer && needed > max, "a buffer limit refusal that is not one: {error:?}");
        }
        _ => assert!(
            taken == expected.len() && error == expected_error,
            "with max_buffer_bytes {max_buffer}: {taken} values and {error:?}, slice decoding {} and {expected_error:?}",
            expected.len()
        ),
    }
    assert!(
        small.peak_buffered_bytes() <= max_buffer,
        "held {} bytes for a value, max_buffer_bytes is {max_buffer}",
        small.peak_buffered_bytes()
    );
    let piece = pieces.iter().copied().max().unwrap_or(1);
    // The buffer holds at most max_buffer_bytes of a value plus the piece just fed, in a
    // vector that may have doubled; the framer's counts take a word per open level, in a
    // vector that may have doubled, and the levels are at most max_depth and the bytes held.
    let held = max_buffer.saturating_add(piece);
    let levels = limits.max_depth.min(held);
    let bound = limits
        .max_alloc_bytes
        .saturating_add(held.saturating_mul(2))
        .saturating_add(levels.saturating_mul(16))
        .saturating_add(4096);
    assert!(
        cost.peak_bytes <= bound,
        "the stream's peak heap {} exceeds max_alloc_bytes + 2 x (buffer + piece) + 16 x levels + 4 KiB = {bound}",
        cost.peak_bytes
    );

    // Typed values through the same stream: schema::Any mirrors Value, so each equals the
    // slice decode's; the stream ends with the same kind of error (the typed path charges
    // its own allocations, so budget refusals may differ, as in serde_typed).
    let mut typed = hardpack::StreamDecoder::new(Decoder::new(limits.clone()))
        .with_max_buffer_bytes(usize::MAX);
    let mut typed_values = 0usize;
    let mut typed_error = None;
    let mut at = 0;
    'feeding: for len in pieces.iter().copied().cycle() {
        let piece = payload.get(at..).unwrap_or_default();
        let piece = piece.get(..len).unwrap_or(piece);
        at += piece.len();
        if piece.is_empty() {
            if let Err(e) = typed.finish() {
                typed_error = Some(e);
                break;
            }
        } else {
            typed.feed(piece);
        }
        loop {
            match typed.next_as::<crate::schema::Any>() {
                Ok(Some(any)) => {
                    let slice_refused_by_budget = typed_values == expected.len()
                        && first_error.as_ref().is_some_and(|(e, _)| budget_error(e));
                    if slice_refused_by_budget {
                        // The owned decode ran out of budget where the typed one did not:
                        // the streams part ways here, as the surfaces do.
                        break 'feeding;
                    }
                    assert!(
                        expected.get(typed_values) == Some(&any.to_value()),
                        "typed stream value {typed_values} differs from slice decoding's"
                    );
                    typed_values += 1;
                }
                Ok(None) if piece.is_empty() => break 'feeding,
                Ok(None) => break,
                Err(e) => {
                    typed_error = Some(e);
                    break 'feeding;
                }
            }
        }
    }
    match (&typed_error, &first_error) {
        (Some(a), _) if budget_error(a) => {}
        (_, Some((b, _))) if budget_error(b) => {}
        (Some(a), Some((b, _))) => assert!(
            a.kind_name() == b.kind_name(),
            "the typed stream ended with {a}, slice decoding with {b}"
        ),
        (None, None) => assert!(
            typed_values == expected.len(),
            "the typed stream lost values"
        ),
        (a, b) => panic!("the typed stream ended with {a:?}, slice decoding with {b:?}"),
    }

    match (first_error, expected.first()) {
        // The error as decode_prefix gives it: its offset counts from its value's start.
        (Some((e, _)), _) => Outcome::Rejected(e),
        (None, Some(first)) => decoded(first, payload.len()),
        (None, None) => Outcome::NoValue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_header_reads_in_the_order_of_limit_all() {
        // The committed decode_limits seeds were written for this layout: depth, array, map,
        // str, bin, ext, then the budget in two bytes (x64).
        let (limits, payload) = limits_from_input(&[1, 2, 3, 4, 5, 6, 0, 2, 0xc0]);
        assert_eq!(
            limits,
            Limits::default()
                .with(Limit::Depth, 1)
                .with(Limit::ArrayLen, 2)
                .with(Limit::MapLen, 3)
                .with(Limit::StrLen, 4)
                .with(Limit::BinLen, 5)
                .with(Limit::ExtLen, 6)
                .with(Limit::AllocBytes, 128)
        );
        assert_eq!(payload, [0xc0]);
        assert_eq!(LIMITS_HEADER_LEN, 8);
    }

    fn seed(name: &str) -> Vec<u8> {
        let path = format!(
            "{}/../../corpus/serde_typed/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The enum seeds are what they are named for: the enum takes the one, refuses the
    /// others for their shape, and the map-variant bomb at the depth limit.
    #[test]
    fn the_enum_seeds_reach_every_variant_and_each_refusal() {
        let decode = |name: &str| {
            let data = seed(name);
            let (limits, payload) = limits_from_input(&data);
            let outcome = Decoder::new(limits).from_slice::<Tree>(payload).map(|_| ());
            // The target's oracles hold on it (each panics otherwise).
            serde_typed(&data);
            outcome
        };
        let every = decode("typed-tree-every-variant");
        assert!(every.is_ok(), "{every:?}");
        for (name, says) in [
            ("typed-tree-unknown-variant", "unknown variant `Nope`"),
            ("typed-tree-two-entry-variant", "expected an enum"),
            ("typed-tree-short-tuple", "invalid length 1"),
            ("typed-tree-number-too-big", "40000"),
        ] {
            let e = decode(name).unwrap_err();
            assert!(
                matches!(e.kind(), ErrorKind::Custom { message } if message.contains(says)),
                "{name}: {e}"
            );
        }
        let bomb = decode("typed-map-bomb").unwrap_err();
        assert_eq!(bomb.limit(), Some(Limit::Depth), "{bomb}");
    }

    /// The struct seed in other integer widths is a whole struct, so every integer in it
    /// is read by the typed integer path.
    #[test]
    fn the_struct_seeds_are_whole_structs() {
        for name in ["typed-wide-struct", "typed-wide-struct-int-widths"] {
            let data = seed(name);
            let (limits, payload) = limits_from_input(&data);
            let wide = Decoder::new(limits).from_slice::<WideStruct>(payload);
            assert!(wide.is_ok(), "{name}: {:?}", wide.err());
        }
    }
}
