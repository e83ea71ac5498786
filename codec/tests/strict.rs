//! Strict mode refuses exactly the documents that are not canonical, have a non-str map key
//! or repeat a key in one map (what an oracle finds in the lenient decode), on every surface,
//! and its own cost is charged.

use hardpack::{decode, encode, Decoder, Error, ErrorKind, Limit, Limits, Value};
use proptest::prelude::*;

mod common;
use common::{documents, scalar, value};

/// What makes a leniently decoded document unacceptable to strict mode.
#[derive(Debug, PartialEq)]
enum Violation {
    NonCanonical,
    NonStrKey,
    DuplicateKey,
}

/// The violations of a document that decoded leniently to `value` from `bytes`.
fn violations(value: &Value, bytes: &[u8]) -> Vec<Violation> {
    let mut found = Vec::new();
    if encode(value).unwrap() != bytes {
        found.push(Violation::NonCanonical);
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
                        None => found.push(Violation::NonStrKey),
                    }
                    stack.push(k);
                    stack.push(v);
                }
                keys.sort_unstable();
                if keys.windows(2).any(|w| w[0] == w[1]) {
                    found.push(Violation::DuplicateKey);
                }
            }
            _ => {}
        }
    }
    found
}

fn is_budget(e: &Error) -> bool {
    e.limit() == Some(Limit::AllocBytes) || matches!(e.kind(), ErrorKind::OutOfMemory { .. })
}

/// Strict decode of `input` against the oracle, and every strict surface against the strict
/// decode.
fn check(limits: &Limits, input: &[u8]) {
    let lenient = Decoder::new(limits.clone());
    let strict = Decoder::new(limits.clone()).strict();
    let verdict = strict.decode_prefix(input);
    match (lenient.decode_prefix(input), &verdict) {
        (Ok((value, used)), Ok((strict_value, strict_used))) => {
            assert_eq!(used, *strict_used);
            assert_eq!(value, *strict_value);
            assert_eq!(violations(&value, &input[..used]), [], "{input:02x?}");
            assert_eq!(encode(strict_value).unwrap(), &input[..used]);
        }
        (Ok((value, used)), Err(e)) => {
            let found = violations(&value, &input[..used]);
            let expected = match e.kind() {
                ErrorKind::NonCanonical { .. } => Violation::NonCanonical,
                ErrorKind::NonStrKey => Violation::NonStrKey,
                ErrorKind::DuplicateKey { .. } => Violation::DuplicateKey,
                _ if is_budget(e) => return,
                _ => panic!("strict refused {input:02x?} for another reason: {e}"),
            };
            assert!(
                found.contains(&expected),
                "{e} but the oracle found {found:?} in {input:02x?}"
            );
        }
        (Err(e), Ok(_)) => assert!(is_budget(&e), "strict accepted what lenient refuses: {e}"),
        (Err(lenient_error), Err(e)) => {
            let strict_kind = matches!(
                e.kind(),
                ErrorKind::NonCanonical { .. }
                    | ErrorKind::NonStrKey
                    | ErrorKind::DuplicateKey { .. }
            );
            if !strict_kind && !is_budget(e) && !is_budget(&lenient_error) {
                assert_eq!(*e, lenient_error, "{input:02x?}");
            }
        }
    }
    // Every surface gives the strict decode's verdict.
    let stats = strict.decode_with_stats(input).map(|(_, s)| s);
    match (&stats, strict.skip(input)) {
        (Err(e), Ok(_)) if matches!(e.kind(), ErrorKind::OutOfMemory { .. }) => {}
        (a, b) => assert_eq!(*a, b, "skip, strict, {input:02x?}"),
    }
    let borrowed = strict.decode_ref_prefix(input).map(|(_, used)| used);
    match (verdict.map(|(_, used)| used), borrowed) {
        (Err(a), Err(b)) if is_budget(&a) || is_budget(&b) => {}
        (Err(a), Ok(_)) | (Ok(_), Err(a)) if is_budget(&a) => {}
        (a, b) => assert_eq!(a, b, "decode_ref, strict, {input:02x?}"),
    }
}

#[test]
fn non_canonical_forms_are_refused() {
    let cases: &[&[u8]] = &[
        &[0xcc, 0x05],                         // uint 8 holding a fixint
        &[0xcd, 0x00, 0xff],                   // uint 16 holding a uint 8
        &[0xd0, 0x05],                         // int 8 holding a non-negative value
        &[0xd3, 0, 0, 1, 0, 0, 0, 0, 0],       // int 64 holding 2^40 (a uint 64 is as long)
        &[0xd0, 0xff],                         // int 8 holding -1, a negative fixint
        &[0xd9, 0x01, b'a'],                   // str 8 of one byte
        &[0xc5, 0x00, 0x01, 0x00],             // bin 16 of one byte
        &[0xdc, 0x00, 0x01, 0xc0],             // array 16 of one element
        &[0xde, 0x00, 0x00],                   // map 16, empty
        &[0xc7, 0x01, 0x05, 0x00],             // ext 8 of one byte (fixext 1 exists)
        &[0xd7, 0xff, 0, 0, 0, 0, 0, 0, 0, 1], // timestamp 64 of a value that fits 32
        &[0x91, 0xcc, 0x01],                   // nested
    ];
    let strict = Decoder::default().strict();
    for input in cases {
        assert!(decode(input).is_ok(), "{input:02x?}");
        let err = strict.decode(input).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::NonCanonical { .. }),
            "{input:02x?}"
        );
        assert_eq!(err.offset(), usize::from(input[0] == 0x91), "{input:02x?}");
        check(&Limits::default(), input);
    }
}

#[test]
fn a_non_canonical_error_names_both_forms() {
    let strict = Decoder::default().strict();
    let err = strict.decode(&[0x91, 0xcd, 0x00, 0x01]).unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::NonCanonical {
            marker: 0xcd,
            smallest: 0x01
        }
    );
    assert_eq!(
        err.to_string(),
        "strict: the item at byte 1, depth 1 is a uint 16 (0xcd); its smallest form is a positive fixint (0x01)"
    );
    // A timestamp of 1 second written in 64 bits.
    let err = strict
        .decode(&[0xd7, 0xff, 0, 0, 0, 0, 0, 0, 0, 1])
        .unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::NonCanonical {
            marker: 0xd7,
            smallest: 0xd6
        }
    );
    assert!(err
        .to_string()
        .contains("is a fixext 8 (0xd7); its smallest form is a fixext 4 (0xd6)"));
}

#[test]
fn keys_must_be_strs_and_unique() {
    let strict = Decoder::default().strict();
    let err = strict.decode(&[0x81, 0x01, 0x02]).unwrap_err();
    assert_eq!(
        (err.kind(), err.offset(), err.depth()),
        (&ErrorKind::NonStrKey, 1, 1)
    );
    // A str *value* is no key: {"k": 1} inside an array, then [1] as a value.
    assert!(strict.decode(&[0x91, 0x81, 0xa1, b'k', 0x91, 0x01]).is_ok());
    // {"k": {"k": 1, "j": 2}, "j": 3}: the same key in two maps is fine.
    let nested = [
        0x82, 0xa1, b'k', 0x82, 0xa1, b'k', 1, 0xa1, b'j', 2, 0xa1, b'j', 3,
    ];
    assert!(strict.decode(&nested).is_ok());
    // {"b": 1, "a": 2, "b": 3, "a": 4}: the first repeat in wire order is the second "b".
    let input = [
        0x84, 0xa1, b'b', 1, 0xa1, b'a', 2, 0xa1, b'b', 3, 0xa1, b'a', 4,
    ];
    let err = strict.decode(&input).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::DuplicateKey { first_offset: 1 });
    assert_eq!(err.offset(), 7);
    assert_eq!(
        err.to_string(),
        "strict: the map key at byte 7, depth 1 repeats the key at byte 1"
    );
    // Keys that agree in their first eight bytes, or differ only in trailing NULs, are
    // different keys (strict mode sorts keys by an 8-byte prefix first).
    for keys in [
        ["timestamp_a", "timestamp_b"],
        ["k", "k\0"],
        ["", "\0\0\0\0\0\0\0\0"],
    ] {
        let map = Value::from_iter(keys.map(|k| (Value::from(k), Value::Nil)));
        assert!(strict.decode(&encode(&map).unwrap()).is_ok(), "{keys:?}");
    }
}

#[test]
fn a_map_of_262144_copies_of_one_key_is_refused_at_the_second() {
    let mut input = vec![0xdf, 0x00, 0x04, 0x00, 0x00];
    for _ in 0..262_144 {
        input.extend([0xa1, b'k', 0xc0]);
    }
    let lenient = decode(&input).unwrap();
    assert_eq!(lenient["k"], Value::Nil);
    let strict = Decoder::default().strict();
    let err = strict.decode(&input).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::DuplicateKey { first_offset: 5 });
    assert_eq!(err.offset(), 8);
    // What strict mode kept is charged: the keys (24 bytes each, in a vector grown by
    // doubling), on top of what the owned decode charges.
    let lenient_charge = Decoder::default()
        .decode_with_stats(&input)
        .unwrap()
        .1
        .charged_bytes;
    let strict_charge = strict.skip(&input).map(|s| s.charged_bytes);
    assert!(strict_charge.is_err());
    let validate_charge = Decoder::default().skip(&input).unwrap().charged_bytes;
    assert_eq!(validate_charge, lenient_charge);
    // With too small a budget for its keys, strict mode is refused by the budget instead.
    let tight = Decoder::new(Limits::default().with(Limit::AllocBytes, lenient_charge)).strict();
    assert_eq!(
        tight.decode(&input).unwrap_err().limit(),
        Some(Limit::AllocBytes)
    );
}

#[test]
fn strict_bookkeeping_is_charged_the_same_on_the_owned_and_the_borrowed_decode() {
    let doc =
        Value::from_iter((0..1000).map(|i| (Value::from(format!("key {i}")), Value::from(i))));
    let input = encode(&doc).unwrap();
    let lenient = Decoder::default();
    let strict = Decoder::default().strict();
    let charged = |decoder: &Decoder| {
        let owned = decoder.decode_with_stats(&input).unwrap().1.charged_bytes;
        let borrowed = decoder
            .decode_ref_with_stats(&input)
            .unwrap()
            .1
            .charged_bytes;
        (owned, borrowed)
    };
    let (owned, borrowed) = charged(&lenient);
    let (strict_owned, strict_borrowed) = charged(&strict);
    // The keys strict mode keeps to find a repeat: at least 1,000 of them, charged on top.
    assert!(strict_owned >= owned + 1000 * 16, "{strict_owned} {owned}");
    assert_eq!(strict_borrowed - borrowed, strict_owned - owned);
    // And a budget with no room for them refuses the borrowed decode too.
    let tight = Decoder::new(Limits::default().with(Limit::AllocBytes, borrowed)).strict();
    assert_eq!(
        tight.decode_ref(&input).unwrap_err().limit(),
        Some(Limit::AllocBytes)
    );
    assert!(
        Decoder::new(Limits::default().with(Limit::AllocBytes, borrowed))
            .decode_ref(&input)
            .is_ok()
    );
}

#[test]
fn canonical_documents_pass() {
    let strict = Decoder::default().strict();
    let doc = Value::from_iter([
        (
            "ts",
            Value::from(hardpack::timestamp::Timestamp::new(1, 0).unwrap()),
        ),
        ("n", Value::from(-1_000_000)),
        (
            "list",
            Value::from_iter([Value::from(1u64 << 40), Value::F32(1.5), Value::F64(1.5)]),
        ),
        ("nested", Value::from_iter([("a", Value::Nil)])),
    ]);
    let bytes = encode(&doc).unwrap();
    assert_eq!(strict.decode(&bytes).unwrap(), doc);
    assert_eq!(strict.validate(&bytes).unwrap().consumed, bytes.len());
    assert!(strict.decode_ref(&bytes).unwrap() == doc);
}

/// Maps keyed by a few short strs (so keys repeat often), and any other value.
fn keyed() -> impl Strategy<Value = Value> {
    let key = prop_oneof![Just("a".to_string()), Just("b".to_string()), ".{0,3}"]
        .prop_map(|k: String| Value::from(k));
    scalar().prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::from),
            proptest::collection::vec((key.clone(), inner.clone()), 0..6).prop_map(Value::from),
            proptest::collection::vec((inner.clone(), inner), 0..3).prop_map(Value::from),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn strict_refuses_exactly_what_the_oracle_finds(
        input in prop_oneof![
            documents(),
            prop::collection::vec(any::<u8>(), 0..64),
            keyed().prop_map(|v| encode(&v).unwrap()),
            value().prop_map(|v| encode(&v).unwrap()),
        ],
        budget in prop_oneof![Just(usize::MAX), 0usize..4000],
    ) {
        check(&Limits::default(), &input);
        check(&Limits::default().with(Limit::AllocBytes, budget).with(Limit::Depth, 4), &input);
    }
}
