//! The borrowed surfaces (`ValueRef` and the token reader) give the owned decoder's verdict
//! and value on random documents (the shared attacks run through every surface in
//! `surfaces.rs`); a `ValueRef` is walked without recursion.

use hardpack::{
    decode, decode::Token, decode::TokenReader, decode_prefix, decode_ref, encode, Decoder, Error,
    ErrorKind, Limit, Limits, Value,
};
use proptest::prelude::*;

mod common;
use common::documents;

/// True for the errors where a borrowing surface may differ from the owned decode: it
/// charges what it allocates itself, not what the owned decode would.
fn budget_error(e: &Error) -> bool {
    e.limit() == Some(Limit::AllocBytes) || matches!(e.kind(), ErrorKind::OutOfMemory { .. })
}

/// The tokens of the first value in `input`, and the bytes they took.
fn first_value_tokens<'a>(
    input: &'a [u8],
    limits: &Limits,
) -> Result<(Vec<Token<'a>>, usize), Error> {
    let mut reader = TokenReader::new(input, limits);
    let mut tokens = Vec::new();
    loop {
        match reader.next_token()? {
            Some((_, token)) => tokens.push(token),
            None => {
                // The input ended between values: only an empty input does that first.
                return Err(decode_prefix(input).unwrap_err());
            }
        }
        if reader.depth() == 0 {
            return Ok((tokens, reader.position()));
        }
    }
}

/// The owned decode, the borrowed decode and the token reader agree on `input`.
fn agree(limits: &Limits, input: &[u8]) {
    let decoder = Decoder::new(limits.clone());
    let owned = decoder.decode_prefix(input);
    let borrowed = decoder.decode_ref_prefix(input);
    match (&owned, &borrowed) {
        (Ok((value, used)), Ok((doc, used_ref))) => {
            assert_eq!(used, used_ref, "{input:02x?}");
            assert!(*doc == *value, "{doc:?} != {value:?}");
            assert_eq!(doc.to_owned(), *value);
            assert_eq!(doc.encode(), encode(value).unwrap());
            assert_eq!(doc.shape(), value.shape());
            assert_eq!(format!("{doc:?}"), format!("{value:?}"));
            assert_eq!(doc.to_string(), value.to_string());
            assert_eq!(doc.clone(), *doc);
        }
        (Err(a), Err(b)) if budget_error(a) || budget_error(b) => {}
        (Err(a), Err(b)) => assert_eq!(a, b, "{input:02x?}"),
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => {
            assert!(budget_error(e), "one surface refused {input:02x?}: {e}")
        }
    }
    match (&owned, first_value_tokens(input, limits)) {
        (Ok((value, used)), Ok((tokens, read))) => {
            assert_eq!(*used, read);
            let mut out = Vec::new();
            for token in &tokens {
                token.encode_into(&mut out);
            }
            assert_eq!(out, encode(value).unwrap(), "tokens {tokens:?}");
        }
        (Err(a), Err(b)) if budget_error(a) || budget_error(&b) => {}
        (Err(a), Err(b)) => assert_eq!(*a, b, "{input:02x?}"),
        (Err(e), Ok(_)) => assert!(
            budget_error(e),
            "the token reader accepted {input:02x?}: {e}"
        ),
        (Ok(_), Err(e)) => panic!("the token reader refused {input:02x?}: {e}"),
    }
}

#[test]
fn a_bomb_is_refused_where_the_decoder_refuses_it() {
    let mut bomb = vec![0x91u8; 10_000_000];
    bomb.push(0xc0);
    let err = decode_ref(&bomb).unwrap_err();
    assert_eq!(err, decode(&bomb).unwrap_err());
    assert_eq!(
        (err.limit(), err.offset(), err.depth()),
        (Some(Limit::Depth), 128, 128)
    );
    let err = TokenReader::new(&bomb, &Limits::default())
        .find_map(Result::err)
        .unwrap();
    assert_eq!(err, decode(&bomb).unwrap_err());
}

#[test]
fn a_huge_length_claim_is_refused_at_its_header() {
    let claim = [0xdb, 0xff, 0xff, 0xff, 0xff, b'a'];
    let err = decode_ref(&claim).unwrap_err();
    assert_eq!((err.limit(), err.offset()), (Some(Limit::StrLen), 0));
    // Above the limit, the room check: 4 GiB claimed, 1 byte there.
    let err = Decoder::new(Limits::unlimited())
        .decode_ref(&claim)
        .unwrap_err();
    assert_eq!(
        err.kind(),
        &ErrorKind::UnexpectedEnd {
            needed: 0xffff_ffff - 1
        }
    );
}

#[test]
fn a_million_empty_maps_cost_one_tape_item_each() {
    let mut maps = vec![0xdd, 0x00, 0x0f, 0x42, 0x40];
    maps.extend(std::iter::repeat_n(0x80, 1_000_000));
    let (doc, stats) = Decoder::default().decode_ref_with_stats(&maps).unwrap();
    assert_eq!(doc.shape().values, 1_000_001);
    // One tape item each (24 bytes on a 64-bit target, 16 on a 32-bit one), reserved once
    // when the array opened; and the first room for eight levels of open containers (a count
    // and a tape index each, a word apiece).
    let (item, word) = if cfg!(target_pointer_width = "64") {
        (24, 8)
    } else {
        (16, 4)
    };
    assert_eq!(stats.charged_bytes, item * 1_000_001 + 8 * (word + word));
    assert_eq!(doc.root().len(), Some(1_000_000));
}

#[test]
fn the_free_functions_decode_with_the_default_limits() {
    let input = [0x92, 0xa2, b'h', b'i', 0xc3, 0xc0];
    let (doc, used) = hardpack::decode::decode_ref_prefix(&input).unwrap();
    assert_eq!(used, 5);
    assert_eq!(doc.to_owned(), decode(&input[..5]).unwrap());
    assert_eq!(
        decode_ref(&input).unwrap_err().kind(),
        &ErrorKind::TrailingBytes { count: 1 }
    );
    // Past the default depth limit, as the default decoder refuses it.
    let mut deep = vec![0x91; Limits::default().max_depth + 1];
    deep.push(0xc0);
    let expected = Decoder::default().decode_ref_prefix(&deep).unwrap_err();
    assert_eq!(expected.limit(), Some(Limit::Depth));
    assert_eq!(
        hardpack::decode::decode_ref_prefix(&deep).unwrap_err(),
        expected
    );
}

#[test]
fn payloads_are_borrowed_from_the_input() {
    let mut input = vec![0x92, 0xc6, 0x00, 0x10, 0x00, 0x00];
    input.extend(std::iter::repeat_n(7u8, 1 << 20));
    input.extend([0xa3, b'a', b'b', b'c']);
    let (doc, stats) = Decoder::default().decode_ref_with_stats(&input).unwrap();
    let bin = doc.root().get(0).and_then(|n| n.as_bin()).unwrap();
    assert!(std::ptr::eq(bin.as_ptr(), input[6..].as_ptr()));
    assert_eq!(doc.root().get(1).and_then(|n| n.as_str()), Some("abc"));
    assert!(stats.charged_bytes < 1000, "{stats:?}");
}

#[test]
fn a_million_deep_value_ref_needs_no_native_stack() {
    let mut deep = vec![0x91u8; 1_000_000];
    deep.push(0xc0);
    std::thread::Builder::new()
        .stack_size(64 << 10)
        .spawn(move || {
            let decoder = Decoder::new(Limits::default().with(Limit::Depth, 1_000_000));
            let doc = decoder.decode_ref(&deep).unwrap();
            let copy = doc.clone();
            assert!(copy == doc);
            assert_eq!(doc.encode(), deep);
            assert_eq!(doc.shape().max_depth, 1_000_000);
            assert_eq!(format!("{doc}").len(), 2_000_004);
            let owned = doc.to_owned();
            assert!(doc == owned);
            let tokens = TokenReader::new(&deep, decoder.limits()).count();
            assert_eq!(tokens, 1_000_001);
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn nodes_read_like_values() {
    let value = Value::from_iter([
        ("n", Value::from(-3)),
        ("f", Value::from(1.5f32)),
        ("list", Value::from_iter([Value::from("x"), Value::Nil])),
        ("t", Value::from(true)),
    ]);
    let bytes = encode(&value).unwrap();
    let doc = decode_ref(&bytes).unwrap();
    let root = doc.root();
    assert_eq!(root.get("n").and_then(|n| n.as_i64()), Some(-3));
    assert_eq!(root.get("f").and_then(|n| n.as_f64()), Some(1.5));
    assert_eq!(root.get("t").and_then(|n| n.as_bool()), Some(true));
    let list: Vec<_> = root.get("list").unwrap().items().unwrap().collect();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].as_str(), Some("x"));
    assert!(list[1].is_nil());
    assert_eq!(root.get("missing"), None);
    assert_eq!(root.get(0), None);
    let keys: Vec<_> = root
        .entries()
        .unwrap()
        .map(|(k, _)| k.as_str().unwrap())
        .collect();
    assert_eq!(keys, ["n", "f", "list", "t"]);
    assert!(root.get("list").unwrap() == value["list"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn borrowed_surfaces_agree_with_decode_on_any_input(
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

#[test]
fn after_a_refusal_the_token_reader_stands_at_the_start_of_the_refused_item() {
    use hardpack::{decode::TokenReader, Limits};
    // [1, "ab" cut after one byte of its body]
    let input = [0x92, 0x01, 0xa2, b'a'];
    let mut reader = TokenReader::new(&input, &Limits::default());
    assert!(reader.next_token().unwrap().is_some());
    assert!(reader.next_token().unwrap().is_some());
    let err = reader.next_token().unwrap_err();
    assert_eq!(err.offset(), 2);
    assert_eq!(reader.position(), 2, "the end of the last token handed out");
    assert!(
        reader.next_token().unwrap().is_none(),
        "fused after an error"
    );
}

#[test]
fn nodes_name_their_kind_and_answer_every_accessor_as_values_do() {
    // One element of every kind, empty and non-empty containers among them.
    let doc = hardpack::msgpack!([
        nil, true, 1, (1.5f32), 2.5, "s", (vec![1u8]), [], [0], {}, {"k": 1}
    ]);
    let mut bytes = encode(&doc).unwrap();
    // And an ext and a timestamp, appended to the outer array (its count raised by two).
    bytes[0] += 2;
    bytes.extend_from_slice(&[0xd4, 0x05, 0x07, 0xd6, 0xff, 0, 0, 0, 1]);
    let owned = decode(&bytes).unwrap();
    let borrowed = decode_ref(&bytes).unwrap();
    let values = owned.as_array().unwrap();
    let nodes: Vec<_> = borrowed.root().items().unwrap().collect();
    assert_eq!(nodes.len(), 13);
    for (value, node) in values.iter().zip(&nodes) {
        assert_eq!(node.type_name(), value.type_name());
        let empty = match value {
            Value::Array(a) => Some(a.is_empty()),
            Value::Map(m) => Some(m.is_empty()),
            _ => None,
        };
        assert_eq!(node.is_empty(), empty == Some(true), "{value:?}");
        assert_eq!(node.len().is_some(), empty.is_some(), "{value:?}");
        // Each accessor answers only for its kind, with what the owned value holds.
        assert_eq!(node.is_nil(), value.is_nil(), "{value:?}");
        assert_eq!(node.as_bool(), value.as_bool(), "{value:?}");
        assert_eq!(node.as_integer(), value.as_integer(), "{value:?}");
        assert_eq!(node.as_u64(), value.as_u64(), "{value:?}");
        assert_eq!(node.as_i64(), value.as_i64(), "{value:?}");
        assert_eq!(node.as_f64(), value.as_f64(), "{value:?}");
        assert_eq!(node.as_str(), value.as_str(), "{value:?}");
        let str_bytes = value.as_str().map(str::as_bytes);
        assert_eq!(node.as_str_bytes(), str_bytes, "{value:?}");
        assert_eq!(node.as_bin(), value.as_bin(), "{value:?}");
        let ext = value.as_ext().map(|e| (e.ext_type(), e.data()));
        assert_eq!(node.as_ext(), ext, "{value:?}");
        assert_eq!(node.as_timestamp(), value.as_timestamp(), "{value:?}");
        assert_eq!(node.is_array(), value.is_array(), "{value:?}");
        assert_eq!(node.is_map(), value.is_map(), "{value:?}");
        assert_eq!(&node.to_owned(), value);
        assert_eq!(format!("{node:?}"), format!("{value:?}"));
        assert_eq!(node.to_string(), value.to_string());
    }
    // Iterators know their length; equality tells documents apart.
    let root = borrowed.root();
    assert_eq!(root.items().unwrap().len(), 13);
    assert_eq!(root.items().unwrap().size_hint(), (13, Some(13)));
    assert_eq!(nodes[10].entries().unwrap().len(), 1);
    let other_bytes = encode(&hardpack::msgpack!([nil])).unwrap();
    let other = decode_ref(&other_bytes).unwrap();
    assert!(borrowed == decode_ref(&bytes).unwrap() && borrowed == owned);
    assert!(borrowed != other, "ValueRef == ValueRef");
    assert!(borrowed != Value::Nil, "ValueRef == Value");
    assert!(
        nodes[1] == Value::Bool(true) && nodes[1] != Value::Bool(false),
        "Node == Value"
    );
    let other_nil = other.root().get(0).unwrap();
    assert!(
        nodes[0] == other_nil && nodes[1] != other_nil,
        "Node == Node"
    );
    let names: Vec<_> = nodes.iter().map(|n| n.type_name()).collect();
    assert_eq!(
        names,
        [
            "nil",
            "bool",
            "integer",
            "f32",
            "f64",
            "str",
            "bin",
            "array",
            "array",
            "map",
            "map",
            "ext",
            "timestamp"
        ]
    );
}
