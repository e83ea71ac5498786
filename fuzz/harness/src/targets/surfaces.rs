//! The surfaces that must give the owned decoder's verdict: `validate_agrees`,
//! `value_ref_agrees`, `tokens_roundtrip` and `strict`.

use hardpack::decode::{DecodeStats, InvalidUtf8, Token};
use hardpack::{encode, Decoder, ErrorKind, Limit, Limits, Value};

use crate::alloc_meter;

use super::*;

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
pub(super) fn budget_error(e: &hardpack::Error) -> bool {
    e.limit() == Some(Limit::AllocBytes) || matches!(e.kind(), ErrorKind::OutOfMemory { .. })
}

/// Two verdicts that must be the same, but for refusals by the budget (see [`budget_error`]).
pub(super) fn same_verdict<T, U>(
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
pub(super) fn first_value_tokens<'a>(
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
pub(super) fn strict_violations(value: &Value, bytes: &[u8]) -> Vec<&'static str> {
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

/// The first repeated key strict mode must find, computed apart from its own check (which
/// sorts each map's keys by a packed prefix): a map's str keys in a hash set, in wire order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RepeatedKey {
    /// The offset of the earlier copy.
    first: usize,
    /// The offset of the key that repeats it: the error's offset.
    repeat: usize,
    /// Where the map ends: strict mode finds the repeat when its map is read whole, so a
    /// violation it reports instead must start before this.
    map_end: usize,
}

/// In a document that decodes leniently: the first map, in the order maps end, with a str
/// key equal to an earlier str key of the same map (byte for byte), and its first such key.
pub(super) fn first_repeated_key(document: &[u8]) -> Option<RepeatedKey> {
    struct Open<'a> {
        left: u64,
        keys: Option<std::collections::HashMap<&'a [u8], usize>>,
        repeat: Option<(usize, usize)>,
    }
    let mut reader = hardpack::decode::TokenReader::new(document, &Limits::unlimited());
    let mut open: Vec<Open<'_>> = Vec::new();
    while let Ok(Some((offset, token))) = reader.next_token() {
        if let Some(map) = open.last_mut() {
            // A key: an even number of the map's items left.
            if let (Some(keys), true) = (&mut map.keys, map.left % 2 == 0) {
                if let Token::Str(key) = token {
                    match keys.get(key.as_bytes()) {
                        Some(&first) if map.repeat.is_none() => map.repeat = Some((first, offset)),
                        Some(_) => {}
                        None => {
                            keys.insert(key.as_bytes(), offset);
                        }
                    }
                }
            }
        }
        let items = match token {
            Token::Array(n) => u64::from(n),
            Token::Map(n) => 2 * u64::from(n),
            _ => 0,
        };
        if items > 0 {
            let is_map = matches!(token, Token::Map(_));
            open.push(Open {
                left: items,
                keys: is_map.then(Default::default),
                repeat: None,
            });
            continue;
        }
        // An item read whole: close what it completes.
        while let Some(top) = open.last_mut() {
            top.left -= 1;
            if top.left > 0 {
                break;
            }
            let closed = open.pop().expect("a container is open");
            if let Some((first, repeat)) = closed.repeat {
                return Some(RepeatedKey {
                    first,
                    repeat,
                    map_end: reader.position(),
                });
            }
        }
    }
    None
}

/// Strict mode refuses exactly the documents with a repeated key, at the repeat and naming
/// the earlier copy, unless another violation comes first; and never for a repeat that is
/// not there.
fn strict_repeats_agree(document: &[u8], strict: &Result<(Value, DecodeStats), hardpack::Error>) {
    let expected = first_repeated_key(document);
    match (strict, expected) {
        (Ok(_), Some(at)) => panic!(
            "strict accepted a map whose key at byte {} repeats the key at byte {}",
            at.repeat, at.first
        ),
        (Err(e), Some(at)) if !budget_error(e) => match e.kind() {
            ErrorKind::DuplicateKey { first_offset } => assert!(
                e.offset() == at.repeat && *first_offset == at.first,
                "strict reported {e}; the first repeat is the key at byte {} (of the key at \
                 byte {})",
                at.repeat,
                at.first
            ),
            _ => assert!(
                e.offset() < at.map_end,
                "strict refused ({e}) after the map with a repeated key ended at byte {}",
                at.map_end
            ),
        },
        (Err(e), None) => assert!(
            !matches!(e.kind(), ErrorKind::DuplicateKey { .. }),
            "strict reported a repeated key where none is: {e}"
        ),
        _ => {}
    }
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
    if let Ok((_, used)) = &lenient {
        strict_repeats_agree(&payload[..*used], &verdict);
    }
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
    // The typed path runs the same strict checks: the same verdict, and the same value. serde
    // recurses natively, on the fuzzer's own thread: both under a depth it can hold.
    let capped = limits
        .clone()
        .with(Limit::Depth, limits.max_depth.min(CHAIN_MAX_DEPTH));
    let typed_strict = Decoder::new(capped.clone()).strict();
    let typed = typed_strict.from_slice_prefix::<Value>(payload);
    let reference = if capped == limits {
        verdict.clone()
    } else {
        typed_strict.decode_with_stats(payload)
    };
    same_verdict("strict typed", &typed, &reference);
    if let (Ok((typed_value, typed_used)), Ok((value, stats))) = (&typed, &reference) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: &[(&str, u8)]) -> Vec<u8> {
        let mut out = vec![0x80 | entries.len() as u8];
        for (key, value) in entries {
            out.push(0xa0 | key.len() as u8);
            out.extend(key.as_bytes());
            out.push(*value);
        }
        out
    }

    #[test]
    fn the_first_repeat_is_the_earliest_key_equal_to_an_earlier_one() {
        let keys = [
            "header.field.a",
            "header.field.b",
            "header.field.a",
            "header.field.b",
        ];
        let doc = map(&keys.map(|k| (k, 1)));
        // Each entry is 1 + 14 + 1 bytes after the map header.
        let at = first_repeated_key(&doc).unwrap();
        assert_eq!(
            (at.first, at.repeat, at.map_end),
            (1, 1 + 2 * 16, doc.len())
        );
        assert_eq!(first_repeated_key(&map(&[("a", 1), ("b", 2)])), None);
    }

    #[test]
    fn an_inner_map_ends_first_and_values_are_not_keys() {
        // {"k": {"a": 1, "a": 2}, "k": 3}: the inner repeat is found first.
        let inner = map(&[("a", 1), ("a", 2)]);
        let doc = [&[0x82, 0xa1, b'k'][..], &inner, &[0xa1, b'k', 0x03]].concat();
        let at = first_repeated_key(&doc).unwrap();
        assert_eq!((at.first, at.repeat, at.map_end), (4, 7, 3 + inner.len()));
        // {"a": "a"}: a value equal to a key is no repeat.
        assert_eq!(first_repeated_key(&[0x81, 0xa1, b'a', 0xa1, b'a']), None);
    }
}
