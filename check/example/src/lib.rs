//! Three types a service decodes from untrusted MessagePack, of the shapes the reported
//! denial-of-service payloads of this field hit: a JSON-RPC request whose params nest (and
//! whose params type is generic), an event with a loosely typed part, and a recursive
//! configuration tree. `tests/` checks each with hardpack-check against hardpack and against
//! rmp-serde.

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
