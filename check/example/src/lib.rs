//! Types a service decodes from untrusted MessagePack, of the shapes the reported
//! denial-of-service payloads of this field hit and of every shape serde derives: a JSON-RPC
//! request whose params nest (and whose params type is generic), an event with a loosely typed
//! part, a recursive configuration tree, an internally tagged message, an adjacently tagged
//! job, an untagged id, a record with flattened attributes, an upload chunk whose hand-written
//! `Deserialize` validates (and allocates what a field says: the planted bug), and a log line
//! that borrows from its input. `tests/` checks each with hardpack-check against hardpack and
//! against rmp-serde.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A JSON-RPC-style request, generic in its params.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Request<P> {
    /// The protocol version.
    pub jsonrpc: String,
    /// The request id.
    pub id: u64,
    /// The method called.
    pub method: String,
    /// Its params.
    pub params: P,
}

/// A param of a request: any JSON-like value, nested to any depth.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Param {
    /// No value.
    Null,
    /// A bool.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Text(String),
    /// A list of params.
    List(Vec<Param>),
    /// An object of named params.
    Object(BTreeMap<String, Param>),
}

/// The request a server receives.
pub type RpcRequest = Request<Vec<Param>>;

/// An event as an error tracker receives it: typed fields, a tag value that is a string or a
/// number (untagged), breadcrumbs, and a part the service does not interpret.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's id.
    pub event_id: String,
    /// When it happened (seconds).
    pub timestamp: f64,
    /// How bad it is.
    pub level: Level,
    /// Key-value tags.
    pub tags: Vec<(String, TagValue)>,
    /// What happened before it.
    pub breadcrumbs: Vec<Breadcrumb>,
    /// Whatever the client sent beside (kept, not interpreted).
    pub extra: hardpack::Value,
}

/// An event's severity.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub enum Level {
    /// Debugging.
    Debug,
    /// Information.
    Info,
    /// A warning.
    Warning,
    /// An error.
    Error,
}

/// A tag's value: a string or a number, whichever was sent.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum TagValue {
    /// A number.
    Number(i64),
    /// A string.
    Text(String),
}

/// One step before an event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Breadcrumb {
    /// What kind of step.
    pub category: String,
    /// What it said.
    pub message: Option<String>,
    /// Its data.
    pub data: BTreeMap<String, String>,
}

/// A configuration tree: sections nest sections.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Config {
    /// The section's name.
    pub name: String,
    /// Its settings.
    pub settings: BTreeMap<String, Setting>,
    /// Its subsections.
    pub children: Vec<Config>,
}

/// One setting of a section.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Setting {
    /// On or off.
    Flag(bool),
    /// A number.
    Number(i64),
    /// A string.
    Text(String),
    /// A nested section.
    Section(Box<Config>),
}

/// What a pub/sub client sends: an internally tagged enum, the tag inside the map.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// Subscribe to topics.
    Subscribe {
        /// The topics.
        topics: Vec<String>,
    },
    /// Publish a payload to a topic.
    Publish {
        /// The topic.
        topic: String,
        /// What is published.
        #[serde(with = "serde_bytes")]
        payload: Vec<u8>,
    },
    /// Keep the connection open.
    Ping,
}

/// A job a worker queue receives: an adjacently tagged enum (`kind` names the job, `spec`
/// holds it).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", content = "spec")]
pub enum Job {
    /// Resize an image.
    Resize {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// Transcode to each of these formats.
    Transcode(Vec<String>),
    /// Cancel the running job.
    Cancel,
}

/// An account id as clients send it: a number, a UUID string, or a shard and a local id
/// (untagged: whichever fits).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum AccountId {
    /// A legacy numeric id.
    Numeric(u64),
    /// A UUID.
    Uuid(String),
    /// A sharded id.
    Sharded {
        /// The shard.
        shard: u16,
        /// The id in the shard.
        local: u64,
    },
}

/// An audit record: two known fields, and whatever else the client attached (flattened).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct AuditRecord {
    /// Who did it.
    pub actor: AccountId,
    /// What they did.
    pub action: String,
    /// Everything else, kept as sent.
    #[serde(flatten)]
    pub attributes: BTreeMap<String, hardpack::Value>,
}

/// A chunk of an upload, with a hand-written `Deserialize` that checks the chunk's data fits
/// the length it declares, then allocates the reassembly buffer that length asks for. The
/// check passes for `len = 4294967295` and an empty body: a 4 GiB allocation from a
/// 20-byte message. This is the user-side bug the kit must find, with any decoder.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// The declared length of the whole upload.
    pub len: u32,
    /// This chunk's data.
    pub data: Vec<u8>,
    /// The reassembly buffer.
    pub buffer: Vec<u8>,
}

impl<'de> Deserialize<'de> for Chunk {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            len: u32,
            #[serde(with = "serde_bytes")]
            data: Vec<u8>,
        }
        let raw = Raw::deserialize(d)?;
        if raw.len == 0 {
            return Err(serde::de::Error::custom("a chunk's len must be positive"));
        }
        if raw.data.len() > raw.len as usize {
            return Err(serde::de::Error::custom(
                "a chunk's data is longer than its len",
            ));
        }
        let mut buffer = vec![0u8; raw.len as usize];
        buffer[..raw.data.len()].copy_from_slice(&raw.data);
        Ok(Chunk {
            len: raw.len,
            data: raw.data,
            buffer,
        })
    }
}

/// A structured log line, decoded without copying: its strs point into the input.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LogLine<'a> {
    /// The level.
    pub level: &'a str,
    /// The message.
    #[serde(borrow)]
    pub message: std::borrow::Cow<'a, str>,
    /// Key-value fields.
    #[serde(borrow)]
    pub fields: Vec<(&'a str, &'a str)>,
}
