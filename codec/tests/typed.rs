//! Typed encoding through serde: byte for byte what rmp-serde writes, for every kind of the
//! serde data model (so rmp-serde reads it back), and the same bytes as `encode` for values.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};

mod common;
use common::value;

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
        (any::<f64>(), proptest::option::of(".{0,8}"))
            .prop_map(|(x, y)| Variant::Struct { x, y }),
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
        prop_assert_eq!(hardpack::to_vec_named(&w).unwrap(), rmp_serde::to_vec_named(&w).unwrap());
        // And rmp-serde reads it back (compared as bytes: a NaN is not equal to itself).
        let back: Wide = rmp_serde::from_slice(&ours).unwrap();
        prop_assert_eq!(rmp_serde::to_vec(&back).unwrap(), ours);
        // What hardpack writes is canonical (and these maps have unique str keys): strict mode
        // accepts it.
        let strict = hardpack::Decoder::default().strict();
        let named = hardpack::to_vec_named(&w).unwrap();
        prop_assert!(strict.decode(&named).is_ok(), "{:?}", strict.decode(&named));
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
        let ts = hardpack::Timestamp::new(seconds, nanoseconds).unwrap();
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
    assert_eq!(hardpack::EXT_STRUCT_NAME, "_ExtStruct");
    let ext = Ext((5, serde_bytes::Bytes::new(&[1, 2, 3, 4])));
    assert_eq!(hardpack::to_vec(&ext).unwrap(), [0xd6, 0x05, 1, 2, 3, 4]);
    assert_eq!(hardpack::to_vec(&ext).unwrap(), rmp_serde::to_vec(&ext).unwrap());
    let ts = hardpack::Timestamp::new(1, 0).unwrap();
    assert_eq!(hardpack::to_vec(&ts).unwrap(), [0xd6, 0xff, 0, 0, 0, 1]);
    // Anything else inside the ext newtype is refused.
    #[derive(Serialize)]
    #[serde(rename = "_ExtStruct")]
    struct NotExt(u8);
    let err = hardpack::to_vec(&NotExt(1)).unwrap_err();
    assert_eq!(err.to_string(), "an ext must be serialized as an (i8, bytes) tuple");
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
    assert_eq!(err.kind(), &hardpack::EncodeErrorKind::Custom);
    assert_eq!(err.to_string(), "no, thank you");
}
