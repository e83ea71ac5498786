//! `Deserialize` for [`ValueRef`]: the document's tape built from serde's visitor calls, its
//! strs, bins and ext payloads borrowed from the deserializer's input.

use crate::prelude::*;
use core::fmt;

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};
use crate::value::borrowed::TapeItem;
use crate::value::{Integer, ValueRef};

impl<'de> Deserialize<'de> for ValueRef<'de> {
    /// Any document, with its strs, bins and ext payloads borrowed from the input: from
    /// hardpack's `from_slice`, or from any format that lends them (`visit_borrowed_str`).
    /// A format that cannot lend one (a JSON string with an escape, any reader-based
    /// deserializer) gets an error saying so: decode into [`Value`](crate::Value) there.
    /// serde's model nests one call per level, so this recurses once per level of the
    /// input, as `Value`'s does (hardpack's decoders stop at `max_depth`).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut tape = Vec::new();
        Item { tape: &mut tape }.deserialize(deserializer)?;
        Ok(ValueRef::from_tape(tape))
    }
}

/// Appends one value (and its descendants) to the tape, and hands back a copy of the item
/// it wrote for the value: that is the seed's `Value`, so a deserializer that charges
/// `size_of` of what each element yields (hardpack's) charges every tape slot to its budget.
struct Item<'t, 'de> {
    tape: &'t mut Vec<TapeItem<'de>>,
}

impl<'de> DeserializeSeed<'de> for Item<'_, 'de> {
    type Value = TapeItem<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<TapeItem<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Item<'_, 'de> {
    fn push(self, item: TapeItem<'de>) -> TapeItem<'de> {
        self.tape.push(item);
        item
    }
}

/// What a transient str or bytes (one the format cannot lend) is refused with.
fn not_borrowed<E: de::Error>(what: &str) -> E {
    E::custom(format_args!(
        "ValueRef borrows its {what} from the input, and this deserializer cannot lend it (decode into Value instead)"
    ))
}

impl<'de> Visitor<'de> for Item<'_, 'de> {
    type Value = TapeItem<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any MessagePack value, its strs and bytes borrowed from the input")
    }

    fn visit_unit<E>(self) -> Result<TapeItem<'de>, E> {
        Ok(self.push(TapeItem::Nil))
    }

    fn visit_none<E>(self) -> Result<TapeItem<'de>, E> {
        Ok(self.push(TapeItem::Nil))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<TapeItem<'de>, D::Error> {
        self.deserialize(d)
    }

    fn visit_bool<E>(self, v: bool) -> Result<TapeItem<'de>, E> {
        Ok(self.push(TapeItem::Bool(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<TapeItem<'de>, E> {
        Ok(self.push(TapeItem::Integer(Integer::from(v))))
    }

    fn visit_i64<E>(self, v: i64) -> Result<TapeItem<'de>, E> {
        Ok(self.push(TapeItem::Integer(Integer::from(v))))
    }

    fn visit_f32<E>(self, v: f32) -> Result<TapeItem<'de>, E> {
        Ok(self.push(TapeItem::F32(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<TapeItem<'de>, E> {
        Ok(self.push(TapeItem::F64(v)))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<TapeItem<'de>, E> {
        Ok(self.push(TapeItem::Str(v.as_bytes())))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<TapeItem<'de>, E> {
        Err(not_borrowed("strs"))
    }

    fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<TapeItem<'de>, E> {
        Ok(self.push(TapeItem::Bin(v)))
    }

    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<TapeItem<'de>, E> {
        Err(not_borrowed("bytes"))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<TapeItem<'de>, D::Error> {
        // hardpack's (and rmp-serde's) ext: a newtype around (type, data).
        let item = d.deserialize_tuple(2, ExtVisitor)?;
        Ok(self.push(item))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TapeItem<'de>, A::Error> {
        let at = self.tape.len();
        self.tape.push(TapeItem::Array { len: 0, end: 0 });
        let mut len = 0u32;
        while seq.next_element_seed(Item { tape: self.tape })?.is_some() {
            len = len
                .checked_add(1)
                .ok_or_else(|| de::Error::custom("an array longer than MessagePack can hold"))?;
        }
        Ok(close(self.tape, at, len))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<TapeItem<'de>, A::Error> {
        let at = self.tape.len();
        self.tape.push(TapeItem::Map { len: 0, end: 0 });
        let mut len = 0u32;
        while map.next_key_seed(Item { tape: self.tape })?.is_some() {
            map.next_value_seed(Item { tape: self.tape })?;
            len = len
                .checked_add(1)
                .ok_or_else(|| de::Error::custom("a map longer than MessagePack can hold"))?;
        }
        Ok(close(self.tape, at, len))
    }
}

/// Sets the length and the end of the container opened at `at`; the item, closed.
fn close<'de>(tape: &mut [TapeItem<'de>], at: usize, count: u32) -> TapeItem<'de> {
    let end = tape.len();
    match tape.get_mut(at) {
        Some(TapeItem::Array { len, end: e } | TapeItem::Map { len, end: e }) => {
            *len = count;
            *e = end;
        }
        _ => crate::invariant::broken("closing a tape item that is not the container opened"),
    }
    tape.get(at).copied().unwrap_or(TapeItem::Nil)
}

/// An ext's (type, data): its data borrowed, or a timestamp's parsed.
struct ExtVisitor;

impl<'de> Visitor<'de> for ExtVisitor {
    type Value = TapeItem<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an ext: its type and its data")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TapeItem<'de>, A::Error> {
        let ext_type: i8 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        seq.next_element_seed(ExtData { ext_type })?
            .ok_or_else(|| de::Error::invalid_length(1, &self))
    }
}

/// An ext's data, for its type.
struct ExtData {
    ext_type: i8,
}

impl<'de> DeserializeSeed<'de> for ExtData {
    type Value = TapeItem<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TapeItem<'de>, D::Error> {
        d.deserialize_bytes(self)
    }
}

impl<'de> Visitor<'de> for ExtData {
    type Value = TapeItem<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an ext's data")
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<TapeItem<'de>, E> {
        if self.ext_type == TIMESTAMP_EXT_TYPE {
            return self.visit_bytes(v);
        }
        Ok(TapeItem::Ext(self.ext_type, v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<TapeItem<'de>, E> {
        // A timestamp's payload is parsed, not kept: it may be lent or not.
        if self.ext_type != TIMESTAMP_EXT_TYPE {
            return Err(not_borrowed("ext data"));
        }
        Timestamp::from_ext_payload(v)
            .map(TapeItem::Timestamp)
            .map_err(|e| E::custom(format_args!("invalid timestamp: {e:?}")))
    }
}
