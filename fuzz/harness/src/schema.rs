//! The built-in typed schema that accepts any MessagePack document: an enum mirroring
//! `Value`, decoded through serde (so `hardpack repro --surface typed` and the `serde_typed`
//! target can replay every payload through the typed path), with `Vec` for arrays and a
//! `Vec` of pairs for maps (keys of any type, duplicates kept, as `Value` keeps them).

use std::fmt;

use hardpack::Value;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// Any MessagePack value, as a serde type.
#[derive(Debug, Clone, PartialEq)]
pub enum Any {
    Nil,
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    F32(f32),
    F64(f64),
    Str(String),
    Bin(Vec<u8>),
    Ext(i8, Vec<u8>),
    Array(Vec<Any>),
    Map(Vec<(Any, Any)>),
}

impl<'de> Deserialize<'de> for Any {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(AnyVisitor)
    }
}

struct AnyVisitor;

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = Any;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any MessagePack value")
    }
    fn visit_unit<E>(self) -> Result<Any, E> {
        Ok(Any::Nil)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Any, E> {
        Ok(Any::Bool(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Any, E> {
        Ok(Any::Unsigned(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Any, E> {
        Ok(Any::Signed(v))
    }
    fn visit_f32<E>(self, v: f32) -> Result<Any, E> {
        Ok(Any::F32(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Any, E> {
        Ok(Any::F64(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Any, E> {
        Ok(Any::Str(v.to_owned()))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Any, E> {
        Ok(Any::Bin(v.to_vec()))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Any, D::Error> {
        let (ext_type, data): (i8, Buf) = Deserialize::deserialize(d)?;
        Ok(Any::Ext(ext_type, data.0))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Any, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Any::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Any, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Any::Map(entries))
    }
}

/// A byte buffer read from a bin (serde's `Vec<u8>` reads a sequence).
struct Buf(Vec<u8>);

impl<'de> Deserialize<'de> for Buf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_bytes(d).map(Buf)
    }
}

/// Bytes from a bin, for a `Vec<u8>` field (what `serde_bytes` does).
pub fn deserialize_bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    struct BytesVisitor;
    impl<'de> Visitor<'de> for BytesVisitor {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("bytes")
        }
        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }
    }
    d.deserialize_byte_buf(BytesVisitor)
}

impl Any {
    /// The same value as a `Value` (built without recursion from a walk of this one).
    pub fn to_value(&self) -> Value {
        let mut builder = hardpack::value::ValueBuilder::new();
        let mut stack: Vec<&Any> = vec![self];
        while let Some(any) = stack.pop() {
            let done = match any {
                Any::Nil => builder.push(Value::Nil),
                Any::Bool(b) => builder.push(Value::Bool(*b)),
                Any::Unsigned(n) => builder.push(Value::from(*n)),
                Any::Signed(n) => builder.push(Value::from(*n)),
                Any::F32(x) => builder.push(Value::F32(*x)),
                Any::F64(x) => builder.push(Value::F64(*x)),
                Any::Str(s) => builder.push(Value::from(s.as_str())),
                Any::Bin(b) => builder.push(Value::Bin(b.clone().into())),
                Any::Ext(t, d) if *t == hardpack::timestamp::TIMESTAMP_EXT_TYPE => {
                    match hardpack::decode(
                        &hardpack::encode(&Value::Ext(hardpack::value::Ext::new(*t, d)))
                            .unwrap_or_default(),
                    ) {
                        Ok(v) => builder.push(v),
                        Err(_) => builder.push(Value::Ext(hardpack::value::Ext::new(*t, d))),
                    }
                }
                Any::Ext(t, d) => builder.push(Value::Ext(hardpack::value::Ext::new(*t, d))),
                Any::Array(items) => {
                    stack.extend(items.iter().rev());
                    builder.start_array(items.len())
                }
                Any::Map(entries) => {
                    for (k, v) in entries.iter().rev() {
                        stack.push(v);
                        stack.push(k);
                    }
                    builder.start_map(entries.len())
                }
            };
            if let Some(value) = done {
                return value;
            }
        }
        Value::Nil
    }
}
