//! `validate` and `skip` give the owned decoder's verdict (error, offset, depth, bytes consumed
//! and charged) without building anything, on the attacks and on random bytes.

use hardpack::{decode, skip, validate, Decoder, ErrorKind, InvalidUtf8, Limit, Limits};
use proptest::prelude::*;

mod common;
use common::{attacks, documents};

/// The decoder and the validator agree on `input`, prefix and whole, under both policies.
fn agree(limits: &Limits, input: &[u8]) {
    for policy in [InvalidUtf8::Reject, InvalidUtf8::Replace] {
        let decoder = Decoder::new(limits.clone()).with_invalid_utf8(policy);
        let decoded = decoder.decode_with_stats(input).map(|(_, stats)| stats);
        let skipped = decoder.skip(input);
        match (&decoded, &skipped) {
            (Err(e), Ok(_)) if matches!(e.kind(), ErrorKind::OutOfMemory { .. }) => {}
            _ => assert_eq!(decoded, skipped, "{policy:?} on {input:02x?}"),
        }
        let whole = decoder.decode(input).map(drop);
        let validated = decoder.validate(input).map(drop);
        assert_eq!(whole, validated, "{policy:?}, whole input {input:02x?}");
    }
    assert_eq!(
        validate(input, limits),
        Decoder::new(limits.clone())
            .decode(input)
            .map(|_| input.len())
    );
    assert_eq!(
        skip(input, limits),
        Decoder::new(limits.clone())
            .decode_prefix(input)
            .map(|(_, used)| used)
    );
}

#[test]
fn attacks_get_the_decoders_verdict() {
    let cases = attacks();
    for input in &cases {
        agree(&Limits::default(), input);
        agree(&Limits::unlimited(), input);
        agree(&Limits::default().with(Limit::AllocBytes, 1000), input);
        agree(&Limits::default().with(Limit::Depth, 200), input);
    }
}

#[test]
fn a_bomb_is_refused_where_the_decoder_refuses_it() {
    let mut bomb = vec![0x91u8; 10_000_000];
    bomb.push(0xc0);
    let err = validate(&bomb, &Limits::default()).unwrap_err();
    assert_eq!(err, decode(&bomb).unwrap_err());
    assert_eq!(
        err.to_string(),
        "nesting depth 129 exceeds max_depth 128 at byte 128, depth 128"
    );
}

#[test]
fn validate_reports_what_the_decode_would_charge() {
    let input = [0x92, 0x90, 0xd9, 30, b'x'];
    let mut input = input.to_vec();
    input.extend([b'x'; 29]);
    let decoder = Decoder::default();
    let (_, stats) = decoder.decode_with_stats(&input).unwrap();
    assert_eq!(decoder.validate(&input), Ok(stats));
    assert!(stats.charged_bytes > 30, "{stats:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn validate_agrees_with_decode_on_any_input(
        input in prop_oneof![documents(), prop::collection::vec(any::<u8>(), 0..64)],
        depth in 0usize..6,
        budget in prop_oneof![Just(usize::MAX), 0usize..2000],
    ) {
        let limits = Limits::default()
            .with(Limit::Depth, depth)
            .with(Limit::AllocBytes, budget)
            .with(Limit::ArrayLen, 12)
            .with(Limit::StrLen, 30);
        agree(&limits, &input);
        agree(&Limits::default(), &input);
    }
}
