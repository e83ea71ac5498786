//! `validate` and `skip` give the owned decoder's verdict (error, offset, depth, bytes consumed
//! and charged) without building anything, on random documents and on bombs (the shared
//! attacks run through every surface in `surfaces.rs`).

use hardpack::{
    decode, decode::skip, decode::InvalidUtf8, validate, Decoder, ErrorKind, Limit, Limits,
};
use proptest::prelude::*;

mod common;
use common::documents;

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
    // The free functions are the default decoder's methods.
    if limits == &Limits::default() {
        assert_eq!(validate(input), Decoder::default().validate(input));
        assert_eq!(skip(input), Decoder::default().skip(input));
    }
}

#[test]
fn a_bomb_is_refused_where_the_decoder_refuses_it() {
    let mut bomb = vec![0x91u8; 10_000_000];
    bomb.push(0xc0);
    let err = validate(&bomb).unwrap_err();
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

/// Short strs and scalars are read from a 32-byte window when that much input is left: every
/// fixstr length, with a non-ASCII byte (valid and invalid UTF-8) at each position, at the
/// end of the input and followed by room, under limits that refuse some of them.
#[test]
fn short_strs_get_the_decoders_verdict_in_and_out_of_the_window() {
    for text_len in 0u8..=31 {
        for odd_at in (0..usize::from(text_len)).map(Some).chain([None]) {
            for odd in [&[0xc3, 0xa9][..], &[0xff], &[0x80]] {
                let mut text = vec![b'a'; usize::from(text_len)];
                if let Some(at) = odd_at {
                    let end = (at + odd.len()).min(text.len());
                    text[at..end].copy_from_slice(&odd[..end - at]);
                }
                let mut str_item = vec![0xa0 | text_len];
                str_item.extend(&text);
                // Alone; last in an array with room after it; first, with room; cut short.
                let mut in_array = vec![0x92, 0x01];
                in_array.extend(&str_item);
                let mut before_room = vec![0x92];
                before_room.extend(&str_item);
                before_room.extend([0xc4, 32]);
                before_room.extend([0u8; 32]);
                let mut cut = before_room.clone();
                cut.truncate(1 + str_item.len().saturating_sub(1).max(1));
                for input in [&str_item, &in_array, &before_room, &cut] {
                    for max_str_len in [0, 5, 23, 24, 31, 1 << 20] {
                        agree(&Limits::default().with(Limit::StrLen, max_str_len), input);
                    }
                    agree(&Limits::default().with(Limit::AllocBytes, 40), input);
                }
            }
        }
    }
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
