//! The decoder's side of building a value: every allocation a decode makes is charged to a
//! budget first, then handed to the plain [`ValueBuilder`].
//!
//! Each open container gets a vector reserved for exactly its claimed count, so a finished
//! container becomes a boxed slice without a copy. A claim is only reserved after the
//! decoder has checked it against the bytes left: every child needs at least one byte, and
//! the children all open containers still expect must fit in what remains together. So the
//! reservations of all open containers add up to at most one element per input byte left
//! (postcard's rule), and every one is charged to the budget before it is requested.

use crate::prelude::*;
use alloc::collections::TryReserveError;
use core::mem::size_of;

use super::read::{check_len, Sink};
use crate::error::ErrorKind;
use crate::limits::{Limit, Limits};
use crate::value::assemble::Children;
use crate::value::leaf::{Ext, ShortText, Str};
use crate::value::{fill_nil, Value, ValueBuilder, DROP_RESERVE_PER_CONTAINER};

/// The heap bytes a decode may still charge, of its maximum. (Kept as what is left, not as
/// the total used: a charge is then one comparison and one subtraction, where a total needs
/// an overflow check too, on every charge.)
pub(crate) struct Budget {
    left: usize,
    max: usize,
}

/// The bytes a decode charges for an array (`is_map` false) or map of `len` > 0 children:
/// the children's slots and the drop reserve of the container that will own them.
pub(crate) fn container_charge(is_map: bool, len: usize) -> usize {
    let slot = if is_map {
        size_of::<(Value, Value)>()
    } else {
        size_of::<Value>()
    };
    len.saturating_mul(slot)
        .saturating_add(DROP_RESERVE_PER_CONTAINER)
}

/// The bytes a decode charges for a str of `len` bytes that is valid UTF-8: none for text held
/// inline.
pub(crate) fn str_charge(len: usize) -> usize {
    if len <= Str::INLINE_CAPACITY {
        0
    } else {
        len
    }
}

/// The bytes a decode charges for a bin of `len` bytes (an empty one allocates nothing).
pub(crate) fn bin_charge(len: usize) -> usize {
    len
}

/// The bytes a decode charges for an ext with `len` bytes of data: its type byte too.
pub(crate) fn ext_charge(len: usize) -> usize {
    len.saturating_add(1)
}

impl Budget {
    pub(crate) fn new(max: usize) -> Self {
        Budget { left: max, max }
    }

    /// Heap bytes charged so far.
    pub(crate) fn used(&self) -> usize {
        self.max.saturating_sub(self.left)
    }

    /// Heap bytes that may still be charged.
    #[inline(always)]
    #[cfg(feature = "serde")]
    pub(crate) fn left(&self) -> usize {
        self.left
    }

    #[inline(always)]
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        if bytes > self.left {
            return Err(ErrorKind::LimitExceeded {
                limit: Limit::AllocBytes,
                max: self.max,
                claimed: self.used().saturating_add(bytes),
            });
        }
        self.left = self.left.saturating_sub(bytes);
        Ok(())
    }

    /// Charges `bytes`, then makes the reservation that needs them: the one way decoding
    /// asks for memory, so nothing is requested before it is charged, and a refusal from the
    /// allocator is an error rather than an abort.
    fn reserve(
        &mut self,
        bytes: usize,
        reserve: impl FnOnce() -> Result<(), TryReserveError>,
    ) -> Result<(), ErrorKind> {
        self.charge(bytes)?;
        reserve().map_err(|_| ErrorKind::OutOfMemory { bytes })
    }

    /// An empty vector with room for exactly `len` children of an array or map, charged
    /// (with the drop reserve of the container that will own them) before it is requested.
    fn children<T>(&mut self, is_map: bool, len: usize) -> Result<Vec<T>, ErrorKind> {
        let mut v = Vec::new();
        self.reserve(container_charge(is_map, len), || v.try_reserve_exact(len))?;
        Ok(v)
    }
}

impl<'a> Sink<'a> for Builder {
    #[inline(always)]
    fn depth(&self) -> usize {
        self.values.depth()
    }

    #[inline(always)]
    fn pending_after_current(&self) -> usize {
        self.values.pending_after_current()
    }

    #[inline(always)]
    fn scalar(&mut self, value: Value) -> bool {
        self.push_value(value)
    }

    #[inline(always)]
    fn short_str(&mut self, text: ShortText<'a>) -> bool {
        self.values.push_short_str(text)
    }

    #[inline]
    fn str(&mut self, text: &'a str) -> Result<bool, ErrorKind> {
        let text = self.owned_str(text)?;
        Ok(self.push_value(Value::Str(text)))
    }

    #[cold]
    fn invalid_str(&mut self, bytes: &'a [u8], limits: &Limits) -> Result<bool, ErrorKind> {
        // Each invalid byte becomes at most three bytes of U+FFFD: a scratch string of that
        // size, charged and reserved exactly, so it never grows. (This is what
        // `String::from_utf8_lossy` does, without its growth past the charge.)
        let mut replaced = self.charged_string(bytes.len().saturating_mul(3))?;
        for chunk in bytes.utf8_chunks() {
            replaced.push_str(chunk.valid());
            if !chunk.invalid().is_empty() {
                replaced.push(char::REPLACEMENT_CHARACTER);
            }
        }
        // The replacement can make the str longer than its claim: the limit is on what the
        // value holds.
        check_len(limits, Limit::StrLen, replaced.len())?;
        let text = self.owned_str(&replaced)?;
        Ok(self.push_value(Value::Str(text)))
    }

    #[inline]
    fn bin(&mut self, bytes: &'a [u8]) -> Result<bool, ErrorKind> {
        let bin = self.owned_bytes(bytes)?;
        Ok(self.push_value(Value::Bin(bin)))
    }

    #[inline]
    fn ext(&mut self, ext_type: i8, data: &'a [u8]) -> Result<bool, ErrorKind> {
        let ext = self.owned_ext(ext_type, data)?;
        Ok(self.push_value(Value::Ext(ext)))
    }

    #[inline]
    fn open(&mut self, is_map: bool, len: usize) -> Result<bool, ErrorKind> {
        Builder::open(self, is_map, len)
    }

    fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        self.budget.charge(bytes)
    }
}

/// Builds one value from what the decoder read, charging every allocation.
pub(crate) struct Builder {
    values: ValueBuilder,
    budget: Budget,
}

impl Builder {
    pub(crate) fn new(max_alloc_bytes: usize) -> Self {
        Builder {
            values: ValueBuilder::new(),
            budget: Budget::new(max_alloc_bytes),
        }
    }

    /// Heap bytes charged so far.
    pub(crate) fn charged(&self) -> usize {
        self.budget.used()
    }

    /// Takes one finished scalar. True when it finished the document
    /// ([`take_finished`](Self::take_finished) has it then).
    #[inline(always)]
    pub(crate) fn push_value(&mut self, value: Value) -> bool {
        self.values.push_with(|slot| fill_nil(slot, value))
    }

    /// The finished document.
    pub(crate) fn take_finished(&mut self) -> Option<Value> {
        self.values.take_finished()
    }

    /// Opens an array (`is_map` false) or map of `len` > 0 children, charging its vector and
    /// any growth of the stack of open containers. The caller has checked the depth and the
    /// room the claim needs; an empty container is a scalar for the builder.
    pub(crate) fn open(&mut self, is_map: bool, len: usize) -> Result<bool, ErrorKind> {
        if len == 0 {
            let empty = if is_map {
                Value::Map(crate::value::Map::default())
            } else {
                Value::Array(crate::value::Array::default())
            };
            return Ok(self.values.complete(empty));
        }
        let children = if is_map {
            let mut entries = self.budget.children(true, len)?;
            entries.resize_with(len, || (Value::Nil, Value::Nil));
            Children::Entries(entries)
        } else {
            let mut items = self.budget.children(false, len)?;
            items.resize_with(len, || Value::Nil);
            Children::Items(items)
        };
        if let Some((entries, bytes)) = self.values.stack_growth() {
            let values = &mut self.values;
            self.budget
                .reserve(bytes, || values.try_grow_stack(entries))?;
        }
        self.values.open_children(children);
        Ok(false)
    }

    /// A charged, fallible copy of `bytes`.
    pub(crate) fn owned_bytes(&mut self, bytes: &[u8]) -> Result<Box<[u8]>, ErrorKind> {
        if bytes.is_empty() {
            return Ok(Box::default());
        }
        let mut owned = self.charged_buffer(bin_charge(bytes.len()))?;
        owned.extend_from_slice(bytes);
        Ok(owned.into_boxed_slice())
    }

    /// A charged, fallible copy of ext data, with its type.
    pub(crate) fn owned_ext(&mut self, ext_type: i8, data: &[u8]) -> Result<Ext, ErrorKind> {
        let mut owned = self.charged_buffer(ext_charge(data.len()))?;
        owned.extend_from_slice(&ext_type.to_be_bytes());
        owned.extend_from_slice(data);
        Ok(Ext::from_type_and_data(owned.into_boxed_slice()))
    }

    /// `s` held as a [`Str`]: inline when it is short, else a charged, fallible copy.
    #[inline]
    pub(crate) fn owned_str(&mut self, s: &str) -> Result<Str, ErrorKind> {
        match Str::inline(s) {
            Some(inline) => Ok(inline),
            None => {
                let mut owned = self.charged_string(str_charge(s.len()))?;
                owned.push_str(s);
                Ok(Str::heap(owned.into_boxed_str()))
            }
        }
    }

    /// An empty buffer with room for `bytes`, charged before it is requested.
    fn charged_buffer(&mut self, bytes: usize) -> Result<Vec<u8>, ErrorKind> {
        let mut buffer = Vec::new();
        self.budget
            .reserve(bytes, || buffer.try_reserve_exact(bytes))?;
        Ok(buffer)
    }

    /// An empty string with room for `bytes`, charged before it is requested.
    pub(crate) fn charged_string(&mut self, bytes: usize) -> Result<String, ErrorKind> {
        let mut text = String::new();
        self.budget
            .reserve(bytes, || text.try_reserve_exact(bytes))?;
        Ok(text)
    }
}
