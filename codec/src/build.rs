//! Assembles owned values from tokens without recursion, charging every allocation to a
//! budget first.
//!
//! Each open container gets a vector reserved for exactly its claimed count, so a finished
//! container becomes a boxed slice without a copy. A claim is only reserved after the
//! decoder has checked it against the bytes left: every child needs at least one byte, and
//! the children all open containers still expect must fit in what remains together. So the
//! reservations of all open containers add up to at most one element per input byte left
//! (postcard's rule), and every one is charged to the budget before it is requested.

use std::collections::TryReserveError;
use std::mem::size_of;

use crate::error::{ErrorKind, Limit};
use crate::leaf::{Ext, ShortText, Str};
use crate::limits::{Limits, DROP_RESERVE_PER_CONTAINER};
use crate::traverse::{Text, Token};
use crate::value::{fill_nil, Array, Map, Value};

/// The children of an open container: a vector of exactly its claimed count, filled with nil
/// until each child arrives.
enum Children {
    Items(Vec<Value>),
    Entries(Vec<(Value, Value)>),
}

struct OpenContainer {
    children: Children,
    /// Children still to come (keys and values count one each, so in a map a key is due
    /// when this is even).
    left: usize,
}

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
}

/// An empty vector with room for exactly `len` items, charged before it is requested.
fn reserve_exact<T>(len: usize, budget: &mut Budget) -> Result<Vec<T>, ErrorKind> {
    let bytes = len
        .saturating_mul(size_of::<T>())
        .saturating_add(DROP_RESERVE_PER_CONTAINER);
    let mut v = Vec::new();
    budget.reserve(bytes, || v.try_reserve_exact(len))?;
    Ok(v)
}

/// Builds one value from a token stream.
pub(crate) struct Builder {
    open: Vec<OpenContainer>,
    /// Sum of `left` over `open` except the innermost, which changes with every item.
    pending_outside: usize,
    max_depth: usize,
    budget: Budget,
}

impl Builder {
    pub(crate) fn new(limits: &Limits) -> Self {
        Builder {
            open: Vec::new(),
            pending_outside: 0,
            max_depth: limits.max_depth,
            budget: Budget {
                used: 0,
                max: limits.max_alloc_bytes,
            },
        }
    }

    /// A builder with no depth or allocation limit, for copying values that already exist.
    pub(crate) fn unbounded() -> Self {
        Builder::new(&Limits::unlimited())
    }

    /// Containers open around the next item.
    pub(crate) fn depth(&self) -> usize {
        self.open.len()
    }

    /// Items the open containers still need after the one being read now; each needs at
    /// least one more byte of input. In every open container one slot is in progress (taken
    /// by the open container inside it, or by the item being read), so it is not counted.
    pub(crate) fn pending_after_current(&self) -> usize {
        let innermost = self.open.last().map_or(0, |c| c.left);
        self.pending_outside
            .saturating_add(innermost)
            .saturating_sub(self.open.len())
    }

    /// Heap bytes charged so far.
    pub(crate) fn charged(&self) -> usize {
        self.budget.used
    }

    /// Takes one token. Returns the finished value when the token completed the top level.
    pub(crate) fn push_token(&mut self, token: Token<'_>) -> Result<Option<Value>, ErrorKind> {
        let value = match token {
            Token::Nil => Value::Nil,
            Token::Bool(b) => Value::Bool(b),
            Token::Integer(n) => Value::Integer(n),
            Token::F32(x) => Value::F32(x),
            Token::F64(x) => Value::F64(x),
            Token::Timestamp(ts) => Value::Timestamp(ts),
            Token::Str(Text::Held(s)) => Value::Str(self.copied_str(s)?),
            Token::Str(Text::Borrowed(s)) => Value::Str(self.owned_str(s)?),
            Token::Bin(b) => Value::Bin(self.owned_bytes(b)?),
            Token::Ext(t, b) => Value::Ext(self.owned_ext(t, b)?),
            Token::Array(n) => return self.open(false, n),
            Token::Map(n) => return self.open(true, n),
        };
        self.complete(value)
    }

    /// Takes one finished scalar. Returns it when it is the whole document.
    #[inline(always)]
    pub(crate) fn push_value(&mut self, value: Value) -> Result<Option<Value>, ErrorKind> {
        self.push_with(|slot| fill_nil(slot, value))
    }

    /// Takes one str short enough to be held inline (see [`Str::write_inline`]).
    #[inline(always)]
    pub(crate) fn push_inline_str(
        &mut self,
        text: ShortText<'_>,
    ) -> Result<Option<Value>, ErrorKind> {
        self.push_with(|slot| Str::write_inline(slot, text))
    }

    /// Takes one scalar, which `write` puts into a nil slot. The common case (an open
    /// container with more to come) is inlined into each caller and writes straight into the
    /// container's next slot, so the value is not moved through the stack.
    #[inline(always)]
    fn push_with(&mut self, write: impl FnOnce(&mut Value)) -> Result<Option<Value>, ErrorKind> {
        match self.open.last_mut() {
            Some(top) if top.left > 1 => {
                if let Some(slot) = top.next_slot() {
                    write(slot);
                }
                Ok(None)
            }
            _ => {
                let mut value = Value::Nil;
                write(&mut value);
                self.complete(value)
            }
        }
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

    /// A copy of `s`, charged and fallible when it is on the heap.
    fn copied_str(&mut self, s: &Str) -> Result<Str, ErrorKind> {
        if s.is_heap() {
            self.owned_str(s.as_str())
        } else {
            Ok(s.clone())
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

    pub(crate) fn open(&mut self, is_map: bool, len: usize) -> Result<Option<Value>, ErrorKind> {
        let depth = self.open.len().saturating_add(1);
        if depth > self.max_depth {
            return Err(ErrorKind::LimitExceeded {
                limit: Limit::Depth,
                max: self.max_depth,
                claimed: depth,
            });
        }
        if len == 0 {
            let empty = if is_map {
                Value::Map(Map::default())
            } else {
                Value::Array(Array::default())
            };
            return self.complete(empty);
        }
        let (children, left) = if is_map {
            let mut entries = reserve_exact(len, &mut self.budget)?;
            entries.resize_with(len, || (Value::Nil, Value::Nil));
            (Children::Entries(entries), len.saturating_mul(2))
        } else {
            let mut items = reserve_exact(len, &mut self.budget)?;
            items.resize_with(len, || Value::Nil);
            (Children::Items(items), len)
        };
        if self.open.len() == self.open.capacity() {
            let extra = self.open.capacity().max(4);
            let bytes = extra.saturating_mul(size_of::<OpenContainer>());
            let open = &mut self.open;
            self.budget
                .reserve(bytes, || open.try_reserve_exact(extra))?;
        }
        if let Some(parent) = self.open.last() {
            self.pending_outside = self.pending_outside.saturating_add(parent.left);
        }
        self.open.push(OpenContainer { children, left });
        Ok(None)
    }

    /// Files a finished value under the innermost open container, closing every container it
    /// completes. Returns the top-level value once it is finished.
    #[inline(never)]
    fn complete(&mut self, mut value: Value) -> Result<Option<Value>, ErrorKind> {
        loop {
            let Some(top) = self.open.last_mut() else {
                return Ok(Some(value));
            };
            top.file(value);
            if top.left > 0 {
                return Ok(None);
            }
            let finished = self.open.pop().map(|c| c.children);
            if let Some(parent) = self.open.last() {
                self.pending_outside = self.pending_outside.saturating_sub(parent.left);
            }
            value = match finished {
                Some(Children::Items(items)) => Value::Array(Array::from(items)),
                Some(Children::Entries(entries)) => Value::Map(Map::from(entries)),
                None => return Ok(None),
            };
        }
    }
}

impl OpenContainer {
    /// Files the next child into its slot.
    #[inline(always)]
    fn file(&mut self, value: Value) {
        if let Some(slot) = self.next_slot() {
            fill_nil(slot, value);
        }
    }

    /// The slot of the next child, which holds nil until the child is written there; counts
    /// the child as arrived. Every slot was filled with nil when the container opened, so
    /// `left` always names one.
    #[inline(always)]
    fn next_slot(&mut self) -> Option<&mut Value> {
        let left = self.left;
        self.left = left.saturating_sub(1);
        match &mut self.children {
            Children::Items(items) => {
                let at = items.len().saturating_sub(left);
                items.get_mut(at)
            }
            Children::Entries(entries) => {
                let at = entries.len().saturating_mul(2).saturating_sub(left);
                let (key, value) = entries.get_mut(at / 2)?;
                Some(if at % 2 == 0 { key } else { value })
            }
        }
    }
}
