//! `Deserialize` for [`Value`] and [`Timestamp`]: any document, from any serde format.

use crate::prelude::*;

use serde::de::{self, Visitor};
use serde::Deserialize;

use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};

impl<'de> Deserialize<'de> for Timestamp {
    /// From ext -1 (any of its three forms).
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TimestampVisitor;
        impl<'de> Visitor<'de> for TimestampVisitor {
            type Value = Timestamp;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a timestamp (ext -1)")
            }
            fn visit_newtype_struct<D: de::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Timestamp, D::Error> {
                let (ext_type, ExtBytes(data)): (i8, ExtBytes) =
                    Deserialize::deserialize(deserializer)?;
                if ext_type != TIMESTAMP_EXT_TYPE {
                    return Err(de::Error::custom(format!(
                        "expected a timestamp (ext -1), found ext {ext_type}"
                    )));
                }
                Timestamp::from_ext_payload(&data)
                    .map_err(|e| de::Error::custom(format!("invalid timestamp: {e:?}")))
            }
        }
        deserializer.deserialize_newtype_struct(crate::ser::EXT_STRUCT_NAME, TimestampVisitor)
    }
}

impl<'de> Deserialize<'de> for crate::value::Value {
    /// Any document: nil, bool, integers, floats (width kept), str, bin, arrays, maps (every
    /// key type, duplicates kept), ext and timestamps (ext -1). From other serde formats too
    /// (`serde_json::from_str::<Value>`). serde's model nests one call per level, so this
    /// recurses once per level of the input (hardpack's decoders stop at `max_depth`).
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = crate::value::Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("any MessagePack value")
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(crate::value::Value::Nil)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(crate::value::Value::Nil)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_f32<E>(self, v: f32) -> Result<Self::Value, E> {
        Ok(crate::value::Value::F32(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(crate::value::Value::F64(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(crate::value::Value::Bin(v.into()))
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let (ext_type, ExtBytes(data)): (i8, ExtBytes) = Deserialize::deserialize(d)?;
        if ext_type == TIMESTAMP_EXT_TYPE {
            return Timestamp::from_ext_payload(&data)
                .map(crate::value::Value::Timestamp)
                .map_err(|e| de::Error::custom(format!("invalid timestamp: {e:?}")));
        }
        Ok(crate::value::Value::Ext(crate::value::Ext::new(
            ext_type, &data,
        )))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // serde's own cap on what a hint may reserve.
        let cap = seq.size_hint().unwrap_or(0).min(4096);
        let mut items: Vec<crate::value::Value> = Vec::with_capacity(cap);
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(crate::value::Value::from(items))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let cap = map.size_hint().unwrap_or(0).min(4096);
        let mut entries: Vec<(crate::value::Value, crate::value::Value)> = Vec::with_capacity(cap);
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(crate::value::Value::from(entries))
    }
}

/// An ext's data, borrowed from the input or not (a timestamp's is rebuilt), as bytes.
struct ExtBytes(Vec<u8>);

impl<'de> Deserialize<'de> for ExtBytes {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BytesVisitor;
        impl<'de> Visitor<'de> for BytesVisitor {
            type Value = ExtBytes;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("an ext's data")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<ExtBytes, E> {
                Ok(ExtBytes(v.to_vec()))
            }
        }
        deserializer.deserialize_bytes(BytesVisitor)
    }
}
