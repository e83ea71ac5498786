//! The elements of a sequence and the entries of a map, handed to a visitor one at a time,
//! each paid for before it is read (see [`Paid`]).

use core::mem::size_of;

use serde::de::{self, DeserializeSeed, IntoDeserializer};
use serde::Deserialize;

use super::deserializer::{Deserializer, HINT_ELEMENT_BYTES};
use super::error::DeError;
use super::field_key::FieldKey;
use super::forward::MapValue;

/// What the elements a visitor is handed (a sequence's, or a map's keys or its values) have
/// been paid for, in one of two ways fixed by `INLINE`:
/// - `INLINE` false, a collection's elements: `per_element` is the size each element still to
///   come has been charged. The first element charges its type's size for every element
///   left, itself included (the room check already bounds how many that is); a later
///   element of a larger type charges the difference for those left. So a collection of one
///   element type is charged once, and a visitor's loop pays nothing per element.
/// - `INLINE` true, the fields of a struct or tuple, stored inside the value its visitor
///   builds: `size_of` that value was charged once, and `per_element` is what is left of it.
///   Each field's size is taken from it, and charged only past it (a visitor that builds
///   something other than its fields, in a struct's clothes, still pays for all it is
///   handed).
#[derive(Clone, Copy)]
pub(super) struct Paid<const INLINE: bool> {
    per_element: usize,
}

impl<const INLINE: bool> Paid<INLINE> {
    /// Nothing paid yet: a collection's elements.
    pub(super) fn nothing() -> Self {
        Paid { per_element: 0 }
    }

    /// `bytes` charged already, for fields stored inline.
    pub(super) fn inline(bytes: usize) -> Self {
        Paid { per_element: bytes }
    }

    /// Pays for an element of `size` bytes, the first of `count` still to be handed out
    /// (a map's keys or values count twice: a table's slots).
    #[inline(always)]
    pub(super) fn pay<const STRICT: bool>(
        &mut self,
        de: &mut Deserializer<'_, STRICT>,
        size: usize,
        count: usize,
    ) -> Result<(), DeError> {
        if INLINE {
            if let Some(left) = self.per_element.checked_sub(size) {
                self.per_element = left;
                return Ok(());
            }
            let over = size.saturating_sub(self.per_element);
            self.per_element = 0;
            return de.charge(over);
        }
        if size <= self.per_element {
            return Ok(());
        }
        let more = size.saturating_sub(self.per_element).saturating_mul(count);
        self.per_element = size;
        de.charge(more)
    }
}

/// The bytes of a bin handed out as a sequence's elements (see
/// [`Deserializer::visit_next_as_sequence`]), paid for as an array's elements are.
pub(super) struct BinElements<'a, 'de, const STRICT: bool, const INLINE: bool> {
    pub(super) de: &'a mut Deserializer<'de, STRICT>,
    pub(super) bytes: core::slice::Iter<'de, u8>,
    pub(super) paid: Paid<INLINE>,
}

impl<'de, const STRICT: bool, const INLINE: bool> de::SeqAccess<'de>
    for BinElements<'_, 'de, STRICT, INLINE>
{
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let count = self.bytes.len();
        let Some(&byte) = self.bytes.next() else {
            return Ok(None);
        };
        self.paid.pay(self.de, size_of::<T::Value>(), count)?;
        seed.deserialize(byte.into_deserializer()).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        let budget_left = self.de.budget.left();
        Some(self.bytes.len().min(budget_left / HINT_ELEMENT_BYTES))
    }
}

/// The elements of an array, for `visit_seq`. (Handed to the visitor by value, its counts
/// kept by the caller: handed `&mut`, each element went through serde's forwarding impl for
/// `&mut A`, which LLVM inlined or not by the size of what it held.)
pub(super) struct Elements<'a, 'de, const STRICT: bool, const INLINE: bool> {
    /// Its count of elements left is the deserializer's innermost container's.
    pub(super) de: &'a mut Deserializer<'de, STRICT>,
    pub(super) paid: Paid<INLINE>,
}

impl<'de, const STRICT: bool, const INLINE: bool> de::SeqAccess<'de>
    for Elements<'_, 'de, STRICT, INLINE>
{
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
        Some(self.de.hint(self.de.open.innermost))
    }
}

impl<'de, const STRICT: bool, const INLINE: bool> Elements<'_, 'de, STRICT, INLINE> {
    /// The next element, read by `read` once `bytes` (its size) are paid for; `None` after
    /// the last.
    #[inline(always)]
    pub(super) fn element<T>(
        &mut self,
        bytes: usize,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<Option<T>, DeError> {
        let count = self.de.open.innermost;
        if count == 0 {
            return Ok(None);
        }
        self.de.open.innermost = count.saturating_sub(1);
        self.paid.pay(self.de, bytes, count)?;
        read(self.de).map(Some)
    }
}

/// The entries of a map, for `visit_map` (by value, as [`Elements`]). A map collection's
/// keys and values are paid for twice their size: a hash table keeps its buckets at most 7/8
/// full in a power-of-two array (up to about twice its entries) and grows by copying into
/// one twice as large; a B-tree's nodes are part empty. A struct's fields read from a map
/// (`INLINE`) are paid for from the struct's size, and their keys, which name them, not at
/// all.
pub(super) struct Entries<'a, 'de, const STRICT: bool, const INLINE: bool> {
    /// Its count of items left (two an entry) is the deserializer's innermost container's.
    pub(super) de: &'a mut Deserializer<'de, STRICT>,
    pub(super) keys: Paid<INLINE>,
    pub(super) values: Paid<INLINE>,
    /// A struct's field names, which its keys are read as (see [`FieldKey`]); empty for
    /// any other map.
    pub(super) fields: &'static [&'static str],
    /// The field the next key most likely names.
    pub(super) expected_field: usize,
}

impl<'de, const STRICT: bool, const INLINE: bool> de::MapAccess<'de>
    for Entries<'_, 'de, STRICT, INLINE>
{
    type Error = DeError;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let items = self.de.open.innermost;
        if items == 0 {
            return Ok(None);
        }
        self.de.open.innermost = items.saturating_sub(1);
        // The entries left, this one included: two items each.
        let count = items.div_ceil(2);
        if !INLINE {
            self.keys
                .pay(self.de, size_of::<K::Value>().saturating_mul(2), count)?;
        } else if !self.fields.is_empty() {
            return seed
                .deserialize(FieldKey {
                    de: self.de,
                    fields: self.fields,
                    expected: &mut self.expected_field,
                })
                .map(Some);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_value<V: Deserialize<'de>>(&mut self) -> Result<V, DeError> {
        self.value(size_of::<V>(), |de| V::deserialize(MapValue { de }))
    }

    #[inline(always)]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        self.value(size_of::<V::Value>(), |de| seed.deserialize(de))
    }

    fn size_hint(&self) -> Option<usize> {
        // Two items an entry, each a byte at least: the reader refused the map's header
        // unless the input left held two bytes for each entry, so the entries left are
        // already at most half of it.
        Some(self.de.hint(self.de.open.innermost / 2))
    }
}

impl<'de, const STRICT: bool, const INLINE: bool> Entries<'_, 'de, STRICT, INLINE> {
    #[inline(always)]
    fn value<T>(
        &mut self,
        size: usize,
        read: impl FnOnce(&mut Deserializer<'de, STRICT>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        let items = self.de.open.innermost;
        self.de.open.innermost = items.saturating_sub(1);
        // The values left, this one included: the first of each entry left.
        let count = items.div_ceil(2);
        if INLINE {
            self.values.pay(self.de, size, count)?;
        } else {
            self.values.pay(self.de, size.saturating_mul(2), count)?;
        }
        read(self.de)
    }
}
