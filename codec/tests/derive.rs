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
    wide_unsigned: u128,
    uuid: [u32; 4],
    empty: [u8; 0],
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

/// Structs and tuples of numbers and bools, nested: read whole by the plain path where every
/// check on their headers would pass, by the general one where any would not.
#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone, Default)]
struct Point3(f32, f32, f32);

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone, Default)]
struct Face {
    corners: (Point3, Point3),
    normal: Point3,
    #[serde(skip)]
    #[hardpack(skip)]
    cached: u8,
    #[serde(default)]
    #[hardpack(default)]
    weight: i16,
    lit: bool,
}

fn faces() -> Vec<Face> {
    (0..3i16)
        .map(|i| {
            let f = f32::from(i);
            Face {
                corners: (Point3(f, -f, 0.5), Point3(f * 1e30, f32::MIN, f32::NAN)),
                normal: Point3(0.0, 1.0, f),
                cached: 0,
                weight: i * 1000 - 1,
                lit: i % 2 == 0,
            }
        })
        .collect()
}

/// A struct written in a fixed number of bytes: floats and bools, a skipped field aside.
#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone, Default)]
struct Lit {
    corner: Point3,
    #[serde(skip)]
    #[hardpack(skip)]
    cached: u8,
    lit: bool,
    scale: [f64; 2],
}

/// One field: serde's messages say "1 element", not "1 elements".
#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone)]
struct One {
    only: Vec<Pair>,
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone)]
struct OneTuple(
    u8,
    #[serde(skip)]
    #[hardpack(skip)]
    u8,
);

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
        wide_unsigned: u128::MAX - 1,
        uuid: [1, 2, 70000, u32::MAX],
        empty: [],
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

    // Keys as bins of the names, and as the fields' indices (one past the last is unknown).
    let key = |name: &str| hardpack::Value::from(name.as_bytes());
    let by_bytes = hardpack::encode(&hardpack::Value::from(vec![
        (key("x"), hardpack::Value::from(6u8)),
        (key("last"), hardpack::Value::from("b")),
        (hardpack::Value::from(3u8), hardpack::Value::from(9u8)),
    ]))
    .unwrap();
    let read: Attributes = hardpack::derive::from_slice(&by_bytes).unwrap();
    assert_eq!(
        read,
        Attributes {
            renamed: 6,
            defaulted: 0,
            skipped: 0,
            last: Some("b".into())
        }
    );
    same_outcome::<Attributes>(&Decoder::default(), &by_bytes);
}

/// The serde path's result and the derive path's, for one input.
fn same_outcome<'de, T>(decoder: &Decoder, input: &'de [u8])
where
    T: Deserialize<'de> + Decode<'de> + Serialize + std::fmt::Debug,
{
    let serde = decoder.from_slice::<T>(input);
    let derived = decoder.from_slice_derived::<T>(input);
    match (&derived, &serde) {
        // Values compared by their encodings: a NaN field is not equal to itself.
        (Ok(ours), Ok(theirs)) => assert_eq!(
            hardpack::to_vec(ours).unwrap(),
            hardpack::to_vec(theirs).unwrap(),
            "input {input:02x?}: {ours:?} against {theirs:?}"
        ),
        _ => assert_eq!(
            derived.as_ref().err(),
            serde.as_ref().err(),
            "input {input:02x?}: {derived:?} against {serde:?}"
        ),
    }
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
        same_outcome::<One>(&decoder, input);
        same_outcome::<OneTuple>(&decoder, input);
        same_outcome::<Marker>(&decoder, input);
        same_outcome::<Vec<(u8, String)>>(&decoder, input);
        same_outcome::<Option<Pair>>(&decoder, input);
        same_outcome::<Vec<Face>>(&decoder, input);
        same_outcome::<Face>(&decoder, input);
        same_outcome::<(Point3, i8)>(&decoder, input);
        same_outcome::<(Empty, String)>(&decoder, input);
        same_outcome::<Vec<Empty>>(&decoder, input);
        same_outcome::<Empty>(&decoder, input);
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
        hardpack::to_vec(&faces()).unwrap(),
        rmp_serde::to_vec_named(&faces()).unwrap(),
        hardpack::to_vec(&(Point3(1.0, 2.0, 3.0), -7i8)).unwrap(),
        // A struct of no fields is plain too: its array's header is all it reads.
        hardpack::to_vec(&(Empty {}, "text")).unwrap(),
        hardpack::to_vec(&vec![Empty {}, Empty {}]).unwrap(),
        // What follows a value is no part of it: a byte after the last empty struct.
        vec![0x92, 0x90, 0x90, 0x05],
    ];
    docs.push(vec![0x90]);
    docs.push(vec![0x91, 0x90]);
    // Maps where a sequence is read: refused as serde's visitor refuses them, before or
    // after the map's own limits.
    docs.push(vec![0x80]);
    docs.push(vec![0x82, 1, 0x90, 3, 0x91, 0x90]);
    docs.push(vec![0xdf, 0xff, 0xff, 0xff, 0xff]);
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

/// An array 16 claiming `len + claim_off` elements (at least none), then `body` less its
/// last `cut` bytes.
fn sequence(len: usize, claim_off: i64, body: &[u8], cut: usize) -> Vec<u8> {
    let claimed = (len as i64 + claim_off).max(0) as u16;
    let mut doc = vec![0xdc];
    doc.extend_from_slice(&claimed.to_be_bytes());
    doc.extend_from_slice(body);
    doc.truncate(doc.len().saturating_sub(cut));
    doc
}

/// The two paths agree on `doc` read as a `Vec<T>`, and on two of it in a pair.
fn sequences_agree<T>(doc: &[u8])
where
    T: for<'de> Deserialize<'de> + for<'de> Decode<'de> + Serialize + std::fmt::Debug,
{
    for decoder in decoders() {
        same_outcome::<Vec<T>>(&decoder, doc);
        same_outcome::<(Vec<T>, Vec<T>)>(&decoder, &[&[0x92][..], doc, doc].concat());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 300 } else { 3000 }))]

    #[test]
    fn the_two_paths_agree_on_mutated_documents(
        which in 0usize..10,
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

    /// Long sequences of bytes, read many elements at a time: mostly the two forms rmp-serde
    /// writes (runs of `uint 8` markers whose values are markers too among them), a few in
    /// any other form, and claimed lengths a little off the real one.
    #[test]
    fn a_long_sequence_of_bytes_is_read_as_the_serde_path_reads_it(
        elements in proptest::collection::vec((0u8..12, any::<u8>()), 0..80),
        claim_off in -2i64..=2,
        cut in 0usize..3,
    ) {
        let mut body = Vec::new();
        for (form, value) in &elements {
            match form {
                0..=3 => body.push(value & 0x7f),
                4..=7 => body.extend_from_slice(&[0xcc, *value]),
                8 => body.extend_from_slice(&[0xcc, 0xcc]),
                9 => body.extend_from_slice(&[0xcd, 0, *value]),
                10 => body.push(0xe0 | (value & 0x1f)),
                _ => body.push(*value),
            }
        }
        sequences_agree::<u8>(&sequence(elements.len(), claim_off, &body, cut));
    }

    /// Long sequences of bools, read eight at a time: runs of `false` and `true`, a few
    /// other items among them, claimed lengths a little off the real one.
    #[test]
    fn a_long_sequence_of_bools_is_read_as_the_serde_path_reads_it(
        items in proptest::collection::vec(prop_oneof![
            8 => Just(0xc2u8), 8 => Just(0xc3u8), 1 => Just(0xc0u8), 1 => Just(0x01u8),
            1 => Just(0xc1u8)], 0..60),
        claim_off in -2i64..=2,
        cut in 0usize..3,
    ) {
        sequences_agree::<bool>(&sequence(items.len(), claim_off, &items, cut));
    }

    /// A long run of small bytes is written as the bytes themselves, any other a byte at a
    /// time: the same bytes as rmp-serde's, for runs all small and with one large byte
    /// anywhere, short and long, as a `Vec`, an array and inside a tuple, and into a buffer
    /// that already holds something.
    #[test]
    fn a_sequence_of_bytes_is_written_as_rmp_serde_writes_it(
        small in proptest::collection::vec(0u8..0x80, 0..1100),
        mixed in proptest::collection::vec(
            prop_oneof![0u8..0x80, any::<u8>(), Just(0xcc), Just(0x80)], 0..40),
        large_at in proptest::option::of(any::<usize>()),
    ) {
        let mut bytes = [small, mixed].concat();
        if let (Some(at), false) = (large_at, bytes.is_empty()) {
            let at = at % bytes.len();
            bytes[at] = 0x80;
        }
        let written = writes_as_serde(&bytes);
        prop_assert_eq!(hardpack::derive::from_slice::<Vec<u8>>(&written).unwrap(), bytes.clone());
        if let Ok(array) = <[u8; 19]>::try_from(&bytes[..bytes.len().min(19)]) {
            writes_as_serde(&array);
        }
        let pair = (bytes.len() as u32, bytes.clone());
        let mut out = vec![0xc0];
        pair.encode(&mut out).unwrap();
        prop_assert_eq!(&out[1..], &rmp_serde::to_vec(&pair).unwrap()[..]);
    }

    /// Random bytes, half of them large, across several of the runs they are written in.
    #[test]
    fn random_bytes_are_written_as_rmp_serde_writes_them(
        bytes in proptest::collection::vec(any::<u8>(), 0..1300),
        held in 0usize..3,
    ) {
        let mut out = vec![0xc0; held];
        bytes.encode(&mut out).unwrap();
        prop_assert_eq!(&out[held..], &rmp_serde::to_vec(&bytes).unwrap()[..]);
        prop_assert_eq!(hardpack::derive::from_slice::<Vec<u8>>(&out[held..]).unwrap(), bytes);
    }

    #[test]
    fn a_sequence_of_bools_is_written_as_rmp_serde_writes_it(
        bools in proptest::collection::vec(any::<bool>(), 0..100),
    ) {
        let written = writes_as_serde(&bools);
        prop_assert_eq!(hardpack::derive::from_slice::<Vec<bool>>(&written).unwrap(), bools);
    }

    /// Sequences of values of a fixed length, across several of the runs they are written in.
    #[test]
    fn a_sequence_of_fixed_length_values_is_written_as_rmp_serde_writes_it(
        floats in proptest::collection::vec(any::<f32>(), 0..4),
        len in 0usize..150,
    ) {
        let lits: Vec<Lit> = (0..len)
            .map(|i| {
                let f = floats.get(i % 4).copied().unwrap_or(i as f32);
                Lit { corner: Point3(f, -f, 0.5), cached: 0, lit: i % 3 == 0, scale: [f64::from(f), 1e300] }
            })
            .collect();
        let written = writes_as_serde(&lits);
        prop_assert_eq!(written.len(), 37 * len + if len < 16 { 1 } else { 3 });
        writes_as_serde(&lits.iter().map(|l| (l.corner.0, l.lit)).collect::<Vec<_>>());
        writes_as_serde(&lits.iter().map(|l| l.scale).collect::<Vec<_>>());
        writes_as_serde(&(0..len).map(|i| i as f64 / 3.0).collect::<Vec<_>>());
    }

    #[test]
    fn the_two_paths_agree_on_any_bytes(doc in proptest::collection::vec(any::<u8>(), 0..64)) {
        all_agree(&doc);
    }
}

/// Which types are written in exactly their bound: floats, bools and what holds only them.
#[test]
fn a_fixed_length_is_claimed_only_where_every_value_takes_it() {
    fn claim<T: Encode + ?Sized>() -> (Option<usize>, bool) {
        (T::MAX_LEN, T::FIXED_LEN)
    }
    let claimed = [
        ("f32", claim::<f32>()),
        ("f64", claim::<f64>()),
        ("bool", claim::<bool>()),
        ("()", claim::<()>()),
        ("Point3", claim::<Point3>()),
        ("Lit", claim::<Lit>()),
        ("(f32, bool)", claim::<(f32, bool)>()),
        ("[Point3; 2]", claim::<[Point3; 2]>()),
        ("Meters", claim::<Meters>()),
        ("u8", claim::<u8>()),
        ("i64", claim::<i64>()),
        ("char", claim::<char>()),
        ("Option<f32>", claim::<Option<f32>>()),
        ("(f32, u16)", claim::<(f32, u16)>()),
        ("Pair", claim::<Pair>()),
        // Bounded, but its weight, an `i16`, takes one to three bytes.
        ("Face", claim::<Face>()),
    ];
    let expected = [
        ("f32", (Some(5), true)),
        ("f64", (Some(9), true)),
        ("bool", (Some(1), true)),
        ("()", (Some(1), true)),
        ("Point3", (Some(16), true)),
        ("Lit", (Some(37), true)),
        ("(f32, bool)", (Some(7), true)),
        ("[Point3; 2]", (Some(33), true)),
        ("Meters", (Some(9), true)),
        ("u8", (Some(2), false)),
        ("i64", (Some(9), false)),
        ("char", (Some(5), false)),
        ("Option<f32>", (Some(5), false)),
        ("(f32, u16)", (Some(9), false)),
        ("Pair", (Some(7), false)),
        ("Face", (Some(54), false)),
    ];
    assert_eq!(claimed, expected);
}

/// Bytes all large, each written in two bytes, take all the room a run of them is given, at
/// every length across the first runs.
#[test]
fn large_bytes_fill_the_room_they_are_written_in() {
    for len in 0..=1100 {
        for large in [0x80u8, 0xff] {
            let bytes = vec![large; len];
            assert_eq!(
                writes_as_serde(&bytes).len(),
                len * 2 + [1, 3][usize::from(len >= 16)]
            );
        }
    }
}

/// Every form of every scalar, and items of other kinds, as elements of one sequence.
fn element_forms() -> Vec<Vec<u8>> {
    let mut forms: Vec<Vec<u8>> = vec![
        vec![0x05],
        vec![0x7f],
        vec![0xcc, 200],
        vec![0xcd, 0x01, 0x2c],
        vec![0xce, 0x00, 0x01, 0x11, 0x70],
        vec![0xcf, 0, 0, 1, 0, 0, 0, 0, 0],
        vec![0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        vec![0xfd],
        vec![0xd0, 0x9c],
        vec![0xd0, 0x05],
        vec![0xd1, 0xfc, 0x18],
        vec![0xd2, 0x80, 0, 0, 0],
        vec![0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0],
        vec![0xc2],
        vec![0xc3],
        vec![0xc0],
        vec![0xa1, b'a'],
        vec![0x90],
        vec![0xc4, 0x01, 0x07],
    ];
    forms.push([&[0xca][..], &1.5f32.to_be_bytes()].concat());
    forms.push([&[0xca][..], &f32::NAN.to_be_bytes()].concat());
    forms.push([&[0xcb][..], &2.5f64.to_be_bytes()].concat());
    forms.push([&[0xcb][..], &(-0.0f64).to_be_bytes()].concat());
    forms
}

#[test]
fn a_sequence_of_numbers_or_bools_reads_every_form_and_refuses_every_other_item_as_serde_does() {
    // Runs of one form broken by one of another: a sequence's loop takes the plain forms of
    // its element type itself, and hands the first other item to the type's own read.
    let forms = element_forms();
    for run in &forms {
        for other in &forms {
            let mut doc = vec![0x96];
            for item in [run, run, run, other, run, run] {
                doc.extend_from_slice(item);
            }
            for end in [doc.len(), doc.len() - 1] {
                let doc = &doc[..end];
                for decoder in decoders() {
                    same_outcome::<Vec<bool>>(&decoder, doc);
                    same_outcome::<Vec<u8>>(&decoder, doc);
                    same_outcome::<Vec<u16>>(&decoder, doc);
                    same_outcome::<Vec<u32>>(&decoder, doc);
                    same_outcome::<Vec<u64>>(&decoder, doc);
                    same_outcome::<Vec<usize>>(&decoder, doc);
                    same_outcome::<Vec<i8>>(&decoder, doc);
                    same_outcome::<Vec<i16>>(&decoder, doc);
                    same_outcome::<Vec<i32>>(&decoder, doc);
                    same_outcome::<Vec<i64>>(&decoder, doc);
                    same_outcome::<Vec<isize>>(&decoder, doc);
                    same_outcome::<Vec<f32>>(&decoder, doc);
                    same_outcome::<Vec<f64>>(&decoder, doc);
                    same_outcome::<Vec<Vec<u8>>>(&decoder, &[&[0x92, 0x90][..], doc].concat());
                }
            }
        }
    }
    // The values themselves, against literals: 1.5 and 2.5 in their own widths, every
    // integer width, a refusal at the element that does not fit, placed at its byte.
    let doc = [&[0x93, 0xcc, 200, 0x05][..], &[0xcd, 0x01, 0x2c]].concat();
    assert_eq!(
        hardpack::derive::from_slice::<Vec<u16>>(&doc).unwrap(),
        [200, 5, 300]
    );
    let err = hardpack::derive::from_slice::<Vec<u8>>(&doc).unwrap_err();
    assert_eq!(err.offset(), 4, "{err}");
    let doc = [
        &[0x92, 0xca][..],
        &1.5f32.to_be_bytes(),
        &[0xca],
        &2.5f32.to_be_bytes(),
    ]
    .concat();
    assert_eq!(
        hardpack::derive::from_slice::<Vec<f32>>(&doc).unwrap(),
        [1.5, 2.5]
    );
}

#[test]
fn a_plain_struct_is_refused_where_the_general_read_refuses_it_at_every_limit() {
    // Each limit at every value around what the faces take: the plain read must pass exactly
    // when every header's check would, or leave the value to the general read.
    let doc = hardpack::to_vec(&faces()).unwrap();
    let mut decoders = vec![Decoder::default()];
    for depth in 0..6 {
        decoders.push(Decoder::new(Limits::default().with(Limit::Depth, depth)));
    }
    for len in 0..6 {
        decoders.push(Decoder::new(Limits::default().with(Limit::ArrayLen, len)));
    }
    for bytes in 0..400 {
        decoders.push(Decoder::new(
            Limits::default().with(Limit::AllocBytes, bytes),
        ));
    }
    // A face in an array of more items than the input has room for after it.
    let mut crowded = vec![0x95];
    crowded.extend_from_slice(&hardpack::to_vec(&faces()[1]).unwrap());
    crowded.extend_from_slice(&[0x01, 0x02]);
    for decoder in &decoders {
        for end in 0..=doc.len() {
            same_outcome::<Vec<Face>>(decoder, &doc[..end]);
        }
        for end in 0..=crowded.len() {
            same_outcome::<(Face, u8, u8, u8, u8)>(decoder, &crowded[..end]);
        }
    }
    // The levels, the widest array and the charge a face's headers come to, as literals:
    // a face (4 fields read), its corners (a tuple of 2), and 3 points of 3.
    let plain = <Face as hardpack::derive::Decode>::PLAIN;
    assert_eq!((plain.levels, plain.widest), (3, 4));
    assert_eq!(
        plain.charge,
        std::mem::size_of::<Face>() + std::mem::size_of::<(Point3, Point3)>() + 3 * 12
    );
}

// The attacks themselves, on the derive path: the outcome and its cost.

/// The heap this thread holds, and the most it held: what a decode on it took from the
/// allocator.
mod counting {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static LIVE: Cell<usize> = const { Cell::new(0) };
        static PEAK: Cell<usize> = const { Cell::new(0) };
    }

    fn grow(bytes: usize) {
        let _ = LIVE.try_with(|live| {
            live.set(live.get().saturating_add(bytes));
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
        });
    }

    fn shrink(bytes: usize) {
        let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(bytes)));
    }

    pub struct Counting;

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            grow(layout.size());
            unsafe { System.alloc(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            shrink(layout.size());
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // Counted as a move: the new block beside the old one, then the old one freed.
            grow(new_size);
            shrink(layout.size());
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    /// Runs `f`, and returns what it returned and the most heap this thread held above what
    /// it held before.
    pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let before = LIVE.with(Cell::get);
        PEAK.with(|peak| peak.set(before));
        let out = f();
        (out, PEAK.with(Cell::get) - before)
    }
}

#[global_allocator]
static COUNTING: counting::Counting = counting::Counting;

use counting::peak_of;

/// `levels` of `{"Boxed": ..}` around `"Leaf"`: 7 bytes a level.
fn boxed(levels: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(levels * 7 + 5);
    for _ in 0..levels {
        bytes.extend(b"\x81\xa5Boxed");
    }
    bytes.extend(b"\xa4Leaf");
    bytes
}

#[test]
fn ten_million_levels_are_refused_at_the_depth_limit_on_a_256_kib_stack() {
    // The README's safe max_depth for a 256 KiB thread: 32 in a debug build, 128 in release.
    let max_depth = if cfg!(debug_assertions) { 32 } else { 128 };
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let decoder = Decoder::new(Limits::default().with(Limit::Depth, max_depth));
            let bomb = boxed(10_000_000);
            let (result, allocated) = peak_of(|| decoder.from_slice_derived::<Tree>(&bomb));
            let err = result.unwrap_err();
            assert_eq!(err.limit(), Some(Limit::Depth), "{err}");
            // Refused where the first map past the limit starts.
            assert_eq!(err.offset(), max_depth * 7, "{err}");
            assert_eq!(err.depth(), max_depth);
            // Nothing is boxed before its content is read whole: the error is all it holds.
            assert!(allocated < 1024, "{allocated} bytes held");
            let fits = boxed(max_depth);
            assert!(decoder.from_slice_derived::<Tree>(&fits).is_ok());
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_4_gib_length_claim_is_refused_before_anything_is_reserved() {
    // An array claiming 2^32 - 1 elements, with one byte after it.
    let bytes = [0xdd, 0xff, 0xff, 0xff, 0xff, 0x90];
    let (result, allocated) =
        peak_of(|| hardpack::derive::from_slice::<Vec<(u64, u64, u64, u64)>>(&bytes));
    let err = result.unwrap_err();
    assert_eq!(err.limit(), Some(Limit::ArrayLen), "{err}");
    assert_eq!(err.offset(), 0);
    assert!(allocated < 1024, "{allocated} bytes held");
}

#[test]
fn a_million_element_claim_past_the_budget_reserves_at_most_serdes_cap() {
    // A million nils (the input holds them), read as 40-byte elements under a 1 MiB budget:
    // the first element charges all of them and is refused. What was reserved first is what
    // serde's Vec reserves from the size hint, which the budget bounds (1 MiB / 64 elements).
    let mut bytes = vec![0xdd, 0x00, 0x0f, 0x42, 0x40];
    bytes.extend(std::iter::repeat_n(0xc0, 1_000_000));
    let decoder = Decoder::new(Limits::default().with(Limit::AllocBytes, 1 << 20));
    let (result, allocated) =
        peak_of(|| decoder.from_slice_derived::<Vec<Option<(u64, u64, u64, u64)>>>(&bytes));
    let err = result.unwrap_err();
    assert_eq!(err.limit(), Some(Limit::AllocBytes), "{err}");
    assert_eq!(err.offset(), 5, "refused at the first element: {err}");
    assert!(allocated <= (1 << 20) + 1024, "{allocated} bytes held");
    assert_eq!(
        decoder.from_slice::<Vec<Option<(u64, u64, u64, u64)>>>(&bytes),
        Err(err)
    );
}

/// A bin read as a `Vec` reserves from a hint the budget bounds, as an array's does: a
/// 100,000-byte bin read as `u64`s under a 1,000-byte budget reserves what the budget left
/// holds at 64 bytes an element (15 elements, 120 bytes), not the bin's length.
#[test]
fn a_long_bin_read_as_a_vec_reserves_within_the_budget() {
    let mut bytes = vec![0xc6, 0x00, 0x01, 0x86, 0xa0];
    bytes.extend(std::iter::repeat_n(7u8, 100_000));
    let decoder = Decoder::new(Limits::default().with(Limit::AllocBytes, 1_000));
    let (derived, allocated) = peak_of(|| decoder.from_slice_derived::<Vec<u64>>(&bytes));
    let err = derived.unwrap_err();
    assert_eq!(err.limit(), Some(Limit::AllocBytes), "{err}");
    assert!(allocated <= 1_000, "{allocated} bytes held");
    let (serde, allocated) = peak_of(|| decoder.from_slice::<Vec<u64>>(&bytes));
    assert_eq!(serde, Err(err));
    assert!(
        allocated <= 1_000,
        "{allocated} bytes held by the serde path"
    );
}

#[test]
fn a_million_empty_maps_decode_within_the_typed_heap_bound() {
    let mut bytes = vec![0xdd, 0x00, 0x0f, 0x42, 0x40];
    bytes.extend(std::iter::repeat_n(0x80, 1_000_000));
    // A slot a map (24 bytes on a 64-bit target, 12 on a 32-bit one) charged, under a 32 MiB
    // budget: the typed path's documented bound is twice the budget, and serde's 1 MiB
    // size-hint reservation per open collection.
    let decoder = Decoder::new(Limits::default().with(Limit::AllocBytes, 32 << 20));
    let started = std::time::Instant::now();
    let (result, held) =
        peak_of(|| decoder.from_slice_derived::<Vec<BTreeMap<String, u8>>>(&bytes));
    assert_eq!(result.unwrap().len(), 1_000_000);
    assert!(held <= (64 << 20) + (1 << 20), "{held} bytes held");
    // A generous bound for a shared 2-core machine, in a debug build.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // 4 bytes under the charge (`size_of` an element, a million times), it is refused.
    let charge = std::mem::size_of::<BTreeMap<String, u8>>() * 1_000_000;
    let decoder = Decoder::new(Limits::default().with(Limit::AllocBytes, charge - 4));
    let refused = decoder.from_slice_derived::<Vec<BTreeMap<String, u8>>>(&bytes);
    let Err(err) = refused else {
        panic!("a million maps decoded under {} bytes", charge - 4);
    };
    assert_eq!(err.limit(), Some(Limit::AllocBytes), "{err}");
    let decoder = Decoder::new(Limits::default().with(Limit::AllocBytes, charge));
    assert!(decoder
        .from_slice_derived::<Vec<BTreeMap<String, u8>>>(&bytes)
        .is_ok());
}

/// `#[hardpack(with = "..")]`: a count written as text.
mod as_text {
    use hardpack::de::{DeError, Deserializer};
    use hardpack::derive::{Decode, Encode};
    use hardpack::error::EncodeError;

    pub fn decode<const STRICT: bool>(de: &mut Deserializer<'_, STRICT>) -> Result<u32, DeError> {
        let text = <&str as Decode>::decode(de)?;
        text.parse()
            .map_err(|_| serde::de::Error::custom(format!("{text:?} is not a count")))
    }

    pub fn encode(value: &u32, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        value.to_string().encode(out)
    }
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Reading {
    #[hardpack(with = "as_text")]
    count: u32,
    #[hardpack(with = "as_text", default)]
    extra: u32,
}

#[derive(Encode, Decode, Debug, PartialEq)]
enum Counted {
    Text(#[hardpack(with = "as_text")] u32),
    Pair(
        #[hardpack(with = "as_text")] u32,
        #[hardpack(with = "as_text", default)] u32,
    ),
    Named {
        #[hardpack(with = "as_text")]
        count: u32,
        #[hardpack(with = "as_text", default)]
        extra: u32,
    },
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct TextPair(
    #[hardpack(with = "as_text")] u32,
    #[hardpack(with = "as_text", default)] u32,
);

#[test]
fn a_field_read_and_written_by_its_own_functions() {
    let reading = Reading {
        count: 12,
        extra: 7,
    };
    let bytes = hardpack::derive::to_vec(&reading).unwrap();
    assert_eq!(bytes, hardpack::to_vec(&("12", "7")).unwrap());
    assert_eq!(
        hardpack::derive::from_slice::<Reading>(&bytes).unwrap(),
        reading
    );
    // Left out of the array, or of a map of the names: its default.
    let short = hardpack::to_vec(&("5",)).unwrap();
    assert_eq!(
        hardpack::derive::from_slice::<Reading>(&short).unwrap(),
        Reading { count: 5, extra: 0 }
    );
    let named = hardpack::to_vec(&BTreeMap::from([("count", "6")])).unwrap();
    assert_eq!(
        hardpack::derive::from_slice::<Reading>(&named).unwrap(),
        Reading { count: 6, extra: 0 }
    );
    // The function's own error, placed at the struct (as serde places a `deserialize_with`
    // error made without a position).
    let err =
        hardpack::derive::from_slice::<Reading>(&hardpack::to_vec(&("x",)).unwrap()).unwrap_err();
    assert_eq!(err.to_string(), "\"x\" is not a count at byte 0, depth 0");
    let bytes = hardpack::derive::to_vec(&Counted::Text(3)).unwrap();
    assert_eq!(bytes, b"\x81\xa4Text\xa13");
    assert_eq!(
        hardpack::derive::from_slice::<Counted>(&bytes).unwrap(),
        Counted::Text(3)
    );
}

#[test]
fn fields_read_by_their_own_functions_in_tuple_and_struct_variants_and_tuple_structs() {
    let both = [
        (
            Counted::Pair(3, 4),
            hardpack::to_vec(&BTreeMap::from([("Pair", ("3", "4"))])),
        ),
        (
            Counted::Named { count: 5, extra: 6 },
            hardpack::to_vec(&BTreeMap::from([("Named", ("5", "6"))])),
        ),
    ];
    for (value, serde_bytes) in both {
        let bytes = hardpack::derive::to_vec(&value).unwrap();
        assert_eq!(bytes, serde_bytes.unwrap(), "{value:?}");
        assert_eq!(
            hardpack::derive::from_slice::<Counted>(&bytes).unwrap(),
            value
        );
    }
    let pair = hardpack::derive::to_vec(&TextPair(7, 8)).unwrap();
    assert_eq!(pair, hardpack::to_vec(&("7", "8")).unwrap());
    assert_eq!(
        hardpack::derive::from_slice::<TextPair>(&pair).unwrap(),
        TextPair(7, 8)
    );

    // The defaulted field left out: its default; the other one left out: refused.
    let short = |tag: &str| hardpack::to_vec(&BTreeMap::from([(tag, ("9",))])).unwrap();
    assert_eq!(
        hardpack::derive::from_slice::<Counted>(&short("Pair")).unwrap(),
        Counted::Pair(9, 0)
    );
    assert_eq!(
        hardpack::derive::from_slice::<Counted>(&short("Named")).unwrap(),
        Counted::Named { count: 9, extra: 0 }
    );
    let single = hardpack::to_vec(&("9",)).unwrap();
    assert_eq!(
        hardpack::derive::from_slice::<TextPair>(&single).unwrap(),
        TextPair(9, 0)
    );
    let empty: [&str; 0] = [];
    let err =
        hardpack::derive::from_slice::<TextPair>(&hardpack::to_vec(&empty).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid length 0, expected tuple struct TextPair with 2 elements at byte 0, depth 0"
    );
    // One element more than the type reads.
    let long = hardpack::to_vec(&("1", "2", "3")).unwrap();
    let err = hardpack::derive::from_slice::<TextPair>(&long).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the array has 1 elements more than the type takes at byte 0, depth 0"
    );
    // From a bin, a byte is not a field its function reads.
    let bin = hardpack::to_vec(&serde_bytes::Bytes::new(&[1, 2])).unwrap();
    let err = hardpack::derive::from_slice::<TextPair>(&bin).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: integer `1`, expected a field read by its own function at byte 0, depth 0"
    );
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
struct Empty {}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
struct Link {
    empty: Empty,
    next: Option<Box<Link>>,
}

/// An empty struct's array opens no level, so leaving it closes none: were it to close one,
/// the depth counted would fall behind the nesting, and the refusal be placed where the
/// serde path does not place it.
#[test]
fn an_empty_struct_leaves_the_depth_where_it_found_it() {
    let mut link = Link {
        empty: Empty {},
        next: None,
    };
    for _ in 0..40 {
        link = Link {
            empty: Empty {},
            next: Some(Box::new(link)),
        };
    }
    let decoder = refused_past_16_levels(&link);
    // The same with each empty struct read from an empty map.
    let mut from_maps = b"\x92\x80".repeat(41);
    from_maps.push(0xc0);
    let err = decoder.from_slice_derived::<Link>(&from_maps).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Depth), "{err}");
    same_outcome::<Link>(&decoder, &from_maps);
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
struct EmptiesLink {
    list: Vec<u8>,
    map: BTreeMap<u8, u8>,
    next: Option<Box<EmptiesLink>>,
}

/// An empty `Vec`'s array and an empty map open no level either: were leaving one to close a
/// level, each link would take the depth back down and the nesting outrun the limit.
#[test]
fn an_empty_vec_or_map_leaves_the_depth_where_it_found_it() {
    let link = |next| EmptiesLink {
        list: Vec::new(),
        map: BTreeMap::new(),
        next,
    };
    let mut chain = link(None);
    for _ in 0..40 {
        chain = link(Some(Box::new(chain)));
    }
    refused_past_16_levels(&chain);
}

/// A chain of 41 links is refused under a depth limit of 16 as the serde path refuses it, and
/// read back whole under the defaults; returns the limited decoder.
fn refused_past_16_levels<T>(chain: &T) -> Decoder
where
    T: for<'de> Deserialize<'de> + for<'de> Decode<'de> + Serialize + std::fmt::Debug + PartialEq,
{
    let bytes = hardpack::to_vec(chain).unwrap();
    let decoder = Decoder::new(Limits::default().with(Limit::Depth, 16));
    let err = decoder.from_slice_derived::<T>(&bytes).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Depth), "{err}");
    same_outcome::<T>(&decoder, &bytes);
    assert_eq!(
        &Decoder::default().from_slice_derived::<T>(&bytes).unwrap(),
        chain
    );
    decoder
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
struct Rgb(u8, u8, u8);

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
struct Pixel {
    red: u8,
    green: u8,
}

/// A struct of bytes read from a bin, one field a byte, as the serde path reads it; a bin
/// too short or too long is refused.
#[test]
fn a_struct_of_bytes_is_read_from_a_bin() {
    let bin = |bytes: &[u8]| hardpack::to_vec(&serde_bytes::Bytes::new(bytes)).unwrap();
    assert_eq!(
        hardpack::derive::from_slice::<Rgb>(&bin(&[1, 2, 3])).unwrap(),
        Rgb(1, 2, 3)
    );
    assert_eq!(
        hardpack::derive::from_slice::<Pixel>(&bin(&[4, 5])).unwrap(),
        Pixel { red: 4, green: 5 }
    );
    for bytes in [&[][..], &[1, 2], &[1, 2, 3], &[1, 2, 3, 4]] {
        same_outcome::<Rgb>(&Decoder::default(), &bin(bytes));
        same_outcome::<Pixel>(&Decoder::default(), &bin(bytes));
    }
    let err = hardpack::derive::from_slice::<Rgb>(&bin(&[1, 2, 3, 4])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the bin has 1 bytes more than the type takes at byte 0, depth 0"
    );
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
struct ByteThenBytes<'a>(u8, #[serde(with = "serde_bytes")] &'a [u8]);

/// A struct whose second field borrows bytes, read from a bin: the first byte is the `u8`,
/// the second is not a byte string, and both paths refuse it in the same words.
#[test]
fn a_struct_of_borrowed_bytes_is_refused_from_a_bin() {
    let bin = hardpack::to_vec(&serde_bytes::Bytes::new(&[1, 7])).unwrap();
    same_outcome::<ByteThenBytes>(&Decoder::default(), &bin);
    assert!(hardpack::derive::from_slice::<ByteThenBytes>(&bin).is_err());
}

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq)]
enum Shape {
    Dot,
    Line(u8, u8),
    Box { width: u8 },
}

/// A variant named by a bin of its name or by its index, as serde's derived identifier reads
/// one; an unknown name, an index past the last variant, and a tuple variant written as a map
/// are refused at the same place as on the serde path.
#[test]
fn a_variant_is_named_by_its_name_its_bytes_or_its_index() {
    use hardpack::Value;
    let line = Value::from(vec![Value::from(1u8), Value::from(2u8)]);
    let tagged = |tag: Value, content: Value| hardpack::encode(&Value::from(vec![(tag, content)]));
    let documents = [
        tagged(Value::from(&b"Line"[..]), line.clone()),
        tagged(Value::from(&b"Lime"[..]), line.clone()),
        tagged(Value::from(1u8), line.clone()),
        tagged(
            Value::from(2u8),
            Value::from(vec![(Value::from("width"), Value::from(3u8))]),
        ),
        tagged(Value::from(3u8), line.clone()),
        tagged(Value::from(u64::MAX), line.clone()),
        tagged(
            Value::from("Line"),
            Value::from(vec![(Value::from(0u8), Value::from(1u8))]),
        ),
    ];
    for document in &documents {
        same_outcome::<Shape>(&Decoder::default(), document.as_ref().unwrap());
    }
    let read = |i: usize| hardpack::derive::from_slice::<Shape>(documents[i].as_ref().unwrap());
    assert_eq!(read(0).unwrap(), Shape::Line(1, 2));
    assert_eq!(read(2).unwrap(), Shape::Line(1, 2));
    assert_eq!(read(3).unwrap(), Shape::Box { width: 3 });
    assert_eq!(
        read(1).unwrap_err().to_string(),
        "unknown variant `Lime`, expected one of `Dot`, `Line`, `Box` at byte 1, depth 1"
    );
    assert!(read(4)
        .unwrap_err()
        .to_string()
        .starts_with("invalid value: integer `3`"));
    assert!(read(6)
        .unwrap_err()
        .to_string()
        .starts_with("invalid type: map, expected tuple variant Shape::Line"));
}

/// Runs read many elements at a time end where the sequence does: every length up to 40
/// of bools and of bytes (small and large), each claimed as itself and up to 9 more or fewer,
/// so that a run would cross the sequence's end if it miscounted.
#[test]
fn a_run_read_many_at_a_time_ends_where_its_sequence_ends() {
    for len in 0..=40usize {
        let bools: Vec<u8> = (0..len).map(|i| 0xc2 | (i % 3 == 0) as u8).collect();
        let bytes: Vec<u8> = (0..len)
            .flat_map(|i| {
                if i % 3 == 0 {
                    vec![0xcc, 0x80 | i as u8]
                } else {
                    vec![i as u8]
                }
            })
            .collect();
        let small: Vec<u8> = (0..len as u8).collect();
        for claimed in len.saturating_sub(9)..=len + 9 {
            for items in [&bools, &bytes, &small] {
                let mut doc = vec![0xdc];
                doc.extend_from_slice(&(claimed as u16).to_be_bytes());
                doc.extend_from_slice(items);
                for decoder in decoders() {
                    same_outcome::<Vec<bool>>(&decoder, &doc);
                    same_outcome::<Vec<u8>>(&decoder, &doc);
                    same_outcome::<(Vec<bool>, u8)>(&decoder, &[&[0x92][..], &doc].concat());
                    same_outcome::<(Vec<u8>, u8)>(&decoder, &[&[0x92][..], &doc].concat());
                }
            }
        }
    }
}

/// A variant named by a str is compared where it lies, and a nil stepped over: the same value
/// or the same error at the same place as the serde path's, under every decoder (a str
/// limit of 3 bytes refuses `Line`; a depth of 3 refuses the `Option`'s content).
#[test]
fn a_variant_named_by_a_str_and_a_nil_are_read_as_the_serde_path_reads_them() {
    let str_of = |name: &str| {
        let mut bytes = vec![0xa0 | name.len() as u8];
        bytes.extend_from_slice(name.as_bytes());
        bytes
    };
    let in_array = |items: &[Vec<u8>]| {
        let mut bytes = vec![0x90 | items.len() as u8];
        items.iter().for_each(|item| bytes.extend_from_slice(item));
        bytes
    };
    let dot = str_of("Dot");
    let documents = [
        dot.clone(),
        // A tuple variant, and a struct variant, named as a unit variant is.
        str_of("Line"),
        str_of("Box"),
        // No variant's name, one a byte short of one, and not UTF-8.
        str_of("Do"),
        str_of("Dots"),
        vec![0xa3, b'D', 0xff, b't'],
        // The same name in the str 8 form, and cut short.
        vec![0xd9, 3, b'D', b'o', b't'],
        dot[..2].to_vec(),
        in_array(&[dot.clone(), str_of("Box"), dot.clone()]),
        in_array(&[vec![0xc0], dot.clone(), vec![0xc0]]),
        in_array(&[in_array(&[in_array(std::slice::from_ref(&dot))])]),
        in_array(&[in_array(&[in_array(&[vec![0xc0]])])]),
    ];
    for document in &documents {
        for decoder in decoders() {
            same_outcome::<Shape>(&decoder, document);
            same_outcome::<Option<Shape>>(&decoder, document);
            same_outcome::<Vec<Shape>>(&decoder, document);
            same_outcome::<Vec<Option<Shape>>>(&decoder, document);
            same_outcome::<Vec<Vec<Vec<Option<Shape>>>>>(&decoder, document);
            same_outcome::<Vec<Option<u8>>>(&decoder, document);
        }
    }
    let read = |i: usize| hardpack::derive::from_slice::<Vec<Shape>>(&documents[i]);
    assert_eq!(
        read(8).unwrap_err().to_string(),
        "invalid type: unit variant, expected struct variant at byte 5, depth 1"
    );
    assert_eq!(
        hardpack::derive::from_slice::<Vec<Option<Shape>>>(&documents[9]).unwrap(),
        [None, Some(Shape::Dot), None]
    );
}

// Values with a bound on their bytes (numbers, and structs, tuples, arrays and enums of them)
// are written into room reserved for their bound; the bytes must be rmp-serde's
// and the serde path's all the same, in every form of every leaf and header.

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone, Copy)]
struct Leaves {
    a: u8,
    b: u16,
    c: u32,
    d: u64,
    e: i8,
    f: i16,
    g: i32,
    h: i64,
    i: f32,
    j: f64,
    k: bool,
    l: char,
    m: (),
    n: Option<u8>,
    o: (u8, i64),
    p: [i16; 3],
    q: usize,
    r: isize,
}

/// Seventeen fields: an array 16 header.
#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone, Copy)]
struct Seventeen(
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
    u8,
);

#[derive(Serialize, Deserialize, Encode, Decode, Debug, PartialEq, Clone, Copy)]
enum Bounded {
    Unit,
    /// A name longer than a fixstr holds: a str 8 header.
    AVariantWhoseNameIsLongerThanThirtyOneBytes,
    Newtype(i64),
    Tuple(u8, f32),
    Struct {
        x: i16,
        y: Option<bool>,
    },
    #[serde(rename = "é")]
    #[hardpack(rename = "é")]
    Renamed(Leaves),
}

/// Each leaf's every form: the values at the edges of each width.
fn leaves() -> Vec<Leaves> {
    let unsigned = [
        0u64,
        1,
        127,
        128,
        255,
        256,
        65_535,
        65_536,
        u32::MAX as u64,
        u64::MAX,
    ];
    let signed = [
        0i64,
        -1,
        -32,
        -33,
        -128,
        -129,
        -32_768,
        -32_769,
        i32::MIN as i64,
        i64::MIN,
        127,
        i64::MAX,
    ];
    let chars = ['a', 'é', '€', '🦀'];
    let mut all = Vec::new();
    for (i, &u) in unsigned.iter().enumerate() {
        for (j, &s) in signed.iter().enumerate() {
            all.push(Leaves {
                a: u as u8,
                b: u as u16,
                c: u as u32,
                d: u,
                e: s as i8,
                f: s as i16,
                g: s as i32,
                h: s,
                i: if j % 2 == 0 { f32::MAX } else { -0.5 },
                j: if i % 2 == 0 {
                    f64::MIN_POSITIVE
                } else {
                    f64::NAN
                },
                k: i % 2 == 0,
                l: chars[(i + j) % chars.len()],
                m: (),
                n: (j % 3 != 0).then_some(u as u8),
                o: (s as u8, s),
                p: [s as i16, u as i16, 0],
                q: u as usize,
                r: s as isize,
            });
        }
    }
    all
}

#[test]
fn a_bounded_value_is_written_as_the_serde_path_writes_it_in_every_form() {
    let leaves = leaves();
    for leaf in &leaves {
        let bytes = writes_as_serde(leaf);
        assert!(bytes.len() <= Leaves::MAX_LEN.unwrap());
    }
    writes_as_serde(&Seventeen(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 255,
    ));
    let variants = [
        Bounded::Unit,
        Bounded::AVariantWhoseNameIsLongerThanThirtyOneBytes,
        Bounded::Newtype(i64::MIN),
        Bounded::Tuple(200, 1.5),
        Bounded::Struct { x: -300, y: None },
        Bounded::Renamed(leaves[17]),
    ];
    for variant in &variants {
        let bytes = writes_as_serde(variant);
        assert!(bytes.len() <= Bounded::MAX_LEN.unwrap(), "{variant:?}");
    }
    // Sequences written a run at a time: shorter than a run, and across many runs.
    for len in [0, 1, 3, 4, 5, 7, 8, 100, 1_000] {
        let seq: Vec<Leaves> = leaves.iter().cycle().take(len).copied().collect();
        writes_as_serde(&seq);
        let seq: Vec<Bounded> = variants.iter().cycle().take(len).copied().collect();
        writes_as_serde(&seq);
        let seq: Vec<u8> = (0..len).map(|i| (i * 37) as u8).collect();
        writes_as_serde(&seq);
    }
    writes_as_serde(&[leaves[3]; 20]);
    writes_as_serde(&[(1u8, -1i8); 16]);
}

#[test]
fn the_bounds_are_the_widest_forms() {
    assert_eq!(<u8 as Encode>::MAX_LEN, Some(2));
    assert_eq!(<u16 as Encode>::MAX_LEN, Some(3));
    assert_eq!(<u32 as Encode>::MAX_LEN, Some(5));
    assert_eq!(<u64 as Encode>::MAX_LEN, Some(9));
    assert_eq!(<i8 as Encode>::MAX_LEN, Some(2));
    assert_eq!(<i64 as Encode>::MAX_LEN, Some(9));
    assert_eq!(<f32 as Encode>::MAX_LEN, Some(5));
    assert_eq!(<f64 as Encode>::MAX_LEN, Some(9));
    assert_eq!(<bool as Encode>::MAX_LEN, Some(1));
    assert_eq!(<char as Encode>::MAX_LEN, Some(5));
    assert_eq!(<() as Encode>::MAX_LEN, Some(1));
    assert_eq!(<Option<u64> as Encode>::MAX_LEN, Some(9));
    assert_eq!(<(u8, u8) as Encode>::MAX_LEN, Some(5));
    // An array 16 header and sixteen uint 32s.
    assert_eq!(<[u32; 16] as Encode>::MAX_LEN, Some(3 + 16 * 5));
    // An array header, 17 fields of at most 2 bytes each.
    assert_eq!(<Seventeen as Encode>::MAX_LEN, Some(3 + 17 * 2));
    // A map of one entry, a str 8 of the 43-byte name and an int 64.
    assert_eq!(
        <Bounded as Encode>::MAX_LEN.map(|n| n >= 1 + 2 + 43 + 9),
        Some(true)
    );
    // No bound: lengths the value chooses, indirection, and fields written by functions.
    assert_eq!(<String as Encode>::MAX_LEN, None);
    assert_eq!(<Vec<u8> as Encode>::MAX_LEN, None);
    assert_eq!(<Box<u8> as Encode>::MAX_LEN, None);
    assert_eq!(<&u8 as Encode>::MAX_LEN, None);
    assert_eq!(<Reading as Encode>::MAX_LEN, None);
    assert_eq!(<Option<Box<Link>> as Encode>::MAX_LEN, None);
}

/// A bound that is wrong (a hand-written implementation claiming fewer bytes than it
/// writes): a broken invariant, loud in a debug build; a release build writes the value
/// through the `Vec` instead, and the bytes are still right.
struct Understated(u32);

impl Encode for Understated {
    const MAX_LEN: Option<usize> = Some(1);

    fn encode(&self, out: &mut Vec<u8>) -> Result<(), hardpack::error::EncodeError> {
        self.0.encode(out)
    }
}

#[derive(Encode)]
struct HoldsUnderstated {
    inner: Understated,
}

#[test]
#[cfg_attr(
    debug_assertions,
    should_panic(expected = "hardpack internal invariant broken: a bounded encoding longer")
)]
fn a_wrong_bound_is_caught_and_the_value_written_in_full() {
    let bytes = hardpack::derive::to_vec(&HoldsUnderstated {
        inner: Understated(u32::MAX),
    })
    .unwrap();
    assert_eq!(bytes, hardpack::to_vec(&(u32::MAX,)).unwrap());
}

#[test]
#[cfg_attr(
    debug_assertions,
    should_panic(expected = "hardpack internal invariant broken: a bounded encoding longer")
)]
fn a_wrong_bound_in_a_long_sequence_loses_no_element() {
    // 1,200 elements claiming a byte each are written in runs of 512; the one that does not
    // fit is early in the first run, and every element after it, in every run, is written.
    let values: Vec<u32> = (0..1_200u32)
        .map(|i| if i == 10 { u32::MAX } else { i % 100 })
        .collect();
    let sequence: Vec<Understated> = values.iter().copied().map(Understated).collect();
    let bytes = hardpack::derive::to_vec(&sequence).unwrap();
    assert_eq!(bytes.len(), 3 + 1_199 + 5);
    assert_eq!(bytes, hardpack::to_vec(&values).unwrap());
}
