//! The derive path against the serde path on types that derive both: the same bytes written,
//! and for any input the same value or the same error (kind, offset and depth), under the
//! default limits and under tight ones.

use std::collections::{BTreeMap, HashMap};

use hardpack::derive::{Decode, Encode};
use hardpack::{Decoder, Limit, Limits};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone)]
struct Wide<'a> {
    flag: bool,
    small: i8,
    big: u64,
    float: f64,
    single: f32,
    text: &'a str,
    owned: String,
    #[serde(with = "serde_bytes")]
    bytes: &'a [u8],
    list: Vec<u16>,
    map: BTreeMap<String, i32>,
    maybe: Option<Box<Wide<'a>>>,
    tuple: (u8, char),
    nothing: (),
    wide: i128,
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone)]
enum Tree<'a> {
    Leaf,
    Boxed(Box<Tree<'a>>),
    List(Vec<Tree<'a>>),
    #[serde(borrow)]
    Map(BTreeMap<&'a str, Tree<'a>>),
    Number(i16),
    Tuple(u8, Marker, Pair),
    Node {
        name: &'a str,
        next: Option<Box<Tree<'a>>>,
    },
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone)]
struct Marker;

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone)]
struct Pair(u32, bool);

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone)]
struct Meters(f64);

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone)]
struct Generic<T> {
    items: Vec<T>,
    first: Option<T>,
    by_name: HashMap<String, T>,
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone, Default)]
struct Attributes {
    #[serde(rename = "x")]
    #[hardpack(rename = "x")]
    renamed: u8,
    #[serde(default)]
    #[hardpack(default)]
    defaulted: u32,
    #[serde(skip)]
    #[hardpack(skip)]
    skipped: u8,
    last: Option<String>,
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone)]
enum Renamed {
    #[serde(rename = "first")]
    #[hardpack(rename = "first")]
    One,
    Two {
        #[serde(rename = "v")]
        #[hardpack(rename = "v")]
        value: u16,
    },
}

fn wide(depth: usize) -> Wide<'static> {
    Wide {
        flag: true,
        small: -3,
        big: u64::MAX,
        float: 1.5,
        single: -0.25,
        text: "héllo",
        owned: "owned".repeat(depth + 1),
        bytes: b"\x00\xff",
        list: vec![1, 300, 65535],
        map: [("a".to_string(), -1), ("b".to_string(), 70000)].into(),
        maybe: (depth > 0).then(|| Box::new(wide(depth - 1))),
        tuple: (7, 'é'),
        nothing: (),
        wide: -(1 << 100),
    }
}

fn tree() -> Tree<'static> {
    Tree::List(vec![
        Tree::Leaf,
        Tree::Boxed(Box::new(Tree::Number(-300))),
        Tree::Map([("k", Tree::Leaf), ("j", Tree::Number(5))].into()),
        Tree::Tuple(1, Marker, Pair(70000, true)),
        Tree::Node {
            name: "n",
            next: Some(Box::new(Tree::Node {
                name: "m",
                next: None,
            })),
        },
    ])
}

fn generic() -> Generic<Pair> {
    Generic {
        items: vec![Pair(1, false), Pair(2, true)],
        first: Some(Pair(3, true)),
        by_name: [("only".to_string(), Pair(4, false))].into(),
    }
}

/// The derive path writes what the serde path and rmp-serde write.
fn writes_as_serde<T: Encode + Serialize>(value: &T) -> Vec<u8> {
    let derived = hardpack::derive::to_vec(value).unwrap();
    assert_eq!(
        derived,
        hardpack::to_vec(value).unwrap(),
        "against hardpack::to_vec"
    );
    assert_eq!(
        derived,
        rmp_serde::to_vec(value).unwrap(),
        "against rmp_serde::to_vec"
    );
    derived
}

#[test]
fn every_shape_is_written_as_rmp_serde_writes_it_and_read_back() {
    let bytes = writes_as_serde(&wide(2));
    assert_eq!(
        hardpack::derive::from_slice::<Wide>(&bytes).unwrap(),
        wide(2)
    );
    let bytes = writes_as_serde(&tree());
    assert_eq!(
        hardpack::derive::from_slice::<Tree>(&bytes).unwrap(),
        tree()
    );
    let bytes = writes_as_serde(&generic());
    assert_eq!(
        hardpack::derive::from_slice::<Generic<Pair>>(&bytes).unwrap(),
        generic()
    );
    let attributes = Attributes {
        renamed: 1,
        defaulted: 2,
        skipped: 0,
        last: Some("l".into()),
    };
    let bytes = writes_as_serde(&attributes);
    assert_eq!(
        hardpack::derive::from_slice::<Attributes>(&bytes).unwrap(),
        attributes
    );
    for value in [Renamed::One, Renamed::Two { value: 9 }] {
        let bytes = writes_as_serde(&value);
        assert_eq!(
            hardpack::derive::from_slice::<Renamed>(&bytes).unwrap(),
            value
        );
    }
    let bytes = writes_as_serde(&Meters(2.5));
    assert_eq!(bytes, [0xcb, 0x40, 0x04, 0, 0, 0, 0, 0, 0]);
    assert_eq!(writes_as_serde(&Marker), [0x90]);
    assert_eq!(writes_as_serde(&Renamed::One), b"\xa5first");
}

#[test]
fn a_struct_is_read_from_a_map_of_its_names_as_serde_reads_it() {
    // rmp-serde's to_vec_named form, with a key it does not know and one left out.
    #[derive(Serialize)]
    struct Named<'a> {
        x: u8,
        unknown: Vec<u8>,
        last: &'a str,
    }
    let bytes = rmp_serde::to_vec_named(&Named {
        x: 4,
        unknown: vec![1, 2],
        last: "l",
    })
    .unwrap();
    let read: Attributes = hardpack::derive::from_slice(&bytes).unwrap();
    assert_eq!(
        read,
        Attributes {
            renamed: 4,
            defaulted: 0,
            skipped: 0,
            last: Some("l".into())
        }
    );
    same_outcome::<Attributes>(&Decoder::default(), &bytes);
}

/// The serde path's result and the derive path's, for one input.
fn same_outcome<'de, T>(decoder: &Decoder, input: &'de [u8])
where
    T: Deserialize<'de> + Decode<'de> + PartialEq + std::fmt::Debug,
{
    let serde = decoder.from_slice::<T>(input);
    let derived = decoder.from_slice_derived::<T>(input);
    assert_eq!(derived, serde, "input {input:02x?}");
}

/// Decoders whose limits the documents below reach: the defaults, a shallow one, one with
/// little budget, short collections and strs, and strict mode.
fn decoders() -> Vec<Decoder> {
    vec![
        Decoder::default(),
        Decoder::new(Limits::default().with(Limit::Depth, 3)),
        Decoder::new(Limits::default().with(Limit::AllocBytes, 100)),
        Decoder::new(
            Limits::default()
                .with(Limit::ArrayLen, 2)
                .with(Limit::MapLen, 1)
                .with(Limit::StrLen, 3)
                .with(Limit::BinLen, 1),
        ),
        Decoder::default().strict(),
    ]
}

fn all_agree(input: &[u8]) {
    for decoder in decoders() {
        same_outcome::<Wide>(&decoder, input);
        same_outcome::<Tree>(&decoder, input);
        same_outcome::<Generic<Pair>>(&decoder, input);
        same_outcome::<Attributes>(&decoder, input);
        same_outcome::<Renamed>(&decoder, input);
        same_outcome::<Meters>(&decoder, input);
        same_outcome::<Marker>(&decoder, input);
        same_outcome::<Vec<(u8, String)>>(&decoder, input);
        same_outcome::<Option<Pair>>(&decoder, input);
    }
}

fn documents() -> Vec<Vec<u8>> {
    let mut docs = vec![
        hardpack::to_vec(&wide(3)).unwrap(),
        hardpack::to_vec(&tree()).unwrap(),
        hardpack::to_vec(&generic()).unwrap(),
        rmp_serde::to_vec_named(&wide(1)).unwrap(),
        rmp_serde::to_vec_named(&tree()).unwrap(),
        rmp_serde::to_vec_named(&Attributes::default()).unwrap(),
        hardpack::to_vec(&vec![(1u8, "a".to_string())]).unwrap(),
    ];
    // A struct, a tuple struct and a tuple variant from a bin, as serde hands its bytes.
    docs.push(vec![0xc4, 2, 7, 1]);
    docs.push(vec![
        0x81, 0xa5, b'T', b'u', b'p', b'l', b'e', 0xc4, 3, 1, 2, 3,
    ]);
    docs
}

#[test]
fn the_two_paths_agree_on_every_document_and_its_truncations() {
    for doc in documents() {
        for end in 0..=doc.len() {
            all_agree(&doc[..end]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 300 } else { 3000 }))]

    #[test]
    fn the_two_paths_agree_on_mutated_documents(
        which in 0usize..9,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let mut doc = documents()[which].clone();
        for (at, byte, how) in edits {
            let at = at % (doc.len() + 1);
            match how {
                0 if at < doc.len() => doc[at] = byte,
                1 => doc.insert(at, byte),
                _ if at < doc.len() => { doc.remove(at); }
                _ => doc.push(byte),
            }
        }
        all_agree(&doc);
    }

    #[test]
    fn the_two_paths_agree_on_any_bytes(doc in proptest::collection::vec(any::<u8>(), 0..64)) {
        all_agree(&doc);
    }
}
