//! Typed encoding through serde: byte for byte what rmp-serde writes, for every kind of the
//! serde data model (so rmp-serde reads it back), and the same bytes as `encode` for values.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};

mod common;
use common::{value, Flaky};

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

/// A recursive type of every shape serde recurses through.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Tree {
    Leaf,
    Boxed(Box<Tree>),
    List(Vec<Tree>),
    Map(std::collections::HashMap<String, Tree>),
}

/// `levels` of `variant` around a leaf: {"Boxed": {"Boxed": ... "Leaf"}}, with the list and
/// map variants' own container inside each level (so two containers a level).
fn nested(variant: &str, levels: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..levels {
        bytes.push(0x81);
        bytes.push(0xa0 | variant.len() as u8);
        bytes.extend(variant.as_bytes());
        match variant {
            "List" => bytes.push(0x91),
            "Map" => bytes.extend([0x81, 0xa1, b'k']),
            _ => {}
        }
    }
    bytes.push(0xa4);
    bytes.extend(b"Leaf");
    bytes
}

/// Runs `check` on a 256 KiB thread with a decoder under the `max_depth` the README gives as
/// safe there in this profile (32 in debug, 128 in release).
fn on_a_256_kib_thread(check: impl FnOnce(hardpack::Decoder, usize) + Send + 'static) {
    let max_depth = if cfg!(debug_assertions) { 32 } else { 128 };
    let decoder =
        hardpack::Decoder::new(hardpack::Limits::default().with(hardpack::Limit::Depth, max_depth));
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || check(decoder, max_depth))
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_million_deep_payload_into_a_recursive_type_is_refused_on_a_256_kib_stack() {
    // serde recurses through user code once per level. Measured by `examples/typed_stack`
    // (bytes of stack a level of max_depth): debug 2,286 (Box), 3,263 (Vec), 3,711
    // (HashMap); release 633, 524, 524. A 256 KiB thread holds the default max_depth of 128
    // in release; in a debug build, 32 with room to spare.
    on_a_256_kib_thread(|decoder, max_depth| {
        for (variant, containers_a_level) in [("Boxed", 1), ("List", 2), ("Map", 2)] {
            let bomb = nested(variant, 1_000_000 / containers_a_level);
            let err = decoder.from_slice::<Tree>(&bomb).unwrap_err();
            assert_eq!(
                err.limit(),
                Some(hardpack::Limit::Depth),
                "{variant}: {err}"
            );
            assert_eq!(err.depth(), max_depth, "{variant}");
            // Just within the limit it decodes.
            let fits = nested(variant, max_depth / containers_a_level);
            assert!(decoder.from_slice::<Tree>(&fits).is_ok(), "{variant}");
        }
    });
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

#[test]
fn borrowed_strs_and_bytes_point_into_the_input() {
    #[derive(Deserialize)]
    struct Borrowing<'a> {
        name: &'a str,
        #[serde(with = "serde_bytes")]
        data: &'a [u8],
        text: std::borrow::Cow<'a, str>,
    }
    let bytes = rmp_serde::to_vec(&("hello", serde_bytes::Bytes::new(&[1, 2, 3]), "cow")).unwrap();
    let b: Borrowing = hardpack::from_slice(&bytes).unwrap();
    assert_eq!(
        (b.name, b.data, &*b.text),
        ("hello", &[1u8, 2, 3][..], "cow")
    );
    let range = bytes.as_ptr_range();
    assert!(range.contains(&b.name.as_ptr()) && range.contains(&b.data.as_ptr()));
}

#[test]
fn a_huge_claim_is_refused_before_anything_is_reserved() {
    // An array claiming 2^32 - 1 elements of [u64; 32]: the room check refuses it at once.
    let bytes = [0xdd, 0xff, 0xff, 0xff, 0xff, 0x90];
    let err = hardpack::from_slice::<Vec<[u64; 32]>>(&bytes).unwrap_err();
    assert!(
        matches!(err.kind(), hardpack::ErrorKind::LimitExceeded { .. }),
        "{err}"
    );
    // A million-element claim that the input can hold (a nil each), into big elements: the
    // budget refuses it, having charged 256 bytes an element.
    let mut bytes = vec![0xdd, 0x00, 0x0f, 0x42, 0x40];
    bytes.extend(std::iter::repeat_n(0xc0, 1_000_000));
    let err = hardpack::Decoder::new(
        hardpack::Limits::default().with(hardpack::Limit::AllocBytes, 1 << 20),
    )
    .from_slice::<Vec<Option<[u64; 32]>>>(&bytes)
    .unwrap_err();
    assert_eq!(err.limit(), Some(hardpack::Limit::AllocBytes), "{err}");
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
fn from_read_buffers_at_most_the_budget() {
    let bytes = rmp_serde::to_vec(&vec!["x"; 1000]).unwrap();
    let small = hardpack::Decoder::new(
        hardpack::Limits::default().with(hardpack::Limit::AllocBytes, 1 << 20),
    );
    let read: Vec<String> = small.from_read(&bytes[..]).unwrap();
    assert_eq!(read.len(), 1000);
    // A stream that never ends is refused once it outgrows the budget.
    let tiny =
        hardpack::Decoder::new(hardpack::Limits::default().with(hardpack::Limit::AllocBytes, 1000));
    let err = tiny
        .from_read::<Vec<u8>, _>(std::io::repeat(0x90))
        .unwrap_err();
    assert_eq!(err.limit(), Some(hardpack::Limit::AllocBytes));
    assert_eq!(err.offset(), 1000);
    // A failing reader is an error at the offset reached.
    struct Broken;
    impl std::io::Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("the socket closed"))
        }
    }
    let err = hardpack::Decoder::default()
        .from_read::<u8, _>(Broken)
        .unwrap_err();
    assert_eq!(
        err.kind(),
        &hardpack::ErrorKind::Io {
            message: "the socket closed".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "reading the input failed at byte 0: the socket closed"
    );
}

#[test]
fn from_read_retries_an_interrupted_read_and_reports_a_failed_one_where_it_happened() {
    use hardpack::{Decoder, ErrorKind, Limit, Limits};
    let bytes = hardpack::to_vec(&(1u8, "two", [3u16; 4])).unwrap();
    type Doc = (u8, String, [u16; 4]);
    let expected: Doc = (1, "two".into(), [3; 4]);
    let decoder = Decoder::default();
    assert_eq!(
        decoder
            .from_read::<Doc, _>(Flaky::new(&bytes, None))
            .unwrap(),
        expected
    );
    let e = decoder
        .from_read::<Doc, _>(Flaky::new(
            &bytes[..7],
            Some(std::io::ErrorKind::ConnectionReset),
        ))
        .unwrap_err();
    let socket_closed = ErrorKind::Io {
        message: "the socket closed".into(),
    };
    assert_eq!((e.kind(), e.offset()), (&socket_closed, 7));
    // A budget exactly the document's length (and more than its decode charges, a byte an
    // element): the read that looks for one byte more is interrupted first, then finds the
    // end, or fails.
    let small = [0x94, 0x01, 0x02, 0x03, 0x04];
    let exact = Decoder::new(Limits::default().with(Limit::AllocBytes, small.len()));
    assert_eq!(
        exact
            .from_read::<[u8; 4], _>(Flaky::new(&small, None))
            .unwrap(),
        [1, 2, 3, 4]
    );
    let e = exact
        .from_read::<[u8; 4], _>(Flaky::new(
            &small,
            Some(std::io::ErrorKind::ConnectionReset),
        ))
        .unwrap_err();
    assert_eq!((e.kind(), e.offset()), (&socket_closed, small.len()));
}

#[test]
fn an_ext_read_into_a_value_is_charged() {
    // A 1,000-byte ext read through serde into a Value is copied: the budget sees it.
    let mut bytes = vec![0xc8, 0x03, 0xe8, 0x05];
    bytes.extend([7u8; 1000]);
    let tight =
        hardpack::Decoder::new(hardpack::Limits::default().with(hardpack::Limit::AllocBytes, 500));
    let err = tight.from_slice::<hardpack::Value>(&bytes).unwrap_err();
    assert_eq!(err.limit(), Some(hardpack::Limit::AllocBytes), "{err}");
    assert!(hardpack::from_slice::<hardpack::Value>(&bytes)
        .unwrap()
        .as_ext()
        .is_some());
}

#[test]
fn serializing_a_value_too_deep_for_serde_is_refused_before_it_recurses() {
    let mut b = hardpack::value::ValueBuilder::new();
    for _ in 0..1_000_000 {
        b.start_array(1);
    }
    let deep = b.push(hardpack::Value::Nil).unwrap();
    let bytes = hardpack::encode(&deep).unwrap();
    std::thread::Builder::new()
        .stack_size(64 << 10)
        .spawn(move || {
            let err = hardpack::to_vec(&deep).unwrap_err();
            assert!(err.to_string().contains("nested 1000000 deep"), "{err}");
            let doc = hardpack::Decoder::new(
                hardpack::Limits::default().with(hardpack::Limit::Depth, 1_000_000),
            )
            .decode_ref(&bytes)
            .unwrap();
            assert!(hardpack::to_vec(&doc).is_err());
        })
        .unwrap()
        .join()
        .unwrap();
    // At the bound it serializes.
    let mut b = hardpack::value::ValueBuilder::new();
    for _ in 0..hardpack::ser::SERIALIZE_MAX_DEPTH {
        b.start_array(1);
    }
    let at_bound = b.push(hardpack::Value::Nil).unwrap();
    let encoded = hardpack::encode(&at_bound).unwrap();
    assert_eq!(hardpack::to_vec(&at_bound).unwrap(), encoded);
    let borrowed = hardpack::Decoder::new(
        hardpack::Limits::default()
            .with(hardpack::Limit::Depth, hardpack::ser::SERIALIZE_MAX_DEPTH),
    )
    .decode_ref(&encoded)
    .unwrap();
    assert_eq!(
        hardpack::to_vec(&borrowed).unwrap(),
        encoded,
        "a ValueRef too"
    );
}

#[test]
fn value_ref_deserializes_borrowing_from_the_input() {
    use hardpack::ValueRef;
    let input = hardpack::encode(&hardpack::msgpack!({"k": [1, "two", -3]})).unwrap();
    let mut bin = vec![0x92, 0xc4, 0x02, 0xff, 0x00];
    bin.extend_from_slice(&[0xd6, 0xff, 0, 0, 0, 1]); // and a timestamp
    for doc in [input, bin, vec![0xd4, 0x05, 0x07]] {
        let typed: ValueRef = hardpack::from_slice(&doc).unwrap();
        let direct = hardpack::decode_ref(&doc).unwrap();
        assert_eq!(typed, direct, "{doc:02x?}");
        assert_eq!(typed, hardpack::decode(&doc).unwrap());
    }
    // The str is the input's bytes, not a copy.
    let doc = [0x91, 0xa3, b'a', b'b', b'c'];
    let typed: ValueRef = hardpack::from_slice(&doc).unwrap();
    let text = typed.root().get(0).and_then(|n| n.as_str()).unwrap();
    assert_eq!(text.as_ptr(), doc[2..].as_ptr());
}

#[test]
fn value_ref_refuses_a_format_that_cannot_lend_its_strs() {
    // serde's own value deserializer holds a String: it can hand the str over only for the
    // length of the call.
    use serde::de::value::{Error as ValueError, StringDeserializer};
    use serde::de::IntoDeserializer;
    let owned: StringDeserializer<ValueError> = String::from("abc").into_deserializer();
    let err = hardpack::ValueRef::deserialize(owned).unwrap_err();
    assert!(
        err.to_string().contains("decode into Value instead"),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn value_ref_through_serde_is_decode_ref(doc in common::documents()) {
        let limits = hardpack::Limits::default();
        let direct = hardpack::Decoder::new(limits.clone()).decode_ref(&doc);
        let typed = hardpack::Decoder::new(limits).from_slice::<hardpack::ValueRef>(&doc);
        match (&direct, &typed) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(a.kind_name(), b.kind_name()),
            _ => prop_assert!(false, "decode_ref {:?}, from_slice {:?}", direct, typed),
        }
    }
}

#[test]
fn value_ref_through_serde_is_charged_for_its_tape() {
    // 100,000 nils in an array: 100,005 bytes of input, a tape of 100,001 items. Under a
    // 64 KiB budget the tape does not fit, through serde as through decode_ref.
    let mut doc = vec![0xdd, 0x00, 0x01, 0x86, 0xa0];
    doc.extend(std::iter::repeat_n(0xc0, 100_000));
    let decoder = hardpack::Decoder::new(
        hardpack::Limits::default().with(hardpack::Limit::AllocBytes, 64 << 10),
    );
    assert_eq!(
        decoder.decode_ref(&doc).unwrap_err().limit(),
        Some(hardpack::Limit::AllocBytes)
    );
    let e = decoder.from_slice::<hardpack::ValueRef>(&doc).unwrap_err();
    assert_eq!(e.limit(), Some(hardpack::Limit::AllocBytes), "{e}");
    // With room, it decodes.
    let roomy = hardpack::Decoder::new(hardpack::Limits::default());
    assert!(roomy.from_slice::<hardpack::ValueRef>(&doc).is_ok());
}

/// A type that reads part of what it is handed and returns: the key of a map's one entry
/// (and not its value), a map's first entry (and not the others), or an enum's variant (and
/// not its content).
enum ReadsHalf {
    MapKey,
    FirstEntry,
    EnumVariant,
}

impl<'de> serde::de::DeserializeSeed<'de> for ReadsHalf {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        struct Half(bool);
        impl<'de> serde::de::Visitor<'de> for Half {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("anything")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
                if self.0 {
                    return map.next_entry::<String, serde::de::IgnoredAny>().map(drop);
                }
                map.next_key::<String>().map(drop)
            }
            fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
                data.variant::<String>().map(drop)
            }
        }
        match self {
            ReadsHalf::MapKey => deserializer.deserialize_map(Half(false)),
            ReadsHalf::FirstEntry => deserializer.deserialize_map(Half(true)),
            ReadsHalf::EnumVariant => deserializer.deserialize_enum("E", &["A"], Half(false)),
        }
    }
}

#[test]
fn a_type_that_reads_half_an_entry_is_refused_where_the_entry_starts() {
    use serde::de::DeserializeSeed as _;
    // {"A": [1, 2]}: a key, then an array the type never reads.
    let bytes = [0x81, 0xa1, b'A', 0x92, 0x01, 0x02];
    for (seed, message) in [
        (
            ReadsHalf::MapKey,
            "the type read a map key and not its value",
        ),
        (
            ReadsHalf::EnumVariant,
            "the type read an enum's variant and not its content",
        ),
    ] {
        let mut de = hardpack::de::Deserializer::new(&bytes, &hardpack::Limits::default());
        let err = seed.deserialize(&mut de).unwrap_err();
        assert_eq!(err.to_string(), format!("{message} at byte 0, depth 0"));
    }
}

#[test]
fn a_type_that_leaves_map_entries_unread_is_refused_where_the_map_starts() {
    use serde::de::DeserializeSeed as _;
    // [{"A": 1, "B": 2}]: the type reads the first entry only.
    let bytes = [0x91, 0x82, 0xa1, b'A', 0x01, 0xa1, b'B', 0x02];
    let mut de = hardpack::de::Deserializer::new(&bytes[1..], &hardpack::Limits::default());
    let err = ReadsHalf::FirstEntry.deserialize(&mut de).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the map has 1 entries more than the type takes at byte 0, depth 0"
    );
    // One level down, placed at the map inside the array.
    struct InArray;
    impl<'de> serde::de::DeserializeSeed<'de> for InArray {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            struct Seq;
            impl<'de> serde::de::Visitor<'de> for Seq {
                type Value = ();
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an array")
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<(), A::Error> {
                    seq.next_element_seed(ReadsHalf::FirstEntry).map(drop)
                }
            }
            d.deserialize_seq(Seq)
        }
    }
    let mut de = hardpack::de::Deserializer::new(&bytes, &hardpack::Limits::default());
    let err = InArray.deserialize(&mut de).unwrap_err();
    assert_eq!((err.offset(), err.depth()), (1, 1), "{err}");
}

#[test]
fn a_type_that_drops_an_error_from_inside_a_container_is_refused_at_the_end() {
    // [[1, "x"]] into a type that reads its one element as (u8, u8), drops the error the str
    // makes and says it is done: the inner array is left open, so the value is not whole.
    struct DropsErrors;
    impl<'de> Deserialize<'de> for DropsErrors {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Seq;
            impl<'de> serde::de::Visitor<'de> for Seq {
                type Value = DropsErrors;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an array")
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<DropsErrors, A::Error> {
                    assert!(seq.next_element::<(u8, u8)>().is_err());
                    Ok(DropsErrors)
                }
            }
            d.deserialize_seq(Seq)
        }
    }
    let bytes = [0x91, 0x92, 0x01, 0xa1, b'x'];
    let err = hardpack::from_slice::<DropsErrors>(&bytes)
        .map(drop)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the type left part of the value unread at byte 5, depth 1"
    );
}

#[test]
fn strict_bookkeeping_is_charged_on_the_typed_decode_as_on_the_owned_one() {
    use hardpack::{de::Deserializer, Decoder, Limits, Value};
    use serde::Deserialize as _;
    use std::collections::BTreeMap;
    let doc =
        Value::from_iter((0..1000u32).map(|i| (Value::from(format!("key {i}")), Value::from(i))));
    let bytes = hardpack::encode(&doc).unwrap();
    let typed = |strict: bool| {
        let lenient = Deserializer::new(&bytes, &Limits::default());
        if strict {
            let mut de = lenient.strict();
            BTreeMap::<String, u32>::deserialize(&mut de).unwrap();
            de.charged_bytes()
        } else {
            let mut de = lenient;
            BTreeMap::<String, u32>::deserialize(&mut de).unwrap();
            de.charged_bytes()
        }
    };
    let owned = |decoder: Decoder| decoder.decode_with_stats(&bytes).unwrap().1.charged_bytes;
    let strict_owned = owned(Decoder::default().strict()) - owned(Decoder::default());
    assert!(strict_owned >= 1000 * 16, "{strict_owned}");
    assert_eq!(typed(true) - typed(false), strict_owned);
}

#[test]
fn the_deserializer_s_error_is_one_pointer_holding_the_error_from_slice_returns() {
    use serde::Deserialize as _;
    // A pointer, so that each field's `Result` comes back in registers.
    assert_eq!(
        std::mem::size_of::<hardpack::de::DeError>(),
        std::mem::size_of::<usize>()
    );
    // [1, "x"] into (u8, u8): the str is refused at byte 2, depth 1.
    let bytes = [0x92, 0x01, 0xa1, b'x'];
    let mut de = hardpack::de::Deserializer::new(&bytes, &hardpack::Limits::default());
    let through_serde = <(u8, u8)>::deserialize(&mut de).unwrap_err();
    assert_eq!((through_serde.offset(), through_serde.depth()), (2, 1));
    assert_eq!(through_serde.kind_name(), "custom");
    let from_slice = hardpack::from_slice::<(u8, u8)>(&bytes).unwrap_err();
    assert_eq!(through_serde.to_string(), from_slice.to_string());
    assert_eq!(through_serde.into_error(), from_slice);
}

#[test]
fn a_deserializer_driven_directly_tells_where_it_stands_and_what_it_charged() {
    use serde::Deserialize as _;
    // ["hello", [1, 2, 3]] then a byte of something else.
    let bytes = [
        0x92, 0xa5, b'h', b'e', b'l', b'l', b'o', 0x93, 0x01, 0x02, 0x03, 0xc0,
    ];
    let mut de = hardpack::de::Deserializer::new(&bytes, &hardpack::Limits::default());
    assert_eq!((de.position(), de.charged_bytes()), (0, 0));
    let (text, numbers) = <(String, Vec<u32>)>::deserialize(&mut de).unwrap();
    assert_eq!(
        (text.as_str(), numbers.as_slice()),
        ("hello", &[1, 2, 3][..])
    );
    assert_eq!(de.position(), 11);
    // The str's five bytes, each of the tuple's two elements and the three u32s.
    let tuple = std::mem::size_of::<String>() + std::mem::size_of::<Vec<u32>>();
    assert_eq!(de.charged_bytes(), 5 + tuple + 3 * 4);
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

    // What strict mode accepts reads the same as leniently.
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

/// A sequence or map type that records the size hint it was handed and skips what it holds.
struct HintOf(Option<usize>);

impl<'de> Deserialize<'de> for HintOf {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Hint;
        impl<'de> serde::de::Visitor<'de> for Hint {
            type Value = HintOf;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<HintOf, A::Error> {
                let hint = seq.size_hint();
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(HintOf(hint))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<HintOf, A::Error> {
                let hint = map.size_hint();
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(HintOf(hint))
            }
        }
        deserializer.deserialize_seq(Hint)
    }
}

#[test]
fn size_hints_never_exceed_what_the_budget_or_the_input_can_hold() {
    use hardpack::{de::HINT_ELEMENT_BYTES, Decoder, Limit, Limits};
    // 1,000 nils.
    let mut bytes = vec![0xdc, 0x03, 0xe8];
    bytes.extend(std::iter::repeat_n(0xc0, 1_000));
    let hint = |max_alloc: usize, input: &[u8]| {
        Decoder::new(Limits::default().with(Limit::AllocBytes, max_alloc))
            .from_slice_prefix::<HintOf>(input)
            .map(|(h, _)| h.0)
    };
    // The budget bounds the hint: 100 elements' worth of HINT_ELEMENT_BYTES.
    assert_eq!(hint(100 * HINT_ELEMENT_BYTES, &bytes).unwrap(), Some(100));
    // A roomy budget: the claim, which the input holds.
    assert_eq!(hint(64 << 20, &bytes).unwrap(), Some(1_000));
    // The same for a map of 1,000 nil -> nil entries.
    let mut map = vec![0xde, 0x03, 0xe8];
    map.extend(std::iter::repeat_n(0xc0, 2_000));
    assert_eq!(hint(100 * HINT_ELEMENT_BYTES, &map).unwrap(), Some(100));
    assert_eq!(hint(64 << 20, &map).unwrap(), Some(1_000));
    // A bin of 1,000 bytes read as a sequence: its length, bounded by the budget alike.
    let mut bin = vec![0xc5, 0x03, 0xe8];
    bin.extend(std::iter::repeat_n(7, 1_000));
    assert_eq!(hint(100 * HINT_ELEMENT_BYTES, &bin).unwrap(), Some(100));
    assert_eq!(hint(64 << 20, &bin).unwrap(), Some(1_000));
    // A claim the input cannot hold is refused at the header, before any hint.
    let short = &map[..1_500];
    assert_eq!(
        hint(64 << 20, short).unwrap_err().kind(),
        &hardpack::ErrorKind::UnexpectedEnd { needed: 503 }
    );
}

/// Recurses through serde without opening a container: a newtype around an `Option` of
/// itself reads any non-nil item as one more level, forever, unless the levels are counted.
#[derive(Deserialize, Debug)]
struct Chain(Option<Box<Chain>>);

/// A newtype of a newtype of ...: the same, with no `Option` in the way.
#[derive(Debug)]
#[allow(dead_code)]
struct Endless(Box<Endless>);

impl<'de> Deserialize<'de> for Endless {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Endless;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an endless newtype")
            }
            fn visit_newtype_struct<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Endless, D::Error> {
                Endless::deserialize(d).map(|inner| Endless(Box::new(inner)))
            }
        }
        d.deserialize_newtype_struct("Endless", V)
    }
}

/// An `Option` of an `Option` of ...: the same through `deserialize_option` alone.
#[derive(Debug)]
#[allow(dead_code)]
struct EndlessSome(Option<Box<EndlessSome>>);

impl<'de> Deserialize<'de> for EndlessSome {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = EndlessSome;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an endless option")
            }
            fn visit_none<E>(self) -> Result<EndlessSome, E> {
                Ok(EndlessSome(None))
            }
            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<EndlessSome, D::Error> {
                EndlessSome::deserialize(d).map(|inner| EndlessSome(Some(Box::new(inner))))
            }
        }
        d.deserialize_option(V)
    }
}

#[test]
fn options_and_newtypes_count_toward_max_depth_so_a_type_that_recurses_through_them_stops() {
    // Without the count, one byte sends both types into unbounded native recursion (a stack
    // overflow, as in rmp-serde and serde_json). A 256 KiB thread and the depth the README
    // gives for it.
    on_a_256_kib_thread(|decoder, max_depth| {
        for input in [&[0x01][..], &[0xa1, b'x'], &[0x90], &[0xcc, 0xff]] {
            let err = decoder.from_slice::<Chain>(input).unwrap_err();
            assert_eq!(err.limit(), Some(hardpack::Limit::Depth), "{err}");
            assert_eq!((err.offset(), err.depth()), (0, 0), "{err}");
            let err = decoder.from_slice::<EndlessSome>(input).unwrap_err();
            assert_eq!(err.limit(), Some(hardpack::Limit::Depth), "{err}");
            let err = decoder.from_slice::<Endless>(input).unwrap_err();
            assert_eq!(err.limit(), Some(hardpack::Limit::Depth), "{err}");
            assert_eq!(
                err.to_string(),
                format!(
                    "nesting depth {} exceeds max_depth {max_depth} at byte 0, depth 0",
                    max_depth + 1
                )
            );
        }
        // A nil ends the chain: each `Some` and each newtype is a level, so a chain of
        // max_depth levels needs max_depth / 2 links.
        let chain = decoder.from_slice::<Chain>(&[0xc0]).unwrap();
        assert!(chain.0.is_none());
    });
}

#[test]
fn an_option_level_counts_with_the_containers_around_it() {
    // Two arrays, a Some, then the Vec's array: the fourth level under max_depth 3.
    type Nested = Vec<Vec<Option<Vec<u8>>>>;
    let decoder =
        hardpack::Decoder::new(hardpack::Limits::default().with(hardpack::Limit::Depth, 3));
    assert_eq!(
        decoder.from_slice::<Nested>(&[0x91, 0x91, 0xc0]).unwrap(),
        vec![vec![None]]
    );
    let err = decoder
        .from_slice::<Nested>(&[0x91, 0x91, 0x90])
        .unwrap_err();
    assert_eq!(err.limit(), Some(hardpack::Limit::Depth), "{err}");
    assert_eq!((err.offset(), err.depth()), (2, 2), "{err}");
    assert_eq!(
        err.to_string(),
        "nesting depth 4 exceeds max_depth 3 at byte 2, depth 2"
    );
    // The owned decode counts only containers: three arrays fit.
    assert!(decoder.decode(&[0x91, 0x91, 0x90]).is_ok());
}

#[test]
fn to_writer_writes_what_to_vec_returns_even_when_called_from_inside_a_serialize() {
    /// Serializes as the bytes of its inner value written by `to_writer` (a `Serialize`
    /// that calls `to_writer` while the outer call holds the thread's buffer).
    struct Nested(Vec<u32>);
    impl Serialize for Nested {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut inner = Vec::new();
            hardpack::ser::to_writer(&mut inner, &self.0).map_err(serde::ser::Error::custom)?;
            s.serialize_bytes(&inner)
        }
    }
    let big: Vec<u64> = (0..100_000).collect(); // past what the thread keeps between calls
    for _ in 0..2 {
        let mut out = Vec::new();
        hardpack::ser::to_writer(&mut out, &big).unwrap();
        assert_eq!(out, hardpack::to_vec(&big).unwrap());
        let nested = Nested(vec![1, 2, 300]);
        let mut out = Vec::new();
        hardpack::ser::to_writer(&mut out, &nested).unwrap();
        assert_eq!(out, [0xc4, 6, 0x93, 1, 2, 0xcd, 0x01, 0x2c]);
        assert_eq!(out, hardpack::to_vec(&nested).unwrap());
    }
    // A writer that fails: the error says so, and the next call is not affected.
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let err = hardpack::ser::to_writer(&mut Broken, &1u8).unwrap_err();
    assert!(err.to_string().contains("disk full"), "{err}");
    let mut out = Vec::new();
    hardpack::ser::to_writer(&mut out, &1u8).unwrap();
    assert_eq!(out, [1]);
}

/// An `io::Write` that keeps each `write_all` it was handed apart, to see how `to_writer`
/// cuts a value.
#[derive(Default)]
struct Writes(Vec<Vec<u8>>);

impl std::io::Write for Writes {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.0.push(bytes.to_vec());
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Writes {
    fn concatenated(&self) -> Vec<u8> {
        self.0.concat()
    }
    fn largest(&self) -> usize {
        self.0.iter().map(Vec::len).max().unwrap_or(0)
    }
}

#[test]
fn to_writer_writes_a_large_value_as_it_encodes_it_and_a_small_one_in_one_write() {
    let mut small = Writes::default();
    hardpack::ser::to_writer(&mut small, &(1u8, "two", [3.0f64; 4])).unwrap();
    assert_eq!(small.0.len(), 1, "a small value is one write");
    assert_eq!(
        small.concatenated(),
        hardpack::to_vec(&(1u8, "two", [3.0f64; 4])).unwrap()
    );

    // 1,000,000 u64 (about 8.5 MB): written in chunks of TO_WRITER_CHUNK bytes (plus the
    // element that crossed it), never held whole.
    let big: Vec<u64> = (0..1_000_000u64).map(|i| i << 33).collect();
    let mut writes = Writes::default();
    hardpack::ser::to_writer(&mut writes, &big).unwrap();
    let whole = hardpack::to_vec(&big).unwrap();
    assert_eq!(writes.concatenated(), whole);
    assert!(
        writes.largest() <= hardpack::ser::TO_WRITER_CHUNK + 9,
        "a write of {} bytes",
        writes.largest()
    );
    assert!(writes.0.len() >= whole.len() / (hardpack::ser::TO_WRITER_CHUNK + 9));

    // A map's entries are the points it may be cut at too.
    let map: BTreeMap<u32, String> = (0..50_000).map(|i| (i, format!("value {i}"))).collect();
    let mut writes = Writes::default();
    hardpack::ser::to_writer(&mut writes, &map).unwrap();
    assert_eq!(writes.concatenated(), hardpack::to_vec(&map).unwrap());
    assert!(writes.0.len() > 1 && writes.largest() <= hardpack::ser::TO_WRITER_CHUNK + 64);
}

/// A sequence of unknown length (`serialize_seq(None)`) of `len` elements, each a
/// sequence of unknown length holding its index and a str.
struct UnsizedPairs {
    len: u32,
}

impl Serialize for UnsizedPairs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut outer = s.serialize_seq(None)?;
        for i in 0..self.len {
            outer.serialize_element(&UnsizedPair(i))?;
        }
        outer.end()
    }
}

struct UnsizedPair(u32);

impl Serialize for UnsizedPair {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut pair = s.serialize_seq(None)?;
        pair.serialize_element(&self.0)?;
        pair.serialize_element("an element of unknown length")?;
        pair.end()
    }
}

#[test]
fn to_writer_holds_a_sequence_of_unknown_length_until_its_header_is_known() {
    // Known-length sequences around and beside unknown-length ones, each larger than a chunk.
    let value = (
        vec![7u64 << 40; 10_000],
        UnsizedPairs { len: 20_000 },
        vec![UnsizedPairs { len: 3 }, UnsizedPairs { len: 5_000 }],
    );
    let whole = hardpack::to_vec(&value).unwrap();
    let mut writes = Writes::default();
    hardpack::ser::to_writer(&mut writes, &value).unwrap();
    assert_eq!(writes.concatenated(), whole);
    type Pairs = Vec<(u32, String)>;
    let decoded: (Vec<u64>, Pairs, Vec<Pairs>) = hardpack::from_slice(&whole).unwrap();
    assert_eq!(decoded.1.len(), 20_000);
    assert_eq!(
        decoded.1[19_999],
        (19_999, "an element of unknown length".into())
    );
    assert_eq!(decoded.2[1].len(), 5_000);
    // The 20,000-element sequence (about 640 KB) went out in one piece once it ended: its
    // header had to go in front of it.
    let unsized_bytes = hardpack::to_vec(&UnsizedPairs { len: 20_000 }).unwrap();
    assert!(writes.largest() >= unsized_bytes.len());
    assert!(writes.0.len() > 3, "the known-length parts are still cut");
}

#[test]
fn to_writer_has_written_what_came_before_a_serialize_error_in_a_large_value() {
    /// Fails at element `at`.
    struct FailsAt(u32);
    impl Serialize for FailsAt {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeSeq;
            let mut seq = s.serialize_seq(Some(1_000_000))?;
            for i in 0..self.0 {
                seq.serialize_element(&u64::from(i))?;
            }
            Err(serde::ser::Error::custom("element unavailable"))
        }
    }
    let mut writes = Writes::default();
    let err = hardpack::ser::to_writer(&mut writes, &FailsAt(200_000)).unwrap_err();
    assert!(err.to_string().contains("element unavailable"), "{err}");
    let written = writes.concatenated();
    assert!(written.len() >= hardpack::ser::TO_WRITER_CHUNK);
    assert_eq!(
        written[..3],
        [0xdd, 0x00, 0x0f],
        "the array's header went first"
    );
    // A small value that fails writes nothing.
    let mut writes = Writes::default();
    assert!(hardpack::ser::to_writer(&mut writes, &FailsAt(10)).is_err());
    assert!(writes.0.is_empty());
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

/// A sequence or map claiming more elements than a 32-bit length field holds is refused
/// before anything is written, naming what was too long and how long.
#[test]
fn a_length_past_the_format_is_an_error_naming_it() {
    struct Claims(bool);
    impl Serialize for Claims {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use serde::ser::{SerializeMap, SerializeSeq};
            let len = Some(u32::MAX as usize + 1);
            if self.0 {
                serializer.serialize_map(len)?.end()
            } else {
                serializer.serialize_seq(len)?.end()
            }
        }
    }
    for (is_map, name, of) in [
        (false, "array", hardpack::error::LengthOf::Array),
        (true, "map", hardpack::error::LengthOf::Map),
    ] {
        let err = hardpack::to_vec(&Claims(is_map)).unwrap_err();
        assert_eq!(
            err.kind(),
            &hardpack::error::EncodeErrorKind::TooLong {
                of,
                len: u32::MAX as usize + 1
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "{name} of length 4294967296 cannot be encoded: MessagePack lengths are at most 4294967295"
            )
        );
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
    // holds the two elements' slots (1 + 24 bytes) and not the 6 bytes of the copy.
    let over = decoder(AllocBytes, 30)
        .from_slice::<(u8, String)>(&text)
        .unwrap_err();
    assert_eq!(place(over.clone()), (2, 1, Some(AllocBytes)));
    assert!(over.to_string().contains("31"), "{over}");
    let over = decoder(AllocBytes, 30)
        .from_slice::<(u8, serde_bytes::ByteBuf)>(&bytes)
        .unwrap_err();
    assert_eq!(place(over), (2, 1, Some(AllocBytes)));
    let (_, owned) = decoder(AllocBytes, 31)
        .from_slice::<(u8, String)>(&text)
        .unwrap();
    assert_eq!(owned, "héllo");
    // Borrowed, the same bytes cost nothing: only the slots (1 + 16 bytes) are charged.
    let (_, borrowed) = decoder(AllocBytes, 17)
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

/// A map of unknown length (`serialize_map(None)`): `len` entries from `i` to `i * 2`.
struct UnsizedMap {
    len: u32,
}

impl Serialize for UnsizedMap {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        for i in 0..self.len {
            map.serialize_entry(&i, &(u64::from(i) * 2))?;
        }
        map.end()
    }
}

#[test]
fn a_map_of_unknown_length_gets_its_smallest_header_when_it_ends() {
    for (len, header) in [
        (0, &[0x80][..]),
        (15, &[0x8f]),
        (16, &[0xde, 0x00, 0x10]),
        (65_536, &[0xdf, 0x00, 0x01, 0x00, 0x00]),
    ] {
        let bytes = hardpack::to_vec(&UnsizedMap { len }).unwrap();
        assert!(
            bytes.starts_with(header),
            "{len} entries: {:02x?}",
            &bytes[..5.min(bytes.len())]
        );
        let expected: BTreeMap<u32, u64> = (0..len).map(|i| (i, u64::from(i) * 2)).collect();
        assert_eq!(
            bytes,
            rmp_serde::to_vec(&expected).unwrap(),
            "{len} entries"
        );
        let back: BTreeMap<u32, u64> = hardpack::from_slice(&bytes).unwrap();
        assert_eq!(back, expected);
    }
}

/// rmp-serde hands a bin to a type asking for a sequence as the sequence of its bytes (a
/// `Vec<u8>` without `serde_bytes` then reads what another language wrote as bytes); hardpack
/// reads the same, and requires every byte to be read, as it requires an array's elements.
#[test]
fn a_bin_reads_as_the_sequence_of_its_bytes_where_a_sequence_is_asked_for() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Message {
        id: u8,
        data: Vec<u8>,
    }
    #[derive(Deserialize, Debug, PartialEq)]
    struct Rgb(u8, u8, u8);
    #[derive(Deserialize, Debug, PartialEq)]
    struct Point {
        x: u16,
        y: i8,
    }
    // [7, bin "abc"] as Python's msgpack writes a bytes field.
    let message = [0x92, 0x07, 0xc4, 0x03, b'a', b'b', b'c'];
    let expected = Message {
        id: 7,
        data: b"abc".to_vec(),
    };
    assert_eq!(hardpack::from_slice::<Message>(&message).unwrap(), expected);
    assert_eq!(
        rmp_serde::from_slice::<Message>(&message).unwrap(),
        expected
    );
    let rgb = [0xc4, 0x03, 1, 2, 3];
    assert_eq!(hardpack::from_slice::<Rgb>(&rgb).unwrap(), Rgb(1, 2, 3));
    assert_eq!(
        hardpack::from_slice::<(u8, u8, u8)>(&rgb).unwrap(),
        (1, 2, 3)
    );
    assert_eq!(rmp_serde::from_slice::<Rgb>(&rgb).unwrap(), Rgb(1, 2, 3));
    let point = [0xc4, 0x02, 0xff, 0x7f];
    assert_eq!(
        hardpack::from_slice::<Point>(&point).unwrap(),
        Point { x: 255, y: 127 }
    );
    assert_eq!(hardpack::from_slice::<Vec<u32>>(&[0xc4, 0x00]).unwrap(), []);
    // A byte the element type cannot hold, and bytes the type leaves unread, are refused
    // where the bin starts.
    let err = hardpack::from_slice::<(Point,)>(&[0x91, 0xc4, 0x02, 0x01, 0x80]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid value: integer `128`, expected i8 at byte 1, depth 1"
    );
    let err = hardpack::from_slice::<Rgb>(&[0xc4, 0x04, 1, 2, 3, 4]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the bin has 1 bytes more than the type takes at byte 0, depth 0"
    );
    // Where bytes are asked for, a bin is still bytes.
    assert_eq!(
        hardpack::from_slice::<serde_bytes::ByteBuf>(&[0xc4, 0x01, 9]).unwrap(),
        [9]
    );
}

/// Each byte handed out is charged as an element of its type: a bin of 100,000 bytes into a
/// `Vec<u64>` is 800,000 bytes of elements.
#[test]
fn a_bin_read_as_a_sequence_charges_each_element() {
    use hardpack::{Decoder, Limit, Limits};
    let mut bin = vec![0xc6, 0x00, 0x01, 0x86, 0xa0];
    bin.resize(bin.len() + 100_000, 7);
    let tight = Decoder::new(Limits::default().with(Limit::AllocBytes, 400_000));
    let err = tight.from_slice::<Vec<u64>>(&bin).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::AllocBytes), "{err}");
    let roomy = Decoder::new(Limits::default().with(Limit::AllocBytes, 1_000_000));
    let numbers = roomy.from_slice::<Vec<u64>>(&bin).unwrap();
    assert_eq!(numbers.len(), 100_000);
    assert!(numbers.iter().all(|&n| n == 7));
}
