//! Enums (a one-entry map from the variant to its content) and exts (the `_ExtStruct`
//! newtype of an `(i8, bytes)` tuple), as rmp-serde hands them to visitors.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Deserialize;

use super::deserializer::Deserializer;
use super::error::DeError;
use crate::timestamp::{Timestamp, TIMESTAMP_EXT_TYPE};

/// An enum written as a one-entry map: the key names the variant, the value is its content.
pub(super) struct VariantOf<'a, 'de, const STRICT: bool> {
    pub(super) de: &'a mut Deserializer<'de, STRICT>,
}

impl<'de, const STRICT: bool> de::EnumAccess<'de> for VariantOf<'_, 'de, STRICT> {
    type Error = DeError;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), DeError> {
        self.de.open.innermost = self.de.open.innermost.saturating_sub(1);
        let variant = seed.deserialize(&mut *self.de)?;
        Ok((variant, self))
    }
}

impl<'de, const STRICT: bool> de::VariantAccess<'de> for VariantOf<'_, 'de, STRICT> {
    type Error = DeError;

    fn unit_variant(self) -> Result<(), DeError> {
        Deserialize::deserialize(self.content())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, DeError> {
        seed.deserialize(self.content())
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_seq(self.content(), visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        de::Deserializer::deserialize_struct(self.content(), "", fields, visitor)
    }
}

impl<'a, 'de, const STRICT: bool> VariantOf<'a, 'de, STRICT> {
    /// The deserializer, for the entry's second item (the variant's content), taken off the
    /// items the entry still expects.
    fn content(self) -> &'a mut Deserializer<'de, STRICT> {
        self.de.open.innermost = self.de.open.innermost.saturating_sub(1);
        self.de
    }
}

/// An ext as rmp-serde hands it to a visitor: a newtype holding an `(i8, bytes)` sequence.
pub(super) struct ExtParts<'de> {
    pub(super) ext_type: i8,
    pub(super) data: ExtData<'de>,
}

pub(super) enum ExtData<'de> {
    Borrowed(&'de [u8]),
    Timestamp([u8; 12], usize),
}

impl<'de> ExtParts<'de> {
    pub(super) fn new(ext_type: i8, data: &'de [u8]) -> Self {
        ExtParts {
            ext_type,
            data: ExtData::Borrowed(data),
        }
    }

    pub(super) fn timestamp(ts: Timestamp) -> Self {
        let (buf, len) = ts.to_ext_payload();
        ExtParts {
            ext_type: TIMESTAMP_EXT_TYPE,
            data: ExtData::Timestamp(buf, len),
        }
    }
}

impl<'de> de::Deserializer<'de> for ExtParts<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_seq(ExtSeq { parts: self, at: 0 })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

pub(super) struct ExtSeq<'de> {
    pub(super) parts: ExtParts<'de>,
    pub(super) at: u8,
}

impl<'de> de::SeqAccess<'de> for ExtSeq<'de> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        self.at = self.at.saturating_add(1);
        match self.at {
            1 => seed
                .deserialize(self.parts.ext_type.into_deserializer())
                .map(Some),
            2 => match &self.parts.data {
                ExtData::Borrowed(data) => seed
                    .deserialize(de::value::BorrowedBytesDeserializer::new(data))
                    .map(Some),
                ExtData::Timestamp(buf, len) => seed
                    .deserialize(de::value::BytesDeserializer::new(
                        buf.get(..*len).unwrap_or(buf),
                    ))
                    .map(Some),
            },
            _ => Ok(None),
        }
    }
}
