//! Typed decoding borrows: strs and bytes point into the input, and `ValueRef` deserializes
//! as `decode_ref` builds it.

use proptest::prelude::*;
use serde::Deserialize;

mod common;

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
