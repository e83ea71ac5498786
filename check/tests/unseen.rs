//! Nothing the kit did not see is called hardened: a variant the tracer cannot build is a
//! gap naming it, in every position its enum takes; a generic used with two parameters is two
//! shapes, not a recursion; a place that accepted every value tried is listed as unseen
//! inside; a place no payload reached under the decoder being checked fails the check.

use std::collections::BTreeMap;

use hardpack_check::shape::{trace, Container, Traced, UnseenKind, Variant};
use hardpack_check::{check, CountingAlloc};
use serde::{Deserialize, Deserializer, Serialize};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Parsed from a string by a hand-written impl (a range syntax): refuses what the tracer
/// tries, and its refusal names nothing to try.
#[derive(Debug, Serialize)]
struct Picky(String);

impl<'de> Deserialize<'de> for Picky {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.starts_with("r:") && s.len() == 7 {
            Ok(Picky(s))
        } else {
            Err(serde::de::Error::custom("bad range syntax"))
        }
    }
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, Serialize)]
enum E {
    A(u8),
    B(Picky),
    C(Vec<u8>),
    D { x: u8 },
}

/// The variants of `E` the trace recorded content for, by name.
fn traced_variants(traced: &Traced, key: &str) -> Vec<String> {
    let Some(Container::Enum(variants)) = traced.containers.get(key) else {
        panic!("no enum {key}: {:#?}", traced.containers);
    };
    variants
        .iter()
        .filter(|(_, content)| content.is_some())
        .map(|(name, _)| name.clone())
        .collect()
}

fn unseen_variants(traced: &Traced) -> Vec<String> {
    traced
        .unseen
        .iter()
        .filter(|u| u.kind == UnseenKind::Variant)
        .map(|u| u.place.clone())
        .collect()
}

#[test]
fn a_variant_the_tracer_cannot_build_is_a_gap_naming_it_and_its_refusal() {
    let traced = trace::<E>().unwrap();
    assert_eq!(traced_variants(&traced, "E"), ["A", "C", "D"]);
    assert_eq!(unseen_variants(&traced), ["E::B"]);
    assert!(
        traced.unseen[0].why.contains("bad range syntax"),
        "{:?}",
        traced.unseen
    );
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Outer {
    X(u8),
    Y(E),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Holder<T> {
    ts: u64,
    value: T,
}

/// The same enum in every position a type can hold it: each variant is traced (or named as
/// unseen) the same way wherever it sits.
#[test]
fn every_variant_is_traced_in_every_position() {
    fn same<T: Deserialize<'static>>() {
        let traced = trace::<T>().unwrap();
        let name = std::any::type_name::<T>();
        assert_eq!(traced_variants(&traced, "E"), ["A", "C", "D"], "{name}");
        assert_eq!(unseen_variants(&traced), ["E::B"], "{name}");
    }
    same::<Vec<E>>();
    same::<Option<E>>();
    same::<BTreeMap<String, E>>();
    same::<(u8, E)>();
    same::<Vec<Vec<E>>>();
    same::<Holder<E>>();
    same::<Outer>();
    same::<Vec<Outer>>();
}

/// A recursive value enum nested in a variant of another enum, inside a sequence: every one
/// of its variants is traced, not only the first.
#[derive(Deserialize)]
#[allow(dead_code)]
enum Value {
    Nil,
    Bool(bool),
    Int(i64),
    Str(String),
    List(Vec<Value>),
    Record(BTreeMap<String, Value>),
    Pair(Box<Value>, Box<Value>),
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum PluginOutput {
    Nothing,
    Value(Value),
    Stream { id: u64, first: Option<Value> },
}

#[test]
fn a_recursive_value_enum_nested_in_another_enum_has_every_variant_traced() {
    let traced = trace::<Vec<PluginOutput>>().unwrap();
    assert_eq!(
        traced_variants(&traced, "Value"),
        ["Nil", "Bool", "Int", "Str", "List", "Record", "Pair"]
    );
    assert_eq!(
        traced_variants(&traced, "PluginOutput"),
        ["Nothing", "Value", "Stream"]
    );
    assert!(unseen_variants(&traced).is_empty(), "{:?}", traced.unseen);
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Lww<T> {
    ts: u64,
    v: T,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Inner {
    b: Lww<u8>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct OuterLww {
    a: Lww<Inner>,
}

#[test]
fn a_generic_used_with_two_parameters_is_two_shapes_not_a_recursion() {
    let traced = trace::<OuterLww>().unwrap();
    let lww: Vec<&String> = traced
        .containers
        .keys()
        .filter(|k| k.starts_with("Lww"))
        .collect();
    assert_eq!(lww.len(), 2, "{:#?}", traced.containers);
    // Each holds what its parameter is: one an Inner, the other a u8.
    let holds: Vec<String> = lww
        .iter()
        .map(|k| match &traced.containers[*k] {
            Container::Struct(fields) => format!("{:?}", fields[1].1),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(holds.iter().any(|h| h.contains("Inner")), "{holds:?}");
    assert!(holds.iter().any(|h| h.contains("bits: 8")), "{holds:?}");
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Wrapped {
    Leaf(u8),
    Both(Lww<Lww<u8>>),
}

#[test]
fn a_generic_inside_a_variant_keeps_the_variant() {
    let traced = trace::<Wrapped>().unwrap();
    assert_eq!(traced_variants(&traced, "Wrapped"), ["Leaf", "Both"]);
    assert!(traced.unseen.is_empty(), "{:?}", traced.unseen);
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Tree {
    name: String,
    kids: Vec<Tree>,
}

#[test]
fn a_real_recursion_is_still_one_shape() {
    let traced = trace::<Tree>().unwrap();
    assert_eq!(traced.containers.len(), 1, "{:#?}", traced.containers);
}

/// A registry entry whose variants are untagged, with a catch-all for what it does not know.
#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum RegistryEntry {
    Plugin {
        name: String,
        version: u32,
    },
    #[serde(deserialize_with = "serde::de::IgnoredAny::deserialize")]
    Unknown(serde::de::IgnoredAny),
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Registry {
    entries: Vec<RegistryEntry>,
}

#[test]
fn an_untagged_enum_with_a_catch_all_is_listed_as_unseen_inside() {
    let traced = trace::<Registry>().unwrap();
    let unseen: Vec<_> = traced
        .unseen
        .iter()
        .filter(|u| u.kind == UnseenKind::AcceptedAnything)
        .collect();
    assert_eq!(unseen.len(), 1, "{:?}", traced.unseen);
    assert_eq!(unseen[0].place, "Registry.entries[]");
    assert!(unseen[0].why.contains("catch-all"), "{}", unseen[0].why);
}

#[test]
fn a_value_type_accepts_anything_and_is_listed_not_failed() {
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Event {
        kind: String,
        payload: hardpack::Value,
    }
    let traced = trace::<Event>().unwrap();
    let kinds: Vec<_> = traced
        .unseen
        .iter()
        .map(|u| (u.place.as_str(), u.kind))
        .collect();
    assert_eq!(kinds, [("Event.payload", UnseenKind::AnyValue)]);
}

#[test]
fn a_check_with_an_unbuilt_variant_is_not_hardened_and_names_it() {
    let report = check::<E>().run();
    assert!(report.broken().is_empty(), "{}", report.text());
    let why = report.untested().expect("E::B was never built");
    assert!(why.contains("E::B"), "{why}");
    assert!(why.contains("bad range syntax"), "{why}");
    assert!(!report.is_hardened());
    // The places list every variant, B unreached.
    let places = report.places();
    for variant in ["E::A", "E::B", "E::C", "E::D"] {
        assert!(
            places.iter().any(|p| p.place == variant),
            "{variant} missing: {places:#?}"
        );
    }
    let b = places.iter().find(|p| p.place == "E::B").unwrap();
    assert_eq!(b.reached_by, None);
    assert!(report.text().contains("E::B"), "{}", report.text());
}

#[test]
fn a_sample_holding_the_variant_lets_the_tracer_build_it() {
    let report = check::<Vec<E>>()
        .sample(&vec![E::B(Picky("r:10-20".into()))])
        .run();
    assert!(report.untested().is_none(), "{}", report.text());
    let places = report.places();
    let b = places.iter().find(|p| p.place == "Vec[]::B").unwrap();
    assert!(b.reached_by.is_some(), "{places:#?}");
    report.assert_hardened();
}

#[test]
fn an_unbuilt_variant_has_no_content_in_the_shape() {
    let traced = trace::<E>().unwrap();
    let Container::Enum(variants) = &traced.containers["E"] else {
        panic!()
    };
    assert_eq!(variants[1], ("B".to_string(), None));
    assert_eq!(
        variants[3].1,
        Some(Variant::Struct(vec![(
            "x".into(),
            hardpack_check::shape::Shape::Int {
                signed: false,
                bits: 8
            }
        )]))
    );
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Section {
    name: String,
    settings: BTreeMap<String, Setting>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
enum Setting {
    Flag(bool),
    Nested(Box<Section>),
}

#[test]
fn a_variant_that_recurses_through_a_struct_is_traced() {
    let traced = trace::<Section>().unwrap();
    assert_eq!(traced_variants(&traced, "Setting"), ["Flag", "Nested"]);
    let Container::Enum(variants) = &traced.containers["Setting"] else {
        panic!()
    };
    assert_eq!(
        variants[1].1,
        Some(Variant::Newtype(hardpack_check::shape::Shape::Named(
            "Section".into()
        )))
    );
}

/// A decoder that reads the type but refuses any document naming the `Record` variant: the
/// places under it are reached by nothing, whatever else decodes.
#[test]
fn places_no_payload_reached_under_the_decoder_fail_the_check() {
    let report = check::<Vec<Value>>()
        .decoder("rmp-serde without records", |bytes| {
            if bytes.windows(7).any(|w| w == b"\xa6Record") {
                return Err("records refused".to_string());
            }
            rmp_serde::from_slice::<Vec<Value>>(bytes).map_err(|e| e.to_string())
        })
        .run();
    let why = report
        .untested()
        .expect("the places under Record were not reached");
    assert!(
        why.contains("never reached under rmp-serde without records"),
        "{why}"
    );
    assert!(why.contains("`Value::Record`"), "{why}");
    let open: Vec<&str> = report.ledger.open().iter().map(|l| l.name()).collect();
    assert!(
        open.iter().all(|place| place.starts_with("Value::Record")),
        "only Record's places are open: {open:?}"
    );
    assert!(!report.is_hardened());
    // What was reached is still reached: the list variant decoded.
    let places = report.places();
    let list = places.iter().find(|p| p.place == "Vec[]::List").unwrap();
    assert!(list.reached_by.is_some(), "{places:#?}");
}

/// From an end-to-end encrypted chat server's messages: two variants hold a nonce that
/// deserializes from bytes of exactly its length, so the tracer cannot build them. The kit
/// once called this type hardened with both variants unseen.
#[derive(Debug, Deserialize, Serialize)]
#[allow(dead_code)]
enum ServerMessage {
    PeerDisconnected(String),
    ChatInvite {
        recipient: String,
        message: Vec<u8>,
        nonce: Nonce,
    },
    ErrorMessage(String),
}

/// sodiumoxide's nonce: bytes, refused unless exactly 24 long.
#[derive(Debug)]
struct Nonce([u8; 24]);

impl Serialize for Nonce {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Nonce {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = serde_bytes::ByteBuf::deserialize(d)?;
        let array: [u8; 24] = bytes.as_slice().try_into().map_err(|_| {
            serde::de::Error::invalid_length(bytes.len(), &"a nonce of its exact length")
        })?;
        Ok(Nonce(array))
    }
}

#[test]
fn a_real_message_with_an_unbuildable_variant_is_not_called_hardened() {
    let report = check::<ServerMessage>().run();
    let why = report.untested().expect("ChatInvite was never built");
    assert!(why.contains("ServerMessage::ChatInvite"), "{why}");
}

#[test]
fn a_sample_builds_the_real_message_s_variant() {
    let report = check::<ServerMessage>()
        .sample(&ServerMessage::ChatInvite {
            recipient: "bob".into(),
            message: vec![1, 2, 3],
            nonce: Nonce([7; 24]),
        })
        .run();
    assert!(report.untested().is_none(), "{}", report.text());
    let places = report.places();
    let nonce = places
        .iter()
        .find(|p| p.place == "ServerMessage::ChatInvite.nonce")
        .expect("the nonce is a place once built");
    assert!(nonce.reached_by.is_some(), "{places:#?}");
    report.assert_hardened();
}

/// From a log shipper's fluentd forward protocol: untagged tuple variants, and a last
/// variant that takes any value. The kit once called this type hardened, every value tried
/// taken by the catch-all.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
enum FluentMessage {
    Message(String, u64, BTreeMap<String, hardpack::Value>),
    Forward(String, Vec<(u64, BTreeMap<String, hardpack::Value>)>),
    Heartbeat(hardpack::Value),
}

#[test]
fn a_real_untagged_message_with_a_catch_all_is_not_called_hardened_without_samples() {
    let report = check::<FluentMessage>().run();
    assert!(report.broken().is_empty(), "{}", report.text());
    let why = report
        .untested()
        .expect("the catch-all took every value tried");
    assert!(why.contains("opaque"), "{why}");
    assert!(why.contains("accepted every kind of value tried"), "{why}");
    // The text lists the open place and why, as the ledger has it.
    let text = report.text();
    assert!(
        text.contains("NOT TESTED: 1 of the type's 1 places open"),
        "{text}"
    );
    assert!(
        text.contains("open: `the root` (any value): opaque"),
        "{text}"
    );
}

#[test]
fn a_captured_message_lets_the_untagged_catch_all_be_checked() {
    // A captured message is attacked node by node in its own place.
    let message = [
        &[0x93, 0xa7][..],
        b"app.log",
        &[0xce, 0x55, 0xec, 0xe6, 0xf8, 0x81, 0xa3],
        b"log",
        &[0xa5],
        b"hello",
    ]
    .concat();
    let report = check::<FluentMessage>()
        .sample_bytes("message", message)
        .run();
    assert!(report.untested().is_none(), "{}", report.text());
    report.assert_hardened();
}
