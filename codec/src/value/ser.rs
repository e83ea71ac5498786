//! `Serialize` for [`Value`], [`ValueRef`] (and its [`Node`]s) and [`Timestamp`]: the same
//! bytes `encode` writes, through any serde serializer.

use crate::prelude::*;

use serde::ser::{self, Serialize};

use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};
use crate::value::borrowed::{Node, ValueRef};
use crate::value::token::Token;
use crate::value::{Integer, Value};

/// Bytes that serialize as bytes (a bin), not as a sequence of integers.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// An ext for any serializer: rmp-serde's newtype convention.
fn serialize_ext<S: ser::Serializer>(
    serializer: S,
    ext_type: i8,
    data: &[u8],
) -> Result<S::Ok, S::Error> {
    serializer.serialize_newtype_struct(crate::ser::EXT_STRUCT_NAME, &(ext_type, Bytes(data)))
}

impl Serialize for Timestamp {
    /// As ext -1 in its smallest form (what rmp-serde and other MessagePack libraries read
    /// as a timestamp).
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (buf, len) = self.to_ext_payload();
        serialize_ext(
            serializer,
            TIMESTAMP_EXT_TYPE,
            buf.get(..len).unwrap_or(&buf),
        )
    }
}

/// The deepest value `Serialize` for [`Value`], [`ValueRef`] and [`Node`] will walk. serde's
/// model nests one call per level, so serializing recurses once per level; a deeper value (a
/// hand-built one, or one decoded with `max_depth` raised) is refused before any recursion,
/// at this depth, which a 2 MiB thread holds in a debug build. [`encode`](fn@crate::encode)
/// writes values of any depth without recursion.
pub const SERIALIZE_MAX_DEPTH: usize = 256;

fn too_deep<E: ser::Error>(depth: usize) -> E {
    E::custom(format!(
        "a value nested {depth} deep is deeper than serde can be walked here \
         (SERIALIZE_MAX_DEPTH {SERIALIZE_MAX_DEPTH}); use hardpack::encode"
    ))
}

impl Serialize for Value {
    /// As the serde data model says it: nil as unit, integers as u64/i64, F32/F64, str,
    /// bin as bytes, arrays as sequences, maps as maps, ext and timestamp as rmp-serde's ext
    /// newtype. Values deeper than [`SERIALIZE_MAX_DEPTH`] are refused (measured first,
    /// without recursion).
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let depth = self.shape().max_depth;
        if depth > SERIALIZE_MAX_DEPTH {
            return Err(too_deep(depth));
        }
        Checked(self).serialize(serializer)
    }
}

/// A value whose depth was checked: its children serialize without checking again.
struct Checked<'v>(&'v Value);

impl Serialize for Checked<'_> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        match self.0 {
            Value::Nil => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Integer(n) => serialize_integer(*n, serializer),
            Value::F32(x) => serializer.serialize_f32(*x),
            Value::F64(x) => serializer.serialize_f64(*x),
            Value::Str(s) => serializer.serialize_str(s.as_str()),
            Value::Bin(b) => serializer.serialize_bytes(b),
            Value::Ext(e) => serialize_ext(serializer, e.ext_type(), e.data()),
            Value::Timestamp(ts) => ts.serialize(serializer),
            Value::Array(items) => serializer.collect_seq(items.iter().map(Checked)),
            Value::Map(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (k, v) in entries.iter() {
                    map.serialize_entry(&Checked(k), &Checked(v))?;
                }
                map.end()
            }
        }
    }
}

fn serialize_integer<S: ser::Serializer>(n: Integer, serializer: S) -> Result<S::Ok, S::Error> {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => serializer.serialize_u64(u),
        (None, Some(i)) => serializer.serialize_i64(i),
        (None, None) => Err(ser::Error::custom("an integer out of range")),
    }
}

impl Serialize for ValueRef<'_> {
    /// As [`Value`]'s.
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.root().serialize(serializer)
    }
}

impl Serialize for Node<'_, '_> {
    /// As [`Value`]'s, with the same depth bound.
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let depth = self.shape().max_depth;
        if depth > SERIALIZE_MAX_DEPTH {
            return Err(too_deep(depth));
        }
        CheckedNode(*self).serialize(serializer)
    }
}

/// A node whose depth was checked.
struct CheckedNode<'t, 'a>(Node<'t, 'a>);

impl Serialize for CheckedNode<'_, '_> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        let node = &self.0;
        if let Some(items) = node.items() {
            return serializer.collect_seq(items.map(CheckedNode));
        }
        if let Some(entries) = node.entries() {
            let mut map = serializer.serialize_map(Some(entries.len()))?;
            for (k, v) in entries {
                map.serialize_entry(&CheckedNode(k), &CheckedNode(v))?;
            }
            return map.end();
        }
        match node.token() {
            Token::Nil => serializer.serialize_unit(),
            Token::Bool(b) => serializer.serialize_bool(b),
            Token::Integer(n) => serialize_integer(n, serializer),
            Token::F32(x) => serializer.serialize_f32(x),
            Token::F64(x) => serializer.serialize_f64(x),
            Token::Str(s) => serializer.serialize_str(s),
            Token::Bin(b) => serializer.serialize_bytes(b),
            Token::Ext(t, d) => serialize_ext(serializer, t, d),
            Token::Timestamp(ts) => ts.serialize(serializer),
            Token::Array(_) | Token::Map(_) => {
                Err(ser::Error::custom("a container without children"))
            }
        }
    }
}
