//! Typed decoding under its limits: depth (containers, `Option`s and newtypes, on a small
//! thread), the budget (`size_of` charges, size hints), and a type that misuses what it is
//! handed.

use std::collections::BTreeMap;

use serde::Deserialize;

mod common;
use common::Tree;

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
fn from_slice_with_stats_reports_what_was_taken_and_charged() {
    let decoder = hardpack::Decoder::default();
    // Three u64 elements, each charged size_of::<u64>() before it is handed out; a byte left.
    let (v, stats) = decoder
        .from_slice_with_stats::<Vec<u64>>(&[0x93, 0x01, 0x02, 0x03, 0xc0])
        .unwrap();
    assert_eq!(v, [1, 2, 3]);
    assert_eq!(stats.consumed, 4);
    assert_eq!(stats.charged_bytes, 3 * size_of::<u64>());
    // The same refusals as from_slice_prefix.
    let err = decoder
        .from_slice_with_stats::<Vec<u64>>(&[0xdd, 0xff, 0xff, 0xff, 0xff])
        .unwrap_err();
    assert_eq!(
        err,
        decoder
            .from_slice_prefix::<Vec<u64>>(&[0xdd, 0xff, 0xff, 0xff, 0xff])
            .unwrap_err()
    );
}
