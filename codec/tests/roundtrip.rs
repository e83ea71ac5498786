//! Property tests: any value round-trips and encodes minimally (as rmpv, which also always
//! picks the smallest form); where rmpv and hardpack both accept an input, they agree.

use hardpack::{
    decode, decode_prefix, encode, from_rmpv, to_rmpv, Decoder, Ext, Limits, Timestamp, Value,
};
use proptest::prelude::*;

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Nil),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop_oneof![
            Just(0u64),
            Just(127),
            Just(128),
            Just(255),
            Just(256),
            Just(65535),
            Just(65536),
            Just(u32::MAX as u64),
            Just(u32::MAX as u64 + 1)
        ]
        .prop_map(Value::from),
        prop_oneof![
            Just(-32i64),
            Just(-33),
            Just(-128),
            Just(-129),
            Just(-32768),
            Just(-32769),
            Just(i32::MIN as i64),
            Just(i64::MIN)
        ]
        .prop_map(Value::from),
        any::<f32>().prop_map(Value::F32),
        any::<f64>().prop_map(Value::F64),
        ".{0,40}".prop_map(|s| Value::Str(s.into())),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(|b| Value::Bin(b.into())),
        (
            any::<i8>().prop_filter("-1 is the timestamp type", |t| *t != -1),
            proptest::collection::vec(any::<u8>(), 0..20)
        )
            .prop_map(|(t, b)| Value::Ext(Ext::new(t, &b))),
        (any::<i64>(), 0u32..1_000_000_000)
            .prop_map(|(s, n)| Value::Timestamp(Timestamp::new(s, n).unwrap())),
        (
            0i64..(1 << 34),
            prop_oneof![Just(0u32), 0u32..1_000_000_000]
        )
            .prop_map(|(s, n)| Value::Timestamp(Timestamp::new(s, n).unwrap())),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(6, 96, 20, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..20).prop_map(Value::from),
            proptest::collection::vec((inner.clone(), inner), 0..20).prop_map(Value::from),
        ]
    })
}

fn rmpv_encoding(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    rmpv::encode::write_value(&mut out, &to_rmpv(value)).unwrap();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn encode_then_decode_is_identity_and_minimal(v in value()) {
        let bytes = encode(&v).unwrap();
        let unlimited = Decoder::new(Limits::unlimited());
        prop_assert_eq!(&unlimited.decode(&bytes).unwrap(), &v);
        prop_assert_eq!(&bytes, &rmpv_encoding(&v));
        prop_assert_eq!(from_rmpv(&to_rmpv(&v)).unwrap(), v);
    }

    #[test]
    fn reencoding_a_decoded_input_is_never_longer(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Ok((v, used)) = decode_prefix(&bytes) {
            let again = encode(&v).unwrap();
            prop_assert!(again.len() <= used);
            prop_assert_eq!(decode(&again).unwrap(), v);
        }
    }

    #[test]
    fn agrees_with_rmpv_where_both_accept(v in value(), cut in any::<prop::sample::Index>(), flip in any::<(prop::sample::Index, u8)>()) {
        let mut bytes = encode(&v).unwrap();
        let (at, byte) = flip;
        let at = at.index(bytes.len());
        bytes[at] = byte;
        let bytes = &bytes[..cut.index(bytes.len() + 1)];
        let ours = decode_prefix(bytes);
        let theirs = rmpv::decode::read_value(&mut &bytes[..]);
        if let (Ok((ours, _)), Ok(theirs)) = (ours, theirs) {
            // rmpv keeps invalid UTF-8 and any ext -1 payload; hardpack refuses both, and
            // refused input never reaches this comparison.
            prop_assert_eq!(from_rmpv(&theirs).unwrap(), ours);
        }
    }
}
