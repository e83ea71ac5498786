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

use crate::error::ErrorKind;
use crate::limits::Limit;
use crate::value::assemble::Children;
use crate::value::leaf::{Ext, ShortText, Str};
use crate::value::{fill_nil, Value, ValueBuilder, DROP_RESERVE_PER_CONTAINER};

/// The running total of heap bytes charged, against its maximum.
struct Budget {
    used: usize,
    max: usize,
}

impl Budget {
    fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        match self.used.checked_add(bytes) {
            Some(total) if total <= self.max => {
                self.used = total;
                Ok(())
            }
            total => Err(ErrorKind::LimitExceeded {
                limit: Limit::AllocBytes,
                max: self.max,
                claimed: total.unwrap_or(usize::MAX),
            }),
        }
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

    /// An empty vector with room for exactly `len` items (and the drop reserve of the
    /// container that will own them), charged before it is requested.
    fn vec<T>(&mut self, len: usize) -> Result<Vec<T>, ErrorKind> {
        let bytes = len
            .saturating_mul(size_of::<T>())
            .saturating_add(DROP_RESERVE_PER_CONTAINER);
        let mut v = Vec::new();
        self.reserve(bytes, || v.try_reserve_exact(len))?;
        Ok(v)
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
            budget: Budget {
                used: 0,
                max: max_alloc_bytes,
            },
        }
    }

    /// Containers open around the next item.
    #[inline(always)]
    pub(crate) fn depth(&self) -> usize {
        self.values.depth()
    }

    /// Items the open containers still need after the one being read now; each needs at
    /// least one more byte of input.
    #[inline(always)]
    pub(crate) fn pending_after_current(&self) -> usize {
        self.values.pending_after_current()
    }

    /// Heap bytes charged so far.
    pub(crate) fn charged(&self) -> usize {
        self.budget.used
    }

    /// Takes one finished scalar. True when it finished the document
    /// ([`take_finished`](Self::take_finished) has it then).
    #[inline(always)]
    pub(crate) fn push_value(&mut self, value: Value) -> bool {
        self.values.push_with(|slot| fill_nil(slot, value))
    }

    /// Takes one str short enough to be held inline (it allocates nothing).
    #[inline(always)]
    pub(crate) fn push_short_str(&mut self, text: ShortText<'_>) -> bool {
        self.values.push_short_str(text)
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
                Value::Map(crate::Map::default())
            } else {
                Value::Array(crate::Array::default())
            };
            return Ok(self.values.complete(empty));
        }
        let children = if is_map {
            let mut entries = self.budget.vec(len)?;
            entries.resize_with(len, || (Value::Nil, Value::Nil));
            Children::Entries(entries)
        } else {
            let mut items = self.budget.vec(len)?;
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
        let mut owned = self.charged_buffer(bytes.len())?;
        owned.extend_from_slice(bytes);
        Ok(owned.into_boxed_slice())
    }

    /// A charged, fallible copy of ext data, with its type.
    pub(crate) fn owned_ext(&mut self, ext_type: i8, data: &[u8]) -> Result<Ext, ErrorKind> {
        let mut owned = self.charged_buffer(data.len().saturating_add(1))?;
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
                let mut owned = self.charged_string(s.len())?;
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
