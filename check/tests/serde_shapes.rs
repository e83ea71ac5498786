//! The tracer gets through every shape serde derives and users write: internally, adjacently
//! and untagged enums, flatten, validating hand-written `Deserialize` impls, `try_from`,
//! borrowed fields; and the valid documents written from the trace decode with hardpack and
//! rmp-serde, one for every variant.

use std::borrow::Cow;
use std::collections::BTreeMap;

use hardpack_check::shape::{trace, Container, Shape};
use hardpack_check::{for_type, Payload};

mod common;
use common::Hash;
use serde::{Deserialize, Deserializer};

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(tag = "type")]
enum Message {
    Ping,
    Data { id: u32, body: String },
    Batch { items: Vec<u64> },
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(tag = "t", content = "c")]
enum Command {
    Stop,
    Move(i32),
    Rename { from: String, to: String },
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Envelope {
    version: u8,
    message: Message,
    command: Command,
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct WithExtra {
    event_id: String,
    level: u8,
    #[serde(flatten)]
    extra: BTreeMap<String, serde_json::Value>,
}

/// A frame whose body may not be longer than its length says.
#[allow(dead_code)]
#[derive(Debug)]
struct Frame {
    len: u32,
    body: Vec<u8>,
}

impl<'de> Deserialize<'de> for Frame {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            len: u32,
            #[serde(with = "serde_bytes")]
            body: Vec<u8>,
        }
        let raw = Raw::deserialize(d)?;
        if raw.len == 0 || raw.body.len() > raw.len as usize {
            return Err(serde::de::Error::custom(
                "a frame's len must be positive and cover its body",
            ));
        }
        Ok(Frame {
            len: raw.len,
            body: raw.body,
        })
    }
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(try_from = "String")]
struct Email(String);

impl TryFrom<String> for Email {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        if s.contains('@') {
            Ok(Email(s))
        } else {
            Err(format!("`{s}` is not an email address"))
        }
    }
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Validated {
    block_hash: Hash,
    frame: Frame,
    owner_email: Email,
    #[serde(default)]
    retries: u16,
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Borrowed<'a> {
    name: &'a str,
    #[serde(borrow)]
    label: Cow<'a, str>,
    #[serde(with = "serde_bytes")]
    raw: &'a [u8],
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum Loose {
    Number(i64),
    Text(String),
    Pair { key: String, value: u32 },
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(transparent)]
struct Id(u64);

type Pair = (Id, String);

/// The valid documents written from `T`'s trace: each decodes with hardpack and rmp-serde.
fn valid_documents_decode<T: Deserialize<'static>>() -> Vec<Payload> {
    let payloads = for_type::<T>().unwrap();
    let valid: Vec<Payload> = payloads
        .iter()
        .filter(|p| !p.reaches.is_empty())
        .cloned()
        .collect();
    assert!(!valid.is_empty());
    for p in &valid {
        let bytes: &'static [u8] = Box::leak(p.bytes.clone().into_vec().into_boxed_slice());
        if let Err(e) = hardpack::from_slice::<T>(bytes) {
            panic!("{p:?}: hardpack: {e}");
        }
        if let Err(e) = rmp_serde::from_slice::<T>(bytes) {
            panic!("{p:?}: rmp-serde: {e}");
        }
    }
    valid
}

fn samples_at(shape: &Shape) -> Vec<String> {
    match shape {
        Shape::Sampled(samples) => samples.iter().map(|s| s.to_string()).collect(),
        other => panic!("not sampled: {other:?}"),
    }
}

fn fields(traced: &hardpack_check::shape::Traced, name: &str) -> Vec<(String, Shape)> {
    match &traced.containers[name] {
        Container::Struct(fields) => fields.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn internally_and_adjacently_tagged_enums_get_a_sample_for_every_variant() {
    let traced = trace::<Envelope>().unwrap();
    let fields = fields(&traced, "Envelope");
    // In the order the search found them, which numbers them (`@1`): compared as a set.
    let mut message_samples = samples_at(&fields[1].1);
    message_samples.sort();
    assert_eq!(
        message_samples,
        [
            // An empty sequence is filled once, so an attack on its element reaches one.
            r#"{"type": "Batch", "items": [0]}"#,
            r#"{"type": "Batch", "items": []}"#,
            r#"{"type": "Data", "id": 0, "body": ""}"#,
            r#"{"type": "Ping"}"#,
            // serde takes a variant's index for its tag too: a form an attacker can send.
            r#"{"type": 0}"#,
        ]
    );
    assert_eq!(
        samples_at(&fields[2].1),
        [
            r#"{"t": "Stop"}"#,
            r#"{"t": "Move", "c": 0}"#,
            r#"{"t": "Rename", "c": {"from": "", "to": ""}}"#
        ]
    );
    let valid = valid_documents_decode::<Envelope>();
    // One valid document a variant beyond the first.
    assert!(
        valid.iter().any(|p| p.id == "Envelope.message@2.valid"),
        "{valid:#?}"
    );
    assert!(
        valid.iter().any(|p| p.id == "Envelope.command@2.valid"),
        "{valid:#?}"
    );
}

#[test]
fn the_attacks_reach_inside_each_variant() {
    let payloads = for_type::<Envelope>().unwrap();
    // A 4 GiB claim at the str inside the Data variant, and the largest u32 at its id.
    let claim = payloads
        .iter()
        // The sample of `Data`, whichever number the search gave it.
        .find(|p| p.id.starts_with("Envelope.message@") && p.id.ends_with(".body.str32-max"))
        .expect("a claim inside the variant");
    let err = hardpack::from_slice::<Envelope>(&claim.bytes).unwrap_err();
    assert_eq!(err.limit(), Some(hardpack::Limit::StrLen), "{err}");
    assert!(err.offset() >= claim.offset.unwrap(), "{err}");
    let id = payloads
        .iter()
        .find(|p| p.id == "Envelope.command@2.c.to.wrong-type")
        .expect("an attack inside the adjacently tagged content");
    assert!(hardpack::from_slice::<Envelope>(&id.bytes).is_err());
}

#[test]
fn a_flattened_struct_is_searched_as_a_map() {
    let traced = trace::<WithExtra>().unwrap();
    assert_eq!(
        samples_at(&traced.root),
        [r#"{"event_id": "", "level": 0}"#]
    );
    valid_documents_decode::<WithExtra>();
}

#[test]
fn validating_deserialize_impls_get_values_they_accept() {
    let traced = trace::<Validated>().unwrap();
    let fields = fields(&traced, "Validated");
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["blockHash", "frame", "ownerEmail", "retries"]);
    // The hash's length comes from its refusal ("expected 32 bytes").
    assert_eq!(samples_at(&fields[0].1), ["bin(32 bytes)"]);
    // The frame's len must be positive: the first value that passes.
    let raw = fields.iter().find(|(n, _)| n == "frame").unwrap();
    assert_eq!(raw.1, Shape::Named("Raw".into()));
    assert_eq!(
        self::fields(&traced, "Raw")[0].1,
        Shape::Sampled(vec![hardpack_check::sample::Sample::Int(1)])
    );
    // try_from: a str with an @.
    assert_eq!(samples_at(&fields[2].1), [r#""a@b.c""#]);
    valid_documents_decode::<Validated>();
}

#[test]
fn borrowed_fields_are_traced() {
    let traced = trace::<Borrowed<'static>>().unwrap();
    let fields = fields(&traced, "Borrowed");
    assert_eq!(fields[0].1, Shape::Str);
    assert_eq!(fields[1].1, Shape::Str);
    assert_eq!(fields[2].1, Shape::Bytes);
    valid_documents_decode::<Borrowed<'static>>();
}

#[test]
fn an_untagged_enum_gets_the_kinds_it_accepts_and_says_what_it_could_not_name() {
    let traced = trace::<Loose>().unwrap();
    // Number and Text are found; the struct variant says nothing when refused (serde's
    // untagged error names no field), so only a sample reaches it.
    assert_eq!(samples_at(&traced.root), ["0", r#""""#, "bin(0 bytes)"]);
    valid_documents_decode::<Loose>();
}

#[test]
fn transparent_and_tuple_aliases_are_named_as_written() {
    let payloads = for_type::<Pair>().unwrap();
    assert!(
        payloads.iter().any(|p| p.id == "(Id,String).1.str32-max"),
        "{payloads:#?}"
    );
    valid_documents_decode::<Pair>();
}

/// rmp-serde's (and hardpack's) ext: a newtype struct of that name around (type, bytes).
#[allow(dead_code)]
#[derive(Deserialize, Debug)]
#[serde(rename = "_ExtStruct")]
struct Ext((i8, serde_bytes::ByteBuf));

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct WithExt {
    id: u8,
    attachment: Ext,
}

#[test]
fn an_ext_is_written_as_an_ext_and_gets_ext_claims() {
    let valid = valid_documents_decode::<WithExt>();
    assert!(valid.iter().any(|p| p.bytes.contains(&0xd4)), "{valid:#?}");
    let payloads = for_type::<WithExt>().unwrap();
    let claim = payloads
        .iter()
        .find(|p| p.id == "WithExt.attachment.ext32-max")
        .expect("an ext claim");
    let err = hardpack::from_slice::<WithExt>(&claim.bytes).unwrap_err();
    assert!(err.offset() >= claim.offset.unwrap(), "{err}");
}
