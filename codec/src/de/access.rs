//! The elements of a sequence and the entries of a map, handed to a visitor one at a time,
//! each charged `size_of` its type first.

use core::mem::size_of;

use serde::de::{self, DeserializeSeed, IntoDeserializer};
use serde::Deserialize;

use super::deserializer::{Deserializer, HINT_ELEMENT_BYTES};
use super::error::DeError;

/// The elements of an array, for `visit_seq`. (Handed to the visitor by value, its counts
/// kept by the caller: handed `&mut`, each element went through serde's forwarding impl for
/// `&mut A`, which LLVM inlined or not by the size of what it held.)
/// The bytes of a bin handed out as a sequence's elements (see
/// [`Deserializer::visit_next_as_sequence`]), each charged `size_of` its type as an array's
/// element is.
pub(super) struct BinElements<'a, 'de, const STRICT: bool> {
    pub(super) de: &'a mut Deserializer<'de, STRICT>,
    pub(super) bytes: core::slice::Iter<'de, u8>,
}

impl<'de, const STRICT: bool> de::SeqAccess<'de> for BinElements<'_, 'de, STRICT> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(&byte) = self.bytes.next() else {
            return Ok(None);
        };
        self.de.charge(size_of::<T::Value>())?;
        seed.deserialize(byte.into_deserializer()).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        let budget_left = self.de.budget.left();
        Some(self.bytes.len().min(budget_left / HINT_ELEMENT_BYTES))
    }
}

pub(super) struct Elements<'a, 'de, const STRICT: bool> {
    pub(super) de: &'a mut Deserializer<'de, STRICT>,
    pub(super) left: &'a mut usize,
}

impl<'de, const STRICT: bool> de::SeqAccess<'de> for Elements<'_, 'de, STRICT> {
    type Error = DeError;

    /// What serde's derived code calls for each field: the type's `deserialize` called
    /// straight, inlined (by way of `next_element_seed` and `PhantomData`, LLVM inlined an
    /// f64 field in one build and not in the next, and an integer field in none).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_element<T: Deserialize<'de>>(&mut self) -> Result<Option<T>, DeError> {
        self.element(size_of::<T>(), |de| T::deserialize(de))
    }

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        self.element(size_of::<T::Value>(), |de| seed.deserialize(de))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.de.hint(*self.left))
    }
}

impl<'de, const STRICT: bool> Elements<'_, 'de, STRICT> {
    /// The next element, read by `read` once `bytes` (its size) are charged; `None` after
    /// the last.
    #[inline(always)]
    pub(super) fn element<T>(
        &mut self,
        bytes: usize,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<Option<T>, DeError> {
        if *self.left == 0 {
            return Ok(None);
        }
        *self.left = self.left.saturating_sub(1);
        self.de.charge(bytes)?;
        read(self.de).map(Some)
    }
}

/// What each key and each value a map hands out is charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EntryCharge {
    /// A map collection: twice `size_of` the key and of the value. A hash table keeps its
    /// buckets at most 7/8 full in a power-of-two array (up to about twice its entries) and
    /// grows by copying into one twice as large; a B-tree's nodes are part empty.
    Table,
    /// A struct's fields, read from a map: `size_of` each, as they are stored inline.
    Fields,
}

impl EntryCharge {
    fn bytes(self, size: usize) -> usize {
        match self {
            EntryCharge::Table => size.saturating_mul(2),
            EntryCharge::Fields => size,
        }
    }
}

/// The entries of a map, for `visit_map` (by value, as [`Elements`]).
pub(super) struct Entries<'a, 'de, const STRICT: bool> {
    pub(super) de: &'a mut Deserializer<'de, STRICT>,
    pub(super) left: &'a mut usize,
    pub(super) value_due: &'a mut bool,
    pub(super) charge: EntryCharge,
}

impl<'de, const STRICT: bool> de::MapAccess<'de> for Entries<'_, 'de, STRICT> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        if *self.left == 0 {
            return Ok(None);
        }
        *self.left = self.left.saturating_sub(1);
        *self.value_due = true;
        self.de.charge(self.charge.bytes(size_of::<K::Value>()))?;
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        *self.value_due = false;
        self.de.charge(self.charge.bytes(size_of::<V::Value>()))?;
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        // Two items an entry, each a byte at least: the reader refused the map's header
        // unless the input left held two bytes for each entry, so `left` is already at most
        // half of it.
        Some(self.de.hint(*self.left))
    }
}
