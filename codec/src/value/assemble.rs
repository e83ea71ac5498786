//! Assembles values from a pre-order sequence of items (scalars and container starts) without
//! recursion: the one place where a tree is put together. The decoder feeds it what it read
//! (charging every allocation to its budget first); `Clone`, `from_rmpv` and users building
//! deep values by hand use it directly, through [`ValueBuilder`].

use crate::prelude::*;
use alloc::collections::TryReserveError;

use crate::invariant;
use crate::value::leaf::{ShortText, Str};
use crate::value::walk::{Text, Token};
use crate::value::{fill_nil, Array, Map, Value};

/// The children of an open container: a vector of exactly its count, filled with nil until
/// each child arrives.
pub(crate) enum Children {
    Items(Vec<Value>),
    Entries(Vec<(Value, Value)>),
}

/// One container being filled.
pub(crate) struct OpenContainer {
    children: Children,
    /// Children still to come (keys and values count one each, so in a map a key is due
    /// when this is even).
    left: usize,
}

/// How the stack of open containers grows when `open` entries fill its `capacity`: by
/// `Some((entries, bytes))`. Shared with [`validate`](crate::validate), which works out what
/// a decode would charge without building anything.
pub(crate) fn stack_growth(open: usize, capacity: usize) -> Option<(usize, usize)> {
    if open < capacity {
        return None;
    }
    let extra = capacity.max(4);
    Some((
        extra,
        extra.saturating_mul(core::mem::size_of::<OpenContainer>()),
    ))
}

/// Builds values from their items in pre-order, without recursion: a container start says
/// how many items follow it, and each finished container becomes an item of the one around
/// it.
///
/// ```
/// use hardpack::{Value, value::ValueBuilder};
///
/// // [1, {"k": []}], one item at a time.
/// let mut b = ValueBuilder::new();
/// assert!(b.start_array(2).is_none());
/// assert!(b.push(Value::from(1u8)).is_none());
/// assert!(b.start_map(1).is_none());
/// assert!(b.push(Value::from("k")).is_none());
/// let done = b.start_array(0).expect("the last item completes the value");
/// assert_eq!(done.to_string(), r#"[1, {"k": []}]"#);
///
/// // A value nested a million deep, built without recursion (and dropped without it too).
/// let mut b = ValueBuilder::new();
/// for _ in 0..1_000_000 {
///     b.start_array(1);
/// }
/// let deep = b.push(Value::Nil).expect("complete");
/// assert_eq!(deep.shape().max_depth, 1_000_000);
/// ```
///
/// Each container start allocates its children's slots at once (`len` values, 24 bytes each):
/// the lengths are the caller's to bound. When a value is finished the builder is empty and
/// can build the next one.
#[derive(Default)]
pub struct ValueBuilder {
    open: Vec<OpenContainer>,
    /// Sum of `left` over `open` except the innermost, which changes with every item.
    pending_outside: usize,
    /// The top-level value, once its last item arrived, until it is taken.
    finished: Option<Value>,
}

impl ValueBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        ValueBuilder::default()
    }

    /// Adds a finished value (a scalar, or a container built some other way) as the next
    /// item. Returns the top-level value when this item completed it.
    pub fn push(&mut self, value: Value) -> Option<Value> {
        self.complete(value);
        self.take_finished()
    }

    /// Starts an array: the next `len` items are its elements. Returns the top-level value
    /// when an empty array completed it.
    pub fn start_array(&mut self, len: usize) -> Option<Value> {
        if len == 0 {
            return self.push(Value::Array(Array::default()));
        }
        let mut items = Vec::with_capacity(len);
        items.resize_with(len, || Value::Nil);
        self.open_children(Children::Items(items));
        None
    }

    /// Starts a map: the next `2 * len` items are its keys and values, alternating. Returns
    /// the top-level value when an empty map completed it.
    pub fn start_map(&mut self, len: usize) -> Option<Value> {
        if len == 0 {
            return self.push(Value::Map(Map::default()));
        }
        let mut entries = Vec::with_capacity(len);
        entries.resize_with(len, || (Value::Nil, Value::Nil));
        self.open_children(Children::Entries(entries));
        None
    }

    /// Containers started and not yet finished.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// True when no value is in progress.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// The finished top-level value, once (after an item for which the decoder's side got
    /// `true`).
    #[inline]
    pub(crate) fn take_finished(&mut self) -> Option<Value> {
        self.finished.take()
    }

    /// Opens a container whose children vector has exactly its count of nil slots (at least
    /// one). The caller made the allocations: the decoder charges them to its budget first.
    #[inline]
    pub(crate) fn open_children(&mut self, children: Children) {
        let left = match &children {
            Children::Items(items) => items.len(),
            Children::Entries(entries) => entries.len().saturating_mul(2),
        };
        debug_assert!(
            left > 0,
            "an empty container is a finished value, not an open one"
        );
        if let Some(parent) = self.open.last() {
            self.pending_outside = self.pending_outside.saturating_add(parent.left);
        }
        self.open.push(OpenContainer { children, left });
    }

    /// The room the stack of open containers would grow by before the next container opens,
    /// if it must grow: `Some((entries, bytes))`.
    pub(crate) fn stack_growth(&self) -> Option<(usize, usize)> {
        stack_growth(self.open.len(), self.open.capacity())
    }

    /// Grows the stack of open containers by exactly `entries`, or says the allocator refused.
    pub(crate) fn try_grow_stack(&mut self, entries: usize) -> Result<(), TryReserveError> {
        self.open.try_reserve_exact(entries)
    }

    /// Items the open containers still need after the one being read now. In every open
    /// container one slot is in progress (taken by the open container inside it, or by the
    /// item being read), so it is not counted.
    pub(crate) fn pending_after_current(&self) -> usize {
        let innermost = self.open.last().map_or(0, |c| c.left);
        self.pending_outside
            .saturating_add(innermost)
            .saturating_sub(self.open.len())
    }

    /// Takes one str short enough to be held inline, written straight into its slot. True
    /// when it finished the top-level value.
    #[inline(always)]
    pub(crate) fn push_short_str(&mut self, text: ShortText<'_>) -> bool {
        self.push_with(|slot| {
            fill_nil(slot, Value::Str(Str::default()));
            match slot {
                Value::Str(s) => s.set_short(text),
                _ => invariant::broken("a str slot that holds no str"),
            }
        })
    }

    /// Takes one scalar, which `write` puts into a nil slot; true when it finished the
    /// top-level value. The common case (an open container with more to come) is inlined into
    /// each caller and writes straight into the container's next slot, so the value is not
    /// moved through the stack.
    ///
    /// Answering with a `bool` (the finished value waits in the builder) keeps a 24-byte
    /// `Option<Value>` out of every return: its niche byte, stored alone, then reloaded in a
    /// wider word, stalled store forwarding on every container's last item.
    #[inline(always)]
    pub(crate) fn push_with(&mut self, write: impl FnOnce(&mut Value)) -> bool {
        match self.open.last_mut() {
            Some(top) if top.left > 1 => {
                match top.next_slot() {
                    Some(slot) => write(slot),
                    None => invariant::broken("an open container without a free slot"),
                }
                false
            }
            _ => {
                let mut value = Value::Nil;
                write(&mut value);
                self.complete(value)
            }
        }
    }

    /// Files a finished value under the innermost open container, closing every container it
    /// completes. True when the top-level value is finished (it waits in `finished`).
    #[inline(never)]
    pub(crate) fn complete(&mut self, mut value: Value) -> bool {
        loop {
            let Some(top) = self.open.last_mut() else {
                debug_assert!(self.finished.is_none(), "a finished value was not taken");
                self.finished = Some(value);
                return true;
            };
            match top.next_slot() {
                Some(slot) => fill_nil(slot, value),
                None => invariant::broken("an open container without a free slot"),
            }
            if top.left > 0 {
                return false;
            }
            let finished = self.open.pop().map(|c| c.children);
            if let Some(parent) = self.open.last() {
                self.pending_outside = self.pending_outside.saturating_sub(parent.left);
            }
            value = match finished {
                Some(Children::Items(items)) => Value::Array(Array::from(items)),
                Some(Children::Entries(entries)) => Value::Map(Map::from(entries)),
                None => {
                    invariant::broken("a finished container vanished from the stack");
                    return false;
                }
            };
        }
    }

    /// Takes one item of a walk over an existing value (copying its data).
    pub(crate) fn push_token(&mut self, token: Token<'_>) -> Option<Value> {
        let value = match token {
            Token::Nil => Value::Nil,
            Token::Bool(b) => Value::Bool(b),
            Token::Integer(n) => Value::Integer(n),
            Token::F32(x) => Value::F32(x),
            Token::F64(x) => Value::F64(x),
            Token::Timestamp(ts) => Value::Timestamp(ts),
            Token::Str(Text::Held(s)) => Value::Str(s.clone()),
            Token::Str(Text::Borrowed(s)) => Value::Str(Str::from(s)),
            Token::Str(text @ Text::Checked(_)) => Value::Str(Str::from(text.as_str())),
            Token::Bin(b) => Value::Bin(b.into()),
            Token::Ext(t, b) => Value::Ext(crate::value::Ext::new(t, b)),
            Token::Array(n) => return self.start_array(n),
            Token::Map(n) => return self.start_map(n),
        };
        self.push(value)
    }
}

impl OpenContainer {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_builder_is_empty_between_values_and_only_then() {
        let mut builder = ValueBuilder::new();
        assert!(builder.is_empty());
        assert!(builder.start_array(2).is_none());
        assert!(builder.start_map(1).is_none());
        assert_eq!(builder.depth(), 2);
        assert!(builder.push(Value::from("k")).is_none());
        assert!(!builder.is_empty(), "a value in progress");
        assert!(builder.push(Value::Nil).is_none());
        assert_eq!(builder.depth(), 1);
        let done = builder.push(Value::from(1u8));
        assert_eq!(
            done.map(|v| v.to_string()).as_deref(),
            Some(r#"[{"k": null}, 1]"#)
        );
        assert!(builder.is_empty());
        assert_eq!(builder.depth(), 0);
    }
}
