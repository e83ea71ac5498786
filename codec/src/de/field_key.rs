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
            if same_bytes(name.as_bytes(), bytes) {
                return Some((expected, name));
            }
        }
        self.fields
            .iter()
            .enumerate()
            .find(|(_, name)| same_bytes(name.as_bytes(), bytes))
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

    forward_to_main!();
}

/// `a == b`, for a field or variant name: up to 16 bytes compared in two loads a side that overlap
/// (no call into `bcmp`), longer ones as slices.
#[inline(always)]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    fn ends<const N: usize>(s: &[u8]) -> Option<([u8; N], [u8; N])> {
        let head = s.first_chunk::<N>()?;
        let tail = s.last_chunk::<N>()?;
        Some((*head, *tail))
    }
    match len {
        0 => true,
        1..=3 => ends::<1>(a) == ends::<1>(b) && a.get(len / 2) == b.get(len / 2),
        4..=7 => ends::<4>(a) == ends::<4>(b),
        8..=16 => ends::<8>(a) == ends::<8>(b),
        17.. => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::same_bytes;

    #[test]
    fn same_bytes_is_slice_equality_at_every_length_and_position() {
        for len in 0..=40usize {
            let a: Vec<u8> = (0..len).map(|i| b'a'.wrapping_add(i as u8)).collect();
            assert!(same_bytes(&a, &a.clone()), "len {len}");
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same_bytes(&a, &b), "len {len}, differing at {at}");
                assert!(!same_bytes(&b, &a), "len {len}, differing at {at}");
            }
            let longer: Vec<u8> = a.iter().copied().chain([b'z']).collect();
            assert!(!same_bytes(&a, &longer), "len {len} against {}", len + 1);
            assert!(!same_bytes(&longer, &a), "len {} against {len}", len + 1);
        }
    }
}
