//! Typed decoding and encoding are rmp-serde's wire format: byte for byte what rmp-serde
//! writes, for every kind of the serde data model, read back both ways; every scalar encoding
//! read into every primitive as rmp-serde reads it; the shapes a type can refuse, refused at
//! their place.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};

mod common;
use common::{value, Tree};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct UnitStruct;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Newtype(u16);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct TupleStruct(i8, String);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Variant {
    Unit,
    Newtype(u32),
    Tuple(i64, bool),
    Struct { x: f64, y: Option<String> },
}

/// Every kind of the serde data model, once.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Wide {
    b: bool,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    u8_: u8,
    u16_: u16,
    u32_: u32,
    u64_: u64,
    f32_: f32,
    f64_: f64,
    c: char,
    s: String,
    #[serde(with = "serde_bytes")]
    bytes: Vec<u8>,
    opt: Option<u32>,
    unit: (),
    unit_struct: UnitStruct,
    newtype: Newtype,
    tuple: (u8, i32),
    tuple_struct: TupleStruct,
    seq: Vec<i32>,
    map: BTreeMap<String, i64>,
    variants: Vec<Variant>,
}

fn variant() -> impl Strategy<Value = Variant> {
    prop_oneof![
        Just(Variant::Unit),
        any::<u32>().prop_map(Variant::Newtype),
        (any::<i64>(), any::<bool>()).prop_map(|(a, b)| Variant::Tuple(a, b)),
        (any::<f64>(), proptest::option::of(".{0,8}")).prop_map(|(x, y)| Variant::Struct { x, y }),
    ]
}

prop_compose! {
    fn wide()(
        (b, i8_, i16_, i32_, i64_) in (any::<bool>(), any::<i8>(), any::<i16>(), any::<i32>(), any::<i64>()),
        (u8_, u16_, u32_, u64_) in (any::<u8>(), any::<u16>(), any::<u32>(), any::<u64>()),
        (f32_, f64_, c, s) in (any::<f32>(), any::<f64>(), any::<char>(), ".{0,40}"),
        (bytes, opt) in (proptest::collection::vec(any::<u8>(), 0..300), proptest::option::of(any::<u32>())),
        (newtype, tuple, tuple_struct) in (any::<u16>(), any::<(u8, i32)>(), (any::<i8>(), ".{0,4}")),
        seq in proptest::collection::vec(any::<i32>(), 0..40),
        map in proptest::collection::btree_map(".{0,6}", any::<i64>(), 0..20),
        variants in proptest::collection::vec(variant(), 0..6),
    ) -> Wide {
        Wide {
            b, i8_, i16_, i32_, i64_, u8_, u16_, u32_, u64_, f32_, f64_, c, s, bytes, opt,
            unit: (),
            unit_struct: UnitStruct,
            newtype: Newtype(newtype),
            tuple,
            tuple_struct: TupleStruct(tuple_struct.0, tuple_struct.1),
            seq,
            map,
            variants,
        }
    }
}

/// A sequence whose length serde is not told up front.
struct Unsized(Vec<u32>);

impl Serialize for Unsized {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().filter(|_| true))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn hardpack_writes_what_rmp_serde_writes(w in wide()) {
        let ours = hardpack::to_vec(&w).unwrap();
        prop_assert_eq!(&ours, &rmp_serde::to_vec(&w).unwrap());
        prop_assert_eq!(hardpack::ser::to_vec_named(&w).unwrap(), rmp_serde::to_vec_named(&w).unwrap());
        // And rmp-serde reads it back (compared as bytes: a NaN is not equal to itself).
        let back: Wide = rmp_serde::from_slice(&ours).unwrap();
        prop_assert_eq!(rmp_serde::to_vec(&back).unwrap(), ours);
        // What hardpack writes is canonical (and these maps have unique str keys): strict mode
        // accepts it.
        let strict = hardpack::Decoder::default().strict();
        let named = hardpack::ser::to_vec_named(&w).unwrap();
        prop_assert!(strict.decode(&named).is_ok(), "{:?}", strict.decode(&named));
    }

    #[test]
    fn hardpack_reads_what_rmp_serde_writes(w in wide()) {
        for bytes in [rmp_serde::to_vec(&w).unwrap(), rmp_serde::to_vec_named(&w).unwrap()] {
            let ours: Wide = hardpack::from_slice(&bytes).unwrap();
            // Compared as encodings: a NaN is not equal to itself.
            prop_assert_eq!(rmp_serde::to_vec(&ours).unwrap(), rmp_serde::to_vec(&w).unwrap());
        }
    }

    #[test]
    fn any_input_is_an_error_or_what_rmp_serde_reads(bytes in prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        wide().prop_map(|w| rmp_serde::to_vec(&w).unwrap()),
        wide().prop_map(|w| rmp_serde::to_vec_named(&w).unwrap()),
    ], cut in any::<prop::sample::Index>()) {
        let bytes = &bytes[..cut.index(bytes.len() + 1)];
        let ours = hardpack::from_slice::<Wide>(bytes);
        if let Ok(ours) = &ours {
            let theirs: Wide = rmp_serde::from_slice(bytes).unwrap();
            prop_assert_eq!(rmp_serde::to_vec(ours).unwrap(), rmp_serde::to_vec(&theirs).unwrap());
        }
    }

    #[test]
    fn a_value_serializes_as_it_encodes(v in value()) {
        prop_assert_eq!(hardpack::to_vec(&v).unwrap(), hardpack::encode(&v).unwrap());
        let bytes = hardpack::encode(&v).unwrap();
        let doc = hardpack::decode_ref(&bytes).unwrap();
        prop_assert_eq!(hardpack::to_vec(&doc).unwrap(), bytes);
    }

    #[test]
    fn a_timestamp_serializes_as_it_encodes(seconds in any::<i64>(), nanoseconds in 0u32..1_000_000_000) {
        let ts = hardpack::timestamp::Timestamp::new(seconds, nanoseconds).unwrap();
        prop_assert_eq!(hardpack::to_vec(&ts).unwrap(), hardpack::encode(&hardpack::Value::from(ts)).unwrap());
    }

    #[test]
    fn unknown_lengths_get_their_smallest_header(items in proptest::collection::vec(any::<u32>(), 0..70_000)) {
        let ours = hardpack::to_vec(&Unsized(items.clone())).unwrap();
        prop_assert_eq!(&ours, &hardpack::to_vec(&items).unwrap());
        prop_assert_eq!(ours, rmp_serde::to_vec(&Unsized(items)).unwrap());
    }
}

#[test]
fn an_ext_goes_through_the_ext_newtype() {
    /// rmp-serde's convention: a newtype struct of this name around an `(i8, bytes)` tuple.
    #[derive(Serialize)]
    #[serde(rename = "_ExtStruct")]
    struct Ext<'a>((i8, &'a serde_bytes::Bytes));
    assert_eq!(hardpack::ser::EXT_STRUCT_NAME, "_ExtStruct");
    let ext = Ext((5, serde_bytes::Bytes::new(&[1, 2, 3, 4])));
    assert_eq!(hardpack::to_vec(&ext).unwrap(), [0xd6, 0x05, 1, 2, 3, 4]);
    assert_eq!(
        hardpack::to_vec(&ext).unwrap(),
        rmp_serde::to_vec(&ext).unwrap()
    );
    let ts = hardpack::timestamp::Timestamp::new(1, 0).unwrap();
    assert_eq!(hardpack::to_vec(&ts).unwrap(), [0xd6, 0xff, 0, 0, 0, 1]);
    // Anything else inside the ext newtype is refused.
    #[derive(Serialize)]
    #[serde(rename = "_ExtStruct")]
    struct NotExt(u8);
    let err = hardpack::to_vec(&NotExt(1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "an ext must be serialized as an (i8, bytes) tuple"
    );
}

#[test]
fn a_timestamp_reads_back_from_ext_minus_1_and_nothing_else() {
    use hardpack::timestamp::Timestamp;
    let ts = Timestamp::new(1, 0).unwrap();
    assert_eq!(
        hardpack::from_slice::<Timestamp>(&[0xd6, 0xff, 0, 0, 0, 1]).unwrap(),
        ts
    );
    let late = Timestamp::new(-1, 999_999_999).unwrap();
    let bytes = hardpack::to_vec(&late).unwrap();
    assert_eq!(hardpack::from_slice::<Timestamp>(&bytes).unwrap(), late);
    for (bytes, message) in [
        (
            &[0xd6, 0x05, 0, 0, 0, 1][..],
            "expected a timestamp (ext -1), found ext 5",
        ),
        (
            &[0x01],
            "invalid type: integer `1`, expected a timestamp (ext -1)",
        ),
    ] {
        let err = hardpack::from_slice::<Timestamp>(bytes).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{message} at byte 0, depth 0"),
            "{bytes:02x?}"
        );
    }
    // A bad timestamp payload is refused by the reader, before the type sees it.
    let err = hardpack::from_slice::<Timestamp>(&[0xd4, 0xff, 0x00]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid timestamp at byte 0, depth 0: payload of 1 bytes (must be 4, 8 or 12)"
    );
}

#[test]
fn a_value_reads_from_other_deserializers_what_it_can_hold() {
    use serde::de::value::{EnumAccessDeserializer, Error as ValueError, U32Deserializer};
    use serde::de::IntoDeserializer;
    use serde::forward_to_deserialize_any;
    /// A format that says "Some" around a u32.
    struct SomeU32(u32);
    impl<'de> serde::Deserializer<'de> for SomeU32 {
        type Error = ValueError;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, ValueError> {
            let inner: U32Deserializer<ValueError> = self.0.into_deserializer();
            v.visit_some(inner)
        }
        forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
            identifier ignored_any
        }
    }
    assert_eq!(
        hardpack::Value::deserialize(SomeU32(7)).unwrap(),
        hardpack::Value::from(7u32)
    );
    // An enum is nothing a MessagePack value holds.
    let variant: serde::de::value::StrDeserializer<ValueError> = "A".into_deserializer();
    let err = hardpack::Value::deserialize(EnumAccessDeserializer::new(variant)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: enum, expected any MessagePack value"
    );
    let variant: serde::de::value::StrDeserializer<ValueError> = "A".into_deserializer();
    let err = hardpack::ValueRef::deserialize(EnumAccessDeserializer::new(variant)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: enum, expected any MessagePack value, its strs and bytes borrowed from the input"
    );
}

#[test]
fn a_serialize_error_is_reported() {
    struct Refuses;
    impl Serialize for Refuses {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no, thank you"))
        }
    }
    let err = hardpack::to_vec(&vec![Refuses]).unwrap_err();
    assert_eq!(err.kind(), &hardpack::error::EncodeErrorKind::Custom);
    assert_eq!(err.to_string(), "no, thank you");
}

#[test]
fn types_with_a_compact_form_take_it_both_ways_as_rmp_serde_does() {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
    // Addresses serialize as text for a human-readable format and as bytes otherwise;
    // MessagePack is not one (rmp-serde's default, on both sides).
    let v4 = Ipv4Addr::new(192, 0, 2, 1);
    let ours = hardpack::to_vec(&v4).unwrap();
    assert_eq!(ours, [0x94, 0xcc, 192, 0x00, 0x02, 0x01]);
    assert_eq!(ours, rmp_serde::to_vec(&v4).unwrap());
    assert_eq!(hardpack::from_slice::<Ipv4Addr>(&ours).unwrap(), v4);
    let addrs = [
        SocketAddr::new(IpAddr::V4(v4), 8080),
        SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), 443),
    ];
    let ours = hardpack::to_vec(&addrs).unwrap();
    assert_eq!(ours, rmp_serde::to_vec(&addrs).unwrap());
    assert_eq!(
        hardpack::from_slice::<[SocketAddr; 2]>(&ours).unwrap(),
        addrs
    );
    assert_eq!(
        rmp_serde::from_slice::<[SocketAddr; 2]>(&ours).unwrap(),
        addrs
    );
}

#[test]
fn a_unit_variant_written_as_a_map_reads_its_nil() {
    // {"Unit": nil}: the map form other writers use for every variant.
    let bytes = [0x81, 0xa4, b'U', b'n', b'i', b't', 0xc0];
    assert_eq!(
        hardpack::from_slice::<Variant>(&bytes).unwrap(),
        Variant::Unit
    );
    assert_eq!(
        rmp_serde::from_slice::<Variant>(&bytes).unwrap(),
        Variant::Unit
    );
    // {"Unit": 1}: content a unit variant has none of.
    let bytes = [0x81, 0xa4, b'U', b'n', b'i', b't', 0x01];
    let err = hardpack::from_slice::<Variant>(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: integer `1`, expected unit at byte 6, depth 1"
    );
}

#[test]
fn a_unit_struct_is_an_empty_array_or_nil_and_nothing_else() {
    assert_eq!(
        hardpack::from_slice::<UnitStruct>(&[0x90]).unwrap(),
        UnitStruct
    );
    assert_eq!(
        hardpack::from_slice::<UnitStruct>(&[0xc0]).unwrap(),
        UnitStruct
    );
    // Items whose length or value reads as 0 are not an empty array.
    for (bytes, message) in [
        (
            &[0x00][..],
            "invalid type: integer `0`, expected unit struct UnitStruct",
        ),
        (
            &[0xc2],
            "invalid type: boolean `false`, expected unit struct UnitStruct",
        ),
        (
            &[0xa0],
            r#"invalid type: string "", expected unit struct UnitStruct"#,
        ),
        (
            &[0x80],
            "invalid type: map, expected unit struct UnitStruct",
        ),
        (
            &[0x91, 0x00],
            "invalid type: sequence, expected unit struct UnitStruct",
        ),
    ] {
        let err = hardpack::from_slice::<UnitStruct>(bytes).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{message} at byte 0, depth 0"),
            "{bytes:02x?}"
        );
    }
}

#[test]
fn the_wrong_shape_is_an_error_with_its_place() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Point {
        x: i32,
        y: i32,
    }
    let cases: &[(Vec<u8>, &str)] = &[
        (
            rmp_serde::to_vec(&("1", 2)).unwrap(),
            r#"invalid type: string "1", expected i32 at byte 1, depth 1"#,
        ),
        (
            rmp_serde::to_vec(&(1,)).unwrap(),
            "invalid length 1, expected struct Point with 2 elements at byte 0, depth 0",
        ),
        (
            rmp_serde::to_vec(&(1, 2, 3)).unwrap(),
            "the array has 1 elements more than the type takes at byte 0, depth 0",
        ),
        (
            rmp_serde::to_vec_named(&std::collections::BTreeMap::from([("x", 1)])).unwrap(),
            "missing field `y` at byte 0, depth 0",
        ),
        (
            vec![0xa3, b'Z', b'i', b'p'],
            "unknown variant `Zip`, expected one of `Leaf`, `Boxed`, `List`, `Map` at byte 0, depth 0",
        ),
    ];
    for (bytes, message) in cases {
        let err = if message.contains("variant") {
            hardpack::from_slice::<Tree>(bytes).map(drop).unwrap_err()
        } else {
            hardpack::from_slice::<Point>(bytes).map(drop).unwrap_err()
        };
        assert_eq!(err.to_string(), *message, "{bytes:02x?}");
    }
    // What an enum is not: each kind of item, named.
    let not_enums: &[(&[u8], &str)] = &[
        (&[0xc0], "nil"),
        (&[0xc3], "a bool"),
        (&[0x07], "an integer"),
        (&[0xd0, 0x80], "an integer"),
        (&[0xca, 0, 0, 0, 0], "a float"),
        (&[0xcb, 0, 0, 0, 0, 0, 0, 0, 0], "a float"),
        (&[0xc4, 0x01, 0x00], "a bin"),
        (&[0xd4, 0x05, 0x00], "an ext"),
        (&[0xd6, 0xff, 0, 0, 0, 0], "a timestamp"),
        (&[0x92, 0x01, 0x02], "an array of 2"),
        (&[0x82, 0xa1, b'a', 0x01, 0xa1, b'b', 0x02], "a map of 2"),
    ];
    for (bytes, found) in not_enums {
        let err = hardpack::from_slice::<Tree>(bytes).map(drop).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "expected an enum (a str, or a map of one entry), found {found} at byte 0, depth 0"
            ),
            "{bytes:02x?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_value_reads_back_through_serde_as_it_decodes(v in value()) {
        let bytes = hardpack::encode(&v).unwrap();
        let typed: hardpack::Value = hardpack::from_slice(&bytes).unwrap();
        prop_assert_eq!(&typed, &hardpack::decode(&bytes).unwrap());
        // And from rmp-serde's deserializer too.
        let theirs: hardpack::Value = rmp_serde::from_slice(&bytes).unwrap();
        prop_assert_eq!(hardpack::encode(&theirs).unwrap(), bytes);
    }
}

#[test]
fn a_strict_decoder_refuses_through_serde_what_it_refuses_as_a_value() {
    use hardpack::{Decoder, ErrorKind};
    use std::collections::BTreeMap;
    let strict = Decoder::default().strict();
    let lenient = Decoder::default();

    // {"a": 1, "a": 2}: serde's map takes the last, a first-wins reader the first.
    let duplicate = [0x82, 0xa1, b'a', 0x01, 0xa1, b'a', 0x02];
    assert_eq!(
        lenient
            .from_slice::<BTreeMap<String, u8>>(&duplicate)
            .unwrap()["a"],
        2
    );
    let err = strict
        .from_slice::<BTreeMap<String, u8>>(&duplicate)
        .unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::DuplicateKey { first_offset: 1 });
    assert_eq!((err.offset(), err.depth()), (4, 1));

    // The same two keys as the fields of a struct read from a map: strict mode finds a
    // duplicate when its map ends, and serde's derive, which refuses one itself, first.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Named {
        a: u8,
    }
    let err = strict.from_slice::<Named>(&duplicate).unwrap_err();
    assert_eq!(err.to_string(), "duplicate field `a` at byte 0, depth 0");

    // 1 as a uint 16, inside a struct's array.
    let wide_one = [0x91, 0xcd, 0x00, 0x01];
    assert_eq!(lenient.from_slice::<(u16,)>(&wide_one).unwrap(), (1,));
    let err = strict.from_slice::<(u16,)>(&wide_one).unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::NonCanonical {
            marker: 0xcd,
            smallest: 0x01
        }
    );
    assert_eq!((err.offset(), err.depth()), (1, 1));

    // {1: 2}: an integer key.
    let int_key = [0x81, 0x01, 0x02];
    assert!(lenient.from_slice::<BTreeMap<u8, u8>>(&int_key).is_ok());
    let err = strict.from_slice::<BTreeMap<u8, u8>>(&int_key).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::NonStrKey);
    assert_eq!(err.offset(), 1);

    // {1.5: 2} and {1.5f32: 2}: float keys, read as floats by a type that takes them.
    #[derive(Debug)]
    struct FloatKeys<F>(Vec<(F, u8)>);
    impl<'de, F: Deserialize<'de>> Deserialize<'de> for FloatKeys<F> {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Entries<F>(std::marker::PhantomData<F>);
            impl<'de, F: Deserialize<'de>> serde::de::Visitor<'de> for Entries<F> {
                type Value = FloatKeys<F>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a map with float keys")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<FloatKeys<F>, A::Error> {
                    let mut entries = Vec::new();
                    while let Some(entry) = map.next_entry()? {
                        entries.push(entry);
                    }
                    Ok(FloatKeys(entries))
                }
            }
            deserializer.deserialize_map(Entries(std::marker::PhantomData))
        }
    }
    let f64_key = [&[0x81, 0xcb][..], &1.5f64.to_be_bytes(), &[0x02]].concat();
    let f32_key = [&[0x81, 0xca][..], &1.5f32.to_be_bytes(), &[0x02]].concat();
    assert_eq!(
        lenient.from_slice::<FloatKeys<f64>>(&f64_key).unwrap().0,
        [(1.5, 2)]
    );
    assert_eq!(
        lenient.from_slice::<FloatKeys<f32>>(&f32_key).unwrap().0,
        [(1.5, 2)]
    );
    let err = strict.from_slice::<FloatKeys<f64>>(&f64_key).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (&ErrorKind::NonStrKey, 1));
    let err = strict.from_slice::<FloatKeys<f32>>(&f32_key).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (&ErrorKind::NonStrKey, 1));

    // What strict mode accepts reads the same as leniently.
    let floats = hardpack::to_vec(&(vec![0.5f64, -2.0], 1.5f32)).unwrap();
    assert_eq!(
        strict.from_slice::<(Vec<f64>, f32)>(&floats).unwrap(),
        (vec![0.5, -2.0], 1.5)
    );
    let canonical = hardpack::to_vec(&BTreeMap::from([("a", 1u8), ("b", 2)])).unwrap();
    assert_eq!(
        strict
            .from_slice::<BTreeMap<String, u8>>(&canonical)
            .unwrap(),
        lenient
            .from_slice::<BTreeMap<String, u8>>(&canonical)
            .unwrap()
    );
}

#[test]
fn i128_and_u128_are_written_as_16_byte_bins_as_rmp_serde_writes_them() {
    let big = -(1i128 << 100) - 7;
    let mut expected = vec![0xc4, 16];
    expected.extend(big.to_be_bytes());
    assert_eq!(hardpack::to_vec(&big).unwrap(), expected);
    assert_eq!(rmp_serde::to_vec(&big).unwrap(), expected);

    let huge = u128::MAX - 1;
    let mut expected = vec![0xc4, 16];
    expected.extend(huge.to_be_bytes());
    assert_eq!(hardpack::to_vec(&huge).unwrap(), expected);
    assert_eq!(rmp_serde::to_vec(&huge).unwrap(), expected);
}

#[test]
fn i128_and_u128_read_back_from_the_16_byte_bin_and_from_any_integer_that_fits() {
    let big = -(1i128 << 100) - 7;
    assert_eq!(
        hardpack::from_slice::<i128>(&hardpack::to_vec(&big).unwrap()).unwrap(),
        big
    );
    let huge = u128::MAX - 1;
    assert_eq!(
        hardpack::from_slice::<u128>(&hardpack::to_vec(&huge).unwrap()).unwrap(),
        huge
    );
    // Any bin width holding 16 bytes (rmp-serde takes only a bin 8; strict mode refuses the
    // longer forms as non-canonical).
    let bin16 = [&[0xc5, 0, 16][..], &7u128.to_be_bytes()].concat();
    assert_eq!(hardpack::from_slice::<u128>(&bin16).unwrap(), 7);
    let strict = hardpack::Decoder::default().strict();
    assert!(strict.from_slice::<u128>(&bin16).is_err());
    // Integers of every width.
    assert_eq!(
        hardpack::from_slice::<i128>(&[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]).unwrap(),
        i128::from(i64::MIN)
    );
    assert_eq!(
        hardpack::from_slice::<u128>(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
            .unwrap(),
        u128::from(u64::MAX)
    );
    // A bin of another length is a type error at the bin.
    let err = hardpack::from_slice::<(u8, i128)>(&[0x92, 0x00, 0xc4, 0x01, 0x00]).unwrap_err();
    assert_eq!(e_place(&err), (2, 1), "{err}");
    assert!(err.to_string().contains("expected i128"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Both ways against rmp-serde: what either writes, the other reads back.
    #[test]
    fn i128_and_u128_round_trip_with_rmp_serde(signed in any::<i128>(), unsigned in any::<u128>()) {
        let ours = hardpack::to_vec(&(signed, unsigned)).unwrap();
        let theirs = rmp_serde::to_vec(&(signed, unsigned)).unwrap();
        prop_assert_eq!(&ours, &theirs);
        prop_assert_eq!(hardpack::from_slice::<(i128, u128)>(&theirs).unwrap(), (signed, unsigned));
        prop_assert_eq!(rmp_serde::from_slice::<(i128, u128)>(&ours).unwrap(), (signed, unsigned));
    }
}

/// Every width of the integers at the edges of each type, floats, bools and nil.
fn scalar_encodings() -> Vec<Vec<u8>> {
    let mut encodings = vec![vec![0xc0], vec![0xc2], vec![0xc3]];
    let unsigned = [
        0u64,
        1,
        127,
        128,
        255,
        256,
        65_535,
        65_536,
        u64::from(u32::MAX),
    ];
    for n in unsigned
        .into_iter()
        .chain([u64::from(u32::MAX) + 1, u64::MAX])
    {
        encodings.push(rmp_serde::to_vec(&n).unwrap());
        // The wider forms a lenient decoder accepts too.
        if let Ok(n) = u8::try_from(n) {
            encodings.push(vec![0xcc, n]);
        }
        if let Ok(n) = u16::try_from(n) {
            encodings.push([&[0xcd][..], &n.to_be_bytes()].concat());
        }
        if let Ok(n) = u32::try_from(n) {
            encodings.push([&[0xce][..], &n.to_be_bytes()].concat());
        }
        encodings.push([&[0xcf][..], &n.to_be_bytes()].concat());
    }
    for n in [
        -1i64,
        -32,
        -33,
        -128,
        -129,
        -32_768,
        -32_769,
        i64::from(i32::MIN),
        i64::MIN,
    ] {
        encodings.push(rmp_serde::to_vec(&n).unwrap());
        if let Ok(n) = i8::try_from(n) {
            encodings.push(vec![0xd0, n.to_be_bytes()[0]]);
        }
        if let Ok(n) = i16::try_from(n) {
            encodings.push([&[0xd1][..], &n.to_be_bytes()].concat());
        }
        encodings.push([&[0xd3][..], &n.to_be_bytes()].concat());
    }
    // Non-negative values in signed forms.
    encodings.push(vec![0xd0, 0x05]);
    encodings.push([&[0xd2][..], &i32::MAX.to_be_bytes()].concat());
    // The 16-byte big-endian form of i128 and u128, and bins of other lengths.
    for n in [0i128, -1, i128::MIN, i128::MAX, 1 << 70] {
        encodings.push(rmp_serde::to_vec(&n).unwrap());
    }
    encodings.push([&[0xc4, 15][..], &[0xab; 15]].concat());
    encodings.push([&[0xc4, 17][..], &[0xab; 17]].concat());
    for x in [0.5f32, -0.0, f32::MAX, f32::INFINITY] {
        encodings.push(rmp_serde::to_vec(&x).unwrap());
    }
    for x in [0.25f64, 1e300, f64::NEG_INFINITY] {
        encodings.push(rmp_serde::to_vec(&x).unwrap());
    }
    // Floats cut short: the input ends inside them.
    encodings.push(vec![0xca, 0x3f, 0x00]);
    encodings.push(vec![0xcb, 0x3f, 0xf0, 0x00, 0x00]);
    encodings
}

/// Decodes `[0, scalar]` into `(u8, T)` with both libraries: the same value, or both refuse
/// (hardpack at the scalar: byte 2, depth 1).
fn agrees_with_rmp_serde<T>(scalar: &[u8])
where
    T: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let bytes = [&[0x92, 0x00][..], scalar].concat();
    let ours = hardpack::from_slice::<(u8, T)>(&bytes);
    let theirs = rmp_serde::from_slice::<(u8, T)>(&bytes);
    let what = format!("{scalar:02x?} into {}", std::any::type_name::<T>());
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{what}"),
        (Err(e), Err(_)) => {
            assert_eq!(e_place(&e), (2, 1), "{what}: {e}");
        }
        (ours, theirs) => panic!("{what}: hardpack {ours:?}, rmp-serde {theirs:?}"),
    }
}

fn e_place(e: &hardpack::Error) -> (usize, usize) {
    (e.offset(), e.depth())
}

#[test]
fn every_scalar_encoding_reads_into_every_primitive_as_rmp_serde_reads_it() {
    for scalar in scalar_encodings() {
        agrees_with_rmp_serde::<u8>(&scalar);
        agrees_with_rmp_serde::<u16>(&scalar);
        agrees_with_rmp_serde::<u32>(&scalar);
        agrees_with_rmp_serde::<u64>(&scalar);
        // rmp-serde reads a negative integer into a u128 wrapped (-1 as u128::MAX): hardpack
        // refuses it, as into every other unsigned type. (A 16-byte bin is bits, not a
        // negative integer: both read it.)
        let pair = [&[0x92, 0x00][..], &scalar].concat();
        let is_bin = scalar.first() == Some(&0xc4);
        if !is_bin && matches!(hardpack::from_slice::<(u8, i128)>(&pair), Ok((_, n)) if n < 0) {
            let err = hardpack::from_slice::<(u8, u128)>(&pair).unwrap_err();
            assert_eq!(
                (e_place(&err), err.to_string().contains("expected u128")),
                ((2, 1), true)
            );
        } else {
            agrees_with_rmp_serde::<u128>(&scalar);
        }
        agrees_with_rmp_serde::<i8>(&scalar);
        agrees_with_rmp_serde::<i16>(&scalar);
        agrees_with_rmp_serde::<i32>(&scalar);
        agrees_with_rmp_serde::<i64>(&scalar);
        agrees_with_rmp_serde::<i128>(&scalar);
        agrees_with_rmp_serde::<bool>(&scalar);
        agrees_with_rmp_serde::<()>(&scalar);
        agrees_with_rmp_serde::<Option<u8>>(&scalar);
        agrees_with_rmp_serde::<String>(&scalar);
        // Floats compared by their bits: -0.0 and NaN.
        let float = |bytes: &[u8]| {
            let pair = [&[0x92, 0x00][..], bytes].concat();
            let ours = hardpack::from_slice::<(u8, f64)>(&pair).map(|(_, x)| x.to_bits());
            let theirs = rmp_serde::from_slice::<(u8, f64)>(&pair).map(|(_, x)| x.to_bits());
            assert_eq!(ours.ok(), theirs.ok(), "{bytes:02x?} into f64");
            let ours = hardpack::from_slice::<(u8, f32)>(&pair).map(|(_, x)| x.to_bits());
            let theirs = rmp_serde::from_slice::<(u8, f32)>(&pair).map(|(_, x)| x.to_bits());
            assert_eq!(ours.ok(), theirs.ok(), "{bytes:02x?} into f32");
        };
        float(&scalar);
    }
}

#[test]
fn a_scalar_of_the_wrong_kind_or_range_is_refused_at_its_place() {
    let cases: &[(&[u8], &str)] = &[
        // 256 as a uint 16 into a u8: the error is at the field, after the 0 before it.
        (
            &[0x92, 0x00, 0xcd, 0x01, 0x00],
            "invalid value: integer `256`, expected u8 at byte 2, depth 1",
        ),
        // The byte 0x01 is an integer, not nil.
        (
            &[0x92, 0x00, 0x01],
            "invalid type: integer `1`, expected unit at byte 2, depth 1",
        ),
        (
            &[0x92, 0x00, 0xc3],
            "invalid type: boolean `true`, expected unit at byte 2, depth 1",
        ),
        // Cut short inside the uint 32.
        (
            &[0x92, 0x00, 0xce, 0x01],
            "unexpected end of input: at least 3 more bytes needed for the item at byte 2, depth 1",
        ),
    ];
    for (bytes, message) in cases {
        let err = if message.contains("u8") {
            hardpack::from_slice::<(u8, u8)>(bytes)
                .map(drop)
                .unwrap_err()
        } else if message.contains("unit") {
            hardpack::from_slice::<(u8, ())>(bytes)
                .map(drop)
                .unwrap_err()
        } else {
            hardpack::from_slice::<(u8, u32)>(bytes)
                .map(drop)
                .unwrap_err()
        };
        assert_eq!(err.to_string(), *message, "{bytes:02x?}");
    }
}

#[test]
fn a_short_str_or_bin_refused_is_refused_where_it_starts() {
    // [0, "héllo"] and [0, bin "abcdef"]: the second item starts at byte 2.
    let text = [&[0x92, 0x00, 0xa6][..], "héllo".as_bytes()].concat();
    let bytes = [&[0x92, 0x00, 0xc4, 0x06][..], b"abcdef"].concat();
    let decoder = |limit, max| hardpack::Decoder::new(hardpack::Limits::default().with(limit, max));
    let place = |e: hardpack::Error| (e.offset(), e.depth(), e.limit());
    use hardpack::Limit::{AllocBytes, BinLen, StrLen};
    // Over the budget: the owned copy is charged before the visitor makes it. The budget
    // holds the tuple (charged once, for both its fields) and not the 6 bytes of the copy.
    let slots = size_of::<(u8, String)>();
    let over = decoder(AllocBytes, slots + 5)
        .from_slice::<(u8, String)>(&text)
        .unwrap_err();
    assert_eq!(place(over.clone()), (2, 1, Some(AllocBytes)));
    assert!(
        over.to_string().contains(&(slots + 6).to_string()),
        "{over}"
    );
    let over = decoder(AllocBytes, size_of::<(u8, serde_bytes::ByteBuf)>() + 5)
        .from_slice::<(u8, serde_bytes::ByteBuf)>(&bytes)
        .unwrap_err();
    assert_eq!(place(over), (2, 1, Some(AllocBytes)));
    let (_, owned) = decoder(AllocBytes, slots + 6)
        .from_slice::<(u8, String)>(&text)
        .unwrap();
    assert_eq!(owned, "héllo");
    // Borrowed, the same bytes cost nothing: only the tuple is charged.
    let (_, borrowed) = decoder(AllocBytes, size_of::<(u8, &str)>())
        .from_slice::<(u8, &str)>(&text)
        .unwrap();
    assert_eq!(borrowed, "héllo");
    // Over a length limit, and not UTF-8.
    let long = decoder(StrLen, 5)
        .from_slice::<(u8, &str)>(&text)
        .unwrap_err();
    assert_eq!(place(long), (2, 1, Some(StrLen)));
    let long = decoder(BinLen, 5)
        .from_slice::<(u8, &[u8])>(&bytes)
        .unwrap_err();
    assert_eq!(place(long), (2, 1, Some(BinLen)));
    let mut invalid = text.clone();
    invalid[4] = 0xff;
    let err = hardpack::from_slice::<(u8, &str)>(&invalid).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            hardpack::ErrorKind::InvalidUtf8 { valid_up_to: 1 }
        ),
        "{err}"
    );
    assert_eq!((err.offset(), err.depth()), (2, 1));
}

#[test]
fn a_struct_read_from_a_map_takes_any_key_rmp_serde_takes_and_refuses_the_rest() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Named {
        id: u32,
        #[serde(rename = "kind name")]
        kind: String,
        #[serde(alias = "été")]
        summer: Option<u8>,
        #[serde(default)]
        later: bool,
    }
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        id: u32,
    }
    // A map of `entries` (each a key's and a value's encodings).
    let map = |entries: &[(&[u8], &[u8])]| -> Vec<u8> {
        let mut bytes = vec![0x80 | u8::try_from(entries.len()).unwrap()];
        for (key, value) in entries {
            bytes.extend_from_slice(key);
            bytes.extend_from_slice(value);
        }
        bytes
    };
    let fixstr = |text: &[u8]| [&[0xa0 | u8::try_from(text.len()).unwrap()][..], text].concat();
    let (id, kind, summer, later) = (
        fixstr(b"id"),
        fixstr(b"kind name"),
        fixstr(b"summer"),
        fixstr(b"later"),
    );
    let alias = fixstr("été".as_bytes());
    let str8_id = [&[0xd9, 2][..], b"id"].concat();
    let read = |bytes: &[u8]| {
        let ours = hardpack::from_slice::<Named>(bytes);
        let theirs = rmp_serde::from_slice::<Named>(bytes);
        assert_eq!(
            ours.is_ok(),
            theirs.is_ok(),
            "{bytes:02x?}: {ours:?} against {theirs:?}"
        );
        ours
    };
    let named = |id, kind: &str, summer, later| Named {
        id,
        kind: kind.into(),
        summer,
        later,
    };
    // In the fields' order; out of it, by an alias, with a key no field has (its value
    // skipped); a key in a str 8; a key as the field's index, which serde's derive takes.
    assert_eq!(
        read(&map(&[
            (&id, &[1]),
            (&kind, b"\xa1a"),
            (&summer, &[2]),
            (&later, &[0xc3])
        ]))
        .unwrap(),
        named(1, "a", Some(2), true)
    );
    assert_eq!(
        read(&map(&[
            (&alias, &[3]),
            (&fixstr(b"junk"), &[0x92, 1, 2]),
            (&kind, b"\xa1b"),
            (&str8_id, &[7])
        ]))
        .unwrap(),
        named(7, "b", Some(3), false)
    );
    assert_eq!(
        read(&map(&[(&[0x00], &[9]), (&kind, b"\xa0")])).unwrap(),
        named(9, "", None, false)
    );
    // What serde's derive refuses: a field twice, one missing, a key no field has.
    let err = read(&map(&[(&id, &[1]), (&kind, b"\xa0"), (&id, &[2])])).unwrap_err();
    assert_eq!(err.to_string(), "duplicate field `id` at byte 0, depth 0");
    let err = read(&map(&[(&kind, b"\xa0")])).unwrap_err();
    assert_eq!(err.to_string(), "missing field `id` at byte 0, depth 0");
    let err =
        hardpack::from_slice::<Strict>(&map(&[(&id, &[1]), (&fixstr(b"idx"), &[2])])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown field `idx`, expected `id` at byte 5, depth 1"
    );
    // A key that is not UTF-8 is refused where it starts, as any str is, even where its
    // valid part is a field's name.
    let err = read(&map(&[(&fixstr(b"id\xff"), &[1])])).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            hardpack::ErrorKind::InvalidUtf8 { valid_up_to: 2 }
        ),
        "{err}"
    );
    assert_eq!((err.offset(), err.depth()), (1, 1));
    // And a field's name over `max_str_len` is over it as a key.
    let short =
        hardpack::Decoder::new(hardpack::Limits::default().with(hardpack::Limit::StrLen, 5));
    let err = short
        .from_slice::<Named>(&map(&[(&summer, &[1])]))
        .unwrap_err();
    assert_eq!(
        (err.offset(), err.depth(), err.limit()),
        (1, 1, Some(hardpack::Limit::StrLen))
    );
}

#[test]
fn a_struct_key_that_names_a_field_is_handed_on_as_the_fields_own_name() {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
    const FIELDS: &[&str] = &["alpha", "beta"];
    // For each key of the struct's map: which of FIELDS the visitor was handed, by address
    // (`None`: a str from somewhere else, such as the input).
    struct Keys(Vec<Option<usize>>);
    struct Key(Option<usize>);
    impl<'de> Deserialize<'de> for Keys {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct KeysVisitor;
            impl<'de> Visitor<'de> for KeysVisitor {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a map")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some(Key(key)) = map.next_key()? {
                        keys.push(key);
                        map.next_value::<IgnoredAny>()?;
                    }
                    Ok(Keys(keys))
                }
            }
            d.deserialize_struct("Keys", FIELDS, KeysVisitor)
        }
    }
    impl<'de> Deserialize<'de> for Key {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            // The key's deserializer is the binary format's, as the value's is.
            assert!(!d.is_human_readable());
            struct KeyVisitor;
            impl Visitor<'_> for KeyVisitor {
                type Value = Key;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a field name")
                }
                fn visit_str<E>(self, key: &str) -> Result<Key, E> {
                    Ok(Key(FIELDS
                        .iter()
                        .position(|name| name.as_ptr() == key.as_ptr())))
                }
            }
            d.deserialize_identifier(KeyVisitor)
        }
    }
    // {"beta": 1, "alpha": 2, "gamma": 3, "alpha" (in a str 8): 4}
    let bytes = [
        &[0x84, 0xa4][..],
        b"beta\x01\xa5alpha\x02\xa5gamma\x03\xd9\x05alpha\x04",
    ]
    .concat();
    let Keys(keys) = hardpack::from_slice(&bytes).unwrap();
    assert_eq!(keys, [Some(1), Some(0), None, Some(0)]);
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
#[allow(dead_code)]
enum Untagged {
    Number(u8),
    Pair { key: String },
}

#[test]
fn a_refusal_the_type_makes_after_reading_is_placed_at_the_value() {
    // The untagged enum refuses after its value was read and buffered: the error is the
    // whole value's, at byte 0, not at an unknown place.
    let err = hardpack::from_slice::<Untagged>(&[0x92, 0x01, 0x02]).unwrap_err();
    assert_eq!((err.offset(), err.depth()), (0, 0), "{err}");
    assert_eq!(
        err.to_string(),
        "data did not match any variant of untagged enum Untagged at byte 0, depth 0"
    );
    let err = hardpack::Decoder::default()
        .from_slice_with_stats::<Untagged>(&[0xc3])
        .unwrap_err();
    assert_eq!(err.offset(), 0, "{err}");
}
