//! Malformed and hostile input: the specific error, where it is, and that it is cheap.

use std::time::{Duration, Instant};

use hardpack::{
    decode, decode::InvalidUtf8, decode_prefix, encode, error::TimestampError, Decoder, ErrorKind,
    Limit, Limits, Value,
};

/// A generous bound: these inputs are refused after a few hundred bytes of work, so even a
/// slow shared machine in debug mode stays far below it.
const CHEAP: Duration = Duration::from_secs(5);

fn kind(input: &[u8]) -> ErrorKind {
    decode(input).unwrap_err().kind().clone()
}

#[test]
fn reserved_marker_is_rejected_where_it_stands() {
    let err = decode(&[0x92, 0x01, 0xc1]).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::ReservedMarker);
    assert_eq!((err.offset(), err.depth()), (2, 1));
    assert_eq!(err.to_string(), "reserved marker 0xc1 at byte 2, depth 1");
}

#[test]
fn trailing_bytes_are_rejected_but_prefix_decoding_returns_them() {
    let err = decode(&[0x01, 0x02, 0x03]).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::TrailingBytes { count: 2 });
    assert_eq!(err.offset(), 1);
    assert_eq!(
        decode_prefix(&[0x01, 0x02, 0x03]).unwrap(),
        (Value::from(1u8), 1)
    );
}

#[test]
fn invalid_utf8_is_an_error_by_default_and_can_be_replaced() {
    let input = [0x91, 0xa3, b'a', 0xff, b'b'];
    let err = decode(&input).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::InvalidUtf8 { valid_up_to: 1 });
    assert_eq!((err.offset(), err.depth()), (1, 1));
    let lossy = Decoder::default()
        .with_invalid_utf8(InvalidUtf8::Replace)
        .decode(&input)
        .unwrap();
    assert_eq!(lossy, Value::from(vec![Value::from("a\u{fffd}b")]));
    // The replaced str (5 bytes) is held to max_str_len, not just the 3 bytes it claimed.
    let err = Decoder::new(Limits::default().with(Limit::StrLen, 3))
        .with_invalid_utf8(InvalidUtf8::Replace)
        .decode(&input)
        .unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::LimitExceeded {
            limit: Limit::StrLen,
            max: 3,
            claimed: 5
        }
    );
}

#[test]
fn replaced_text_is_what_from_utf8_lossy_makes() {
    let cases: [&[u8]; 8] = [
        b"\xff",
        b"\xff\xff\xff",
        b"ok\xe2\x82",    // a truncated three-byte sequence: one U+FFFD
        b"\xf0\x9f\x98",  // a truncated four-byte sequence at the end
        b"\xed\xa0\x80x", // a surrogate: three U+FFFD
        b"\xc0\xafz",     // an overlong slash
        b"long enough to be on the heap \xfe\xfe",
        b"\xe2\x82\xac\xff\xe2\x82\xac",
    ];
    let replace = Decoder::default().with_invalid_utf8(InvalidUtf8::Replace);
    for bytes in cases {
        let mut input = vec![0xd9, u8::try_from(bytes.len()).unwrap()];
        input.extend_from_slice(bytes);
        let lossy = String::from_utf8_lossy(bytes);
        assert_eq!(
            replace.decode(&input).unwrap(),
            Value::from(&*lossy),
            "{bytes:x?}"
        );
    }
}

#[test]
fn timestamps_with_bad_length_or_nanoseconds_are_errors() {
    // ext8 of 5 bytes with type -1.
    assert_eq!(
        kind(&[0xc7, 0x05, 0xff, 0, 0, 0, 0, 0]),
        ErrorKind::InvalidTimestamp(TimestampError::Length(5))
    );
    assert_eq!(
        kind(&[0xd4, 0xff, 0]),
        ErrorKind::InvalidTimestamp(TimestampError::Length(1))
    );
    // 64-bit form: nanoseconds 1,000,000,000 in the top 30 bits.
    let data: u64 = 1_000_000_000 << 34;
    let mut ts64 = vec![0xd7, 0xff];
    ts64.extend_from_slice(&data.to_be_bytes());
    assert_eq!(
        kind(&ts64),
        ErrorKind::InvalidTimestamp(TimestampError::Nanoseconds(1_000_000_000))
    );
    // 96-bit form: nanoseconds u32::MAX.
    let mut ts96 = vec![0xc7, 0x0c, 0xff, 0xff, 0xff, 0xff, 0xff];
    ts96.extend_from_slice(&0i64.to_be_bytes());
    let err = decode(&ts96).unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::InvalidTimestamp(TimestampError::Nanoseconds(u32::MAX))
    );
    assert_eq!(
        err.to_string(),
        "invalid timestamp at byte 0, depth 0: nanoseconds 4294967295 exceed 999999999"
    );
}

/// A document touching every family, used for the truncation sweep.
fn sample_document() -> Vec<u8> {
    let mut doc = vec![0x86];
    doc.extend_from_slice(&[
        0xa4, b'n', b'a', b'm', b'e', 0xa5, b'h', b'e', b'l', b'l', b'o',
    ]);
    doc.extend_from_slice(&[0xa1, b'i', 0xd1, 0xfc, 0x18]);
    doc.extend_from_slice(&[
        0xa1, b'f', 0xcb, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18,
    ]);
    doc.extend_from_slice(&[
        0xa1, b'a', 0x93, 0xc0, 0xc3, 0x81, 0x01, 0xc4, 0x02, 0xab, 0xcd,
    ]);
    doc.extend_from_slice(&[0xa1, b't', 0xd6, 0xff, 0x65, 0x5c, 0x2b, 0x00]);
    doc.extend_from_slice(&[0xa1, b'e', 0xc7, 0x03, 0x07, 0x01, 0x02, 0x03]);
    doc
}

#[test]
fn every_truncation_is_unexpected_end_with_a_lower_bound_on_what_is_missing() {
    let doc = sample_document();
    decode(&doc).expect("the sample is valid");
    for cut in 0..doc.len() {
        let err = decode(&doc[..cut]).unwrap_err();
        let missing = doc.len() - cut;
        let needed = err
            .needed()
            .unwrap_or_else(|| panic!("cut at {cut}: {err}"));
        assert!(
            needed >= 1 && needed <= missing,
            "cut at {cut}: needed {needed}, missing {missing}"
        );
    }
    // Cut inside the last item, nothing else pending: the count is exact.
    for cut in doc.len() - 3..doc.len() {
        assert_eq!(
            decode(&doc[..cut]).unwrap_err().needed(),
            Some(doc.len() - cut)
        );
    }
}

#[test]
fn needed_counts_the_items_open_containers_still_expect() {
    // [nil, <missing>, <missing>]: two more items, at least one byte each.
    assert_eq!(decode(&[0x93, 0xc0]).unwrap_err().needed(), Some(2));
    // {"ab": <missing>} cut inside the key: one byte of key and at least one of value.
    assert_eq!(decode(&[0x81, 0xa2, b'a']).unwrap_err().needed(), Some(2));
    // str 8 claiming 200 bytes with 3 present, inside [_, _]: 197 + 1.
    assert_eq!(
        decode(&[0x92, 0xd9, 200, 1, 2, 3]).unwrap_err().needed(),
        Some(198)
    );
}

fn limited(limit: Limit, value: usize) -> Decoder {
    Decoder::new(Limits::default().with(limit, value))
}

#[test]
fn each_length_limit_names_itself_with_its_value_and_the_claim() {
    let cases: [(Limit, &[u8], usize); 6] = [
        (Limit::ArrayLen, &[0x93, 1, 2, 3], 3),
        (Limit::MapLen, &[0x82, 1, 2, 3, 4], 2),
        (Limit::StrLen, &[0xa3, b'a', b'b', b'c'], 3),
        (Limit::BinLen, &[0xc4, 0x03, 1, 2, 3], 3),
        (Limit::ExtLen, &[0xd5, 0x01, 1, 2], 2),
        (Limit::Depth, &[0x91, 0x91, 0xc0], 2),
    ];
    for (limit, input, claimed) in cases {
        let err = limited(limit, 1).decode(input).unwrap_err();
        assert_eq!(
            err.kind(),
            &ErrorKind::LimitExceeded {
                limit,
                max: 1,
                claimed
            },
            "{limit}"
        );
        assert!(err
            .to_string()
            .contains(&format!("{claimed} exceeds {} 1 at byte", limit.name())));
        assert!(
            limited(limit, claimed).decode(input).is_ok(),
            "{limit} at exactly the claim"
        );
    }
}

#[test]
fn limits_apply_inside_containers_with_offset_and_depth() {
    let err = limited(Limit::StrLen, 2)
        .decode(&[0x91, 0x91, 0xa3, b'a', b'b', b'c'])
        .unwrap_err();
    assert_eq!((err.offset(), err.depth()), (2, 2));
    assert_eq!(
        err.to_string(),
        "str length 3 exceeds max_str_len 2 at byte 2, depth 2"
    );
}

#[test]
fn alloc_budget_is_a_limit_error() {
    let doc = [0x92, 0xa5, b'h', b'e', b'l', b'l', b'o', 0x90];
    let err = limited(Limit::AllocBytes, 16).decode(&doc).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::AllocBytes));
    let (_, stats) = Decoder::default().decode_with_stats(&doc).unwrap();
    assert!(limited(Limit::AllocBytes, stats.charged_bytes)
        .decode(&doc)
        .is_ok());
    assert!(limited(Limit::AllocBytes, stats.charged_bytes - 1)
        .decode(&doc)
        .is_err());
}

fn nested(open: &[u8], depth: usize, leaf: &[u8]) -> Vec<u8> {
    let mut bytes = open.repeat(depth);
    bytes.extend_from_slice(leaf);
    bytes
}

#[test]
fn ten_million_deep_nesting_is_refused_by_max_depth_quickly() {
    const DEEP: usize = 10_000_000;
    let bombs: [(&str, Vec<u8>); 6] = [
        ("fixarray", nested(&[0x91], DEEP, &[0xc0])),
        ("fixmap values", nested(&[0x81, 0xc0], DEEP, &[0xc0])),
        ("fixmap keys", nested(&[0x81], DEEP, &[0xc0])),
        ("array32 of one", nested(&[0xdd, 0, 0, 0, 1], DEEP, &[0xc0])),
        ("map16 keys", nested(&[0xde, 0, 1], DEEP, &[])),
        ("truncated fixarray", nested(&[0x91], DEEP, &[])),
    ];
    let max_depth = Limits::default().max_depth;
    for (name, bomb) in bombs {
        let started = Instant::now();
        let err = decode(&bomb).unwrap_err();
        assert_eq!(
            err.kind(),
            &ErrorKind::LimitExceeded {
                limit: Limit::Depth,
                max: max_depth,
                claimed: max_depth + 1
            },
            "{name}"
        );
        assert_eq!(err.depth(), max_depth, "{name}");
        assert!(
            started.elapsed() < CHEAP,
            "{name} took {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn huge_length_claims_are_refused_before_reading_on() {
    let claims: [(&[u8], Limit); 5] = [
        (&[0xdd, 0xff, 0xff, 0xff, 0xff], Limit::ArrayLen),
        (&[0xdf, 0xff, 0xff, 0xff, 0xff], Limit::MapLen),
        (&[0xdb, 0xff, 0xff, 0xff, 0xff], Limit::StrLen),
        (&[0xc6, 0xff, 0xff, 0xff, 0xff], Limit::BinLen),
        (&[0xc9, 0xff, 0xff, 0xff, 0xff, 0x01], Limit::ExtLen),
    ];
    for (input, limit) in claims {
        let err = decode(input).unwrap_err();
        assert_eq!(
            err.kind(),
            &ErrorKind::LimitExceeded {
                limit,
                max: Limits::default().get(limit),
                claimed: u32::MAX as usize
            }
        );
        // With every limit lifted the claim is checked against the bytes that are there.
        let err = Decoder::new(Limits::unlimited()).decode(input).unwrap_err();
        assert!(
            err.needed().unwrap() >= u32::MAX as usize - 1,
            "{limit}: {err}"
        );
    }
}

#[test]
fn ten_million_empty_arrays_decode_within_the_budget_or_are_refused_by_it() {
    const COUNT: usize = 10_000_000;
    let mut input = vec![0xdd];
    input.extend_from_slice(&(COUNT as u32).to_be_bytes());
    input.extend(std::iter::repeat_n(0x90, COUNT));
    // Default limits: max_array_len refuses it.
    assert_eq!(decode(&input).unwrap_err().limit(), Some(Limit::ArrayLen));
    // Lengths lifted, default budget: the budget refuses it.
    let lengths_lifted = Limits::default().with(Limit::ArrayLen, usize::MAX);
    let err = Decoder::new(lengths_lifted.clone())
        .decode(&input)
        .unwrap_err();
    assert_eq!(err.limit(), Some(Limit::AllocBytes));
    // Budget big enough: it decodes, and what it charged stays within the budget.
    let budget = 1 << 30;
    let decoder = Decoder::new(lengths_lifted.with(Limit::AllocBytes, budget));
    let (value, stats) = decoder.decode_with_stats(&input).unwrap();
    assert_eq!(value.as_array().map(<[Value]>::len), Some(COUNT));
    assert!(stats.charged_bytes <= budget);
    assert_eq!(encode(&value).unwrap(), input);
}

/// The classifiers say exactly which kind an error is: a caller retrying on "incomplete"
/// must not retry a refusal, nor report a refusal as a limit that was none.
#[test]
fn an_error_is_incomplete_or_a_limit_only_when_it_is() {
    let cut = decode(&[0x92, 0x01]).unwrap_err();
    assert!(cut.is_incomplete() && !cut.is_limit(), "{cut}");
    assert_eq!((cut.needed(), cut.limit()), (Some(1), None));

    let reserved = decode(&[0xc1]).unwrap_err();
    assert!(
        !reserved.is_incomplete() && !reserved.is_limit(),
        "{reserved}"
    );
    assert_eq!((reserved.needed(), reserved.limit()), (None, None));

    let too_long = Decoder::new(Limits::default().with(Limit::StrLen, 1))
        .decode(&[0xa2, b'h', b'i'])
        .unwrap_err();
    assert!(
        !too_long.is_incomplete() && too_long.is_limit(),
        "{too_long}"
    );
    assert_eq!(
        (too_long.needed(), too_long.limit()),
        (None, Some(Limit::StrLen))
    );
}
