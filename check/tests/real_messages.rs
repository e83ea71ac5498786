//! Two message types copied from public projects that decode MessagePack, each with a
//! hand-written `Deserialize` the tracer cannot see through, checked as their users would:
//! without samples the kit says it could not test them, and with captured messages it
//! attacks what they hold. One of them has a real bug the samples find.

use std::fmt;

use hardpack_check::{check, CountingAlloc};
use rmpv::Value;
use serde::de::{self, SeqAccess, Unexpected, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Serialize};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// An LSP client's Neovim messages (msgpack-rpc): a visitor of a sequence whose first
/// element picks the message.
// The project's names, kept as they are.
#[allow(clippy::enum_variant_names)]
#[derive(Debug, PartialEq, Clone)]
enum NvimMessage {
    RpcRequest {
        msgid: u64,
        method: String,
        params: Vec<Value>,
    },
    RpcResponse {
        msgid: u64,
        error: Value,
        result: Value,
    },
    RpcNotification {
        method: String,
        params: Vec<Value>,
    },
}

impl Serialize for NvimMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        match self {
            NvimMessage::RpcRequest {
                msgid,
                method,
                params,
            } => {
                seq.serialize_element(&0)?;
                seq.serialize_element(msgid)?;
                seq.serialize_element(method)?;
                seq.serialize_element(params)?;
            }
            NvimMessage::RpcResponse {
                msgid,
                error,
                result,
            } => {
                seq.serialize_element(&1)?;
                seq.serialize_element(msgid)?;
                seq.serialize_element(error)?;
                seq.serialize_element(result)?;
            }
            NvimMessage::RpcNotification { method, params } => {
                seq.serialize_element(&2)?;
                seq.serialize_element(method)?;
                seq.serialize_element(params)?;
            }
        }
        seq.end()
    }
}

struct RpcVisitor;

impl<'de> Visitor<'de> for RpcVisitor {
    type Value = NvimMessage;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("seq (tag, [msgid], method, params)")
    }

    fn visit_seq<V: SeqAccess<'de>>(self, mut seq: V) -> Result<NvimMessage, V::Error> {
        let tag: i64 = element(&mut seq, 0)?;
        match tag {
            0 => Ok(NvimMessage::RpcRequest {
                msgid: element(&mut seq, 1)?,
                method: element(&mut seq, 2)?,
                params: element(&mut seq, 3)?,
            }),
            1 => Ok(NvimMessage::RpcResponse {
                msgid: element(&mut seq, 1)?,
                error: element(&mut seq, 2)?,
                result: element(&mut seq, 3)?,
            }),
            2 => Ok(NvimMessage::RpcNotification {
                method: element(&mut seq, 1)?,
                params: element(&mut seq, 2)?,
            }),
            _ => Err(de::Error::invalid_value(
                Unexpected::Other("invalid tag"),
                &self,
            )),
        }
    }
}

/// The next element, or the visitor's length error at `at`.
fn element<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(
    seq: &mut A,
    at: usize,
) -> Result<T, A::Error> {
    seq.next_element()?
        .ok_or_else(|| de::Error::invalid_length(at, &RpcVisitor))
}

impl<'de> Deserialize<'de> for NvimMessage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<NvimMessage, D::Error> {
        deserializer.deserialize_seq(RpcVisitor)
    }
}

#[test]
fn a_sequence_read_by_hand_is_not_tested_without_samples() {
    // The visitor takes a tag, then elements of other types: no sequence the tracer builds
    // (each element one kind) gets past it.
    let report = check::<NvimMessage>().run();
    assert!(!report.is_hardened());
    assert!(report.broken().is_empty(), "{}", report.text());
    let text = report.text();
    assert!(
        text.contains("NOT TESTED: 2 of the type's 2 places open"),
        "{text}"
    );
    assert!(
        text.contains("expected seq (tag, [msgid], method, params)"),
        "{text}"
    );
}

#[test]
fn samples_of_each_message_let_the_hand_read_sequence_be_checked() {
    let report = check::<NvimMessage>()
        .sample(&NvimMessage::RpcRequest {
            msgid: 1,
            method: "nvim_command".into(),
            params: vec![Value::from("echo 'hi'")],
        })
        .sample(&NvimMessage::RpcResponse {
            msgid: 1,
            error: Value::Nil,
            result: Value::from(vec![Value::from(1)]),
        })
        .sample(&NvimMessage::RpcNotification {
            method: "hello".into(),
            params: vec![],
        })
        .run();
    report.assert_hardened();
}

/// A SignalR client's hub messages: "almost an internally tagged enum" whose tag is a number,
/// read through `serde_json::Value`. Four of the seven message types are `unimplemented!()`.
trait MessageType {
    const TYPE: u64;
}

#[derive(Deserialize, Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct CompletionMessage {
    invocation_id: String,
    result: serde_json::Value,
    error: Option<String>,
}

impl MessageType for CompletionMessage {
    const TYPE: u64 = 3;
}

#[derive(Deserialize, Serialize, Debug)]
#[serde(rename_all = "camelCase")]
struct InvocationMessage {
    target: String,
    arguments: Vec<String>,
}

impl MessageType for InvocationMessage {
    const TYPE: u64 = 1;
}

#[allow(dead_code)]
#[derive(Debug)]
enum SignalRMessage {
    Ping,
    Invocation(InvocationMessage),
    Completion(CompletionMessage),
}

impl<'de> Deserialize<'de> for SignalRMessage {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        let wrong = |_| de::Error::invalid_type(Unexpected::StructVariant, &"a CompletionMessage");
        match value.get("type").and_then(serde_json::Value::as_u64) {
            Some(InvocationMessage::TYPE) => Ok(SignalRMessage::Invocation(
                InvocationMessage::deserialize(value).map_err(wrong)?,
            )),
            Some(2) => unimplemented!("can't deserialize StreamItem"),
            Some(CompletionMessage::TYPE) => Ok(SignalRMessage::Completion(
                CompletionMessage::deserialize(value).map_err(wrong)?,
            )),
            Some(4) => unimplemented!("can't deserialize StreamInvocation"),
            Some(5) => unimplemented!("can't deserialize CancelInvocation"),
            Some(6) => Ok(SignalRMessage::Ping),
            Some(7) => unimplemented!("can't deserialize Close"),
            Some(num) => Err(de::Error::invalid_value(
                Unexpected::Unsigned(num),
                &"type value between 1 and 7 inclusive",
            )),
            None => Err(de::Error::missing_field("type")),
        }
    }
}

/// A message as the client sends it: its `type` beside its fields.
#[derive(Serialize)]
struct Typed<'a, T: Serialize> {
    r#type: u64,
    #[serde(flatten)]
    body: &'a T,
}

#[test]
fn a_message_read_through_a_json_value_is_not_tested_without_samples() {
    let report = check::<SignalRMessage>().run();
    assert!(report.broken().is_empty(), "{}", report.text());
    let text = report.text();
    assert!(
        text.contains("NOT TESTED: 1 of the type's 1 places open"),
        "{text}"
    );
    assert!(text.contains("missing field `type`"), "{text}");
}

#[test]
fn captured_messages_find_the_tags_left_unimplemented() {
    let invocation = InvocationMessage {
        target: "Send".into(),
        arguments: vec!["hi".into()],
    };
    let completion = CompletionMessage {
        invocation_id: "1".into(),
        result: serde_json::json!({"ok": true}),
        error: None,
    };
    let report = check::<SignalRMessage>()
        .sample_bytes(
            "invocation",
            captured(&Typed {
                r#type: 1,
                body: &invocation,
            }),
        )
        .sample_bytes(
            "completion",
            captured(&Typed {
                r#type: 3,
                body: &completion,
            }),
        )
        .sample_bytes("ping", captured(&serde_json::json!({"type": 6})))
        .run();
    assert!(!report.is_hardened());
    // Each captured message's tag, mutated to 2, 4, 5 and 7, reaches an `unimplemented!()`;
    // nothing else breaks hardpack.
    let mut broke: Vec<(String, String)> = report
        .broken()
        .iter()
        .map(|(row, why)| (row.id.clone(), why.clone()))
        .collect();
    broke.sort();
    assert_eq!(broke.len(), 12, "{broke:?}");
    for (id, why) in &broke {
        let tag = id.rsplit('-').next().unwrap();
        assert!(["2", "4", "5", "7"].contains(&tag), "{id}: {why}");
        assert!(id.contains(".type.int-"), "{id}: {why}");
        assert!(why.starts_with("panicked: not implemented"), "{id}: {why}");
    }
}

/// A captured message: what the client sends, encoded as rmp-serde does by default with
/// names (structs as maps).
fn captured(message: &impl Serialize) -> Vec<u8> {
    rmp_serde::to_vec_named(message).expect("a message encodes")
}
