//! The key of a struct's entry, read as one of the struct's field names.

use serde::de::{self, Visitor};

use super::deserializer::Deserializer;
use super::error::DeError;

/// The deserializer a struct's map key is read through: when the key is a str whose bytes
/// are one of the field names the struct's `deserialize_struct` was handed, its identifier is
/// that name, the type's own `&'static str`. Bytes equal to a str's are valid UTF-8, so the
/// key needs no UTF-8 check, which for the short names of fields costs more than the rest of
/// the key's read. Any other key, and every other method, is the main deserializer's.
pub(super) struct FieldKey<'a, 'de, const STRICT: bool> {
    pub(super) de: &'a mut Deserializer<'de, STRICT>,
    pub(super) fields: &'static [&'static str],
    /// Where the key is looked for first, and moved past the field found: keys usually come
    /// in the order the fields were declared (every serde writer's order).
    pub(super) expected: &'a mut usize,
}

impl<const STRICT: bool> FieldKey<'_, '_, STRICT> {
    /// The field `bytes` names, and where it is among the fields.
    #[inline(always)]
    fn find(&self, bytes: &[u8]) -> Option<(usize, &'static str)> {
        let expected = *self.expected;
        if let Some(&name) = self.fields.get(expected) {
            if name.as_bytes() == bytes {
                return Some((expected, name));
            }
        }
        self.fields
            .iter()
            .enumerate()
            .find(|(_, name)| name.as_bytes() == bytes)
            .map(|(at, &name)| (at, name))
    }
}

impl<'de, const STRICT: bool> de::Deserializer<'de> for FieldKey<'_, 'de, STRICT> {
    type Error = DeError;

    #[inline(always)]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        // Strict mode's keys are read on its own path (it checks their form and repeats).
        if !STRICT {
            if let Some((bytes, len)) = self.de.reader.peek_str_bytes() {
                if let Some((at, name)) = self.find(bytes) {
                    *self.expected = at.saturating_add(1);
                    let visited = visitor.visit_borrowed_str(name);
                    return self.de.step_over_visited(visited, len);
                }
            }
        }
        de::Deserializer::deserialize_identifier(self.de, visitor)
    }

    forward_to_main! {
        deserialize_any deserialize_bool
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_ignored_any
    }
}
