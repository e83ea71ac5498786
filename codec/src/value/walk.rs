//! The one walk over a [`Value`]: an iterator of enter/leave events in pre-order, keeping its
//! position on a heap stack (one frame per open container), so the native stack stays flat
//! whatever the nesting. Encoding, equality, cloning, `Debug`, `Display`, [`Value::shape`] and
//! the rmpv conversion all use it (regex-syntax's `HeapVisitor` is the model).

use crate::prelude::*;
use core::slice;

use crate::timestamp::Timestamp;
use crate::value::leaf::Str;
use crate::value::{Integer, Value};

/// The text of a str token: held by a [`Str`], a `str` from elsewhere (rmpv, the token
/// reader), or bytes a decode checked to be UTF-8 (a [`ValueRef`](crate::ValueRef)'s, which
/// keeps short text as bytes for the reason `Str` holds it inline: without `unsafe`, only a
/// second check makes a `&str` of them). All are known to be UTF-8.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Text<'a> {
    Held(&'a Str),
    Borrowed(&'a str),
    Checked(&'a [u8]),
}

impl<'a> Text<'a> {
    pub(crate) fn as_bytes(self) -> &'a [u8] {
        match self {
            Text::Held(s) => s.as_bytes(),
            Text::Borrowed(s) => s.as_bytes(),
            Text::Checked(b) => b,
        }
    }

    pub(crate) fn as_str(self) -> &'a str {
        match self {
            Text::Held(s) => s.as_str(),
            Text::Borrowed(s) => s,
            Text::Checked(b) => checked_str(b),
        }
    }
}

/// Bytes a decode checked to be UTF-8, as a `&str` (checked again: see [`Text`]).
pub(crate) fn checked_str(bytes: &[u8]) -> &str {
    core::str::from_utf8(bytes).unwrap_or_else(|_| {
        crate::invariant::broken("text checked as UTF-8 that is not");
        ""
    })
}

/// One value as the walk meets it: a scalar with its data borrowed, or the start of a
/// container with its count (elements for an array, entries for a map).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Token<'a> {
    Nil,
    Bool(bool),
    Integer(Integer),
    F32(f32),
    F64(f64),
    Str(Text<'a>),
    Bin(&'a [u8]),
    Ext(i8, &'a [u8]),
    Timestamp(Timestamp),
    Array(usize),
    Map(usize),
}

impl PartialEq for Token<'_> {
    /// Floats compare by their bits, so a NaN equals itself and equality is an equivalence.
    fn eq(&self, other: &Self) -> bool {
        use Token::*;
        match (self, other) {
            (Nil, Nil) => true,
            (Bool(a), Bool(b)) => a == b,
            (Integer(a), Integer(b)) => a == b,
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            (Str(a), Str(b)) => a.as_bytes() == b.as_bytes(),
            (Bin(a), Bin(b)) => a == b,
            (Ext(t, a), Ext(u, b)) => t == u && a == b,
            (Timestamp(a), Timestamp(b)) => a == b,
            (Array(a), Array(b)) | (Map(a), Map(b)) => a == b,
            _ => false,
        }
    }
}

/// Where a value sits: what comes before it in its container's notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The value the walk started at.
    Root,
    /// An array element; `first` for the first one.
    Element { first: bool },
    /// A map key; `first` for the first entry's.
    Key { first: bool },
    /// A map value (after its key).
    MapValue,
}

/// Which kind of container a [`Event::Leave`] closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Container {
    Array,
    Map,
}

/// One step of a walk. Every `Enter` of an array or map (empty ones included) is matched by a
/// `Leave` after its children.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Event<'a> {
    Enter(Slot, Token<'a>),
    Leave(Container),
}

/// Where a walk starts: a value, or the children of an array or map (walked as that array or
/// map).
#[derive(Clone, Copy)]
pub(crate) enum Root<'a> {
    Value(&'a Value),
    Items(&'a [Value]),
    Entries(&'a [(Value, Value)]),
}

enum Frame<'a> {
    Items {
        items: slice::Iter<'a, Value>,
        first: bool,
    },
    Entries {
        entries: slice::Iter<'a, (Value, Value)>,
        /// The value of the entry whose key was just yielded.
        pending_value: Option<&'a Value>,
        first: bool,
    },
}

/// The events of a walk over a value.
pub(crate) struct Walk<'a> {
    root: Option<Root<'a>>,
    stack: Vec<Frame<'a>>,
}

impl<'a> Walk<'a> {
    pub(crate) fn new(root: Root<'a>) -> Self {
        Walk {
            root: Some(root),
            stack: Vec::new(),
        }
    }

    #[inline]
    fn open_items(&mut self, items: &'a [Value]) -> Token<'a> {
        self.stack.push(Frame::Items {
            items: items.iter(),
            first: true,
        });
        Token::Array(items.len())
    }

    #[inline]
    fn open_entries(&mut self, entries: &'a [(Value, Value)]) -> Token<'a> {
        self.stack.push(Frame::Entries {
            entries: entries.iter(),
            pending_value: None,
            first: true,
        });
        Token::Map(entries.len())
    }

    #[inline(always)]
    fn enter(&mut self, value: &'a Value) -> Token<'a> {
        match value {
            Value::Nil => Token::Nil,
            Value::Bool(b) => Token::Bool(*b),
            Value::Integer(n) => Token::Integer(*n),
            Value::F32(x) => Token::F32(*x),
            Value::F64(x) => Token::F64(*x),
            Value::Str(s) => Token::Str(Text::Held(s)),
            Value::Bin(b) => Token::Bin(b),
            Value::Ext(e) => Token::Ext(e.ext_type(), e.data()),
            Value::Timestamp(ts) => Token::Timestamp(*ts),
            Value::Array(a) => self.open_items(a),
            Value::Map(m) => self.open_entries(m),
        }
    }
}

impl<'a> Iterator for Walk<'a> {
    type Item = Event<'a>;

    #[inline]
    fn next(&mut self) -> Option<Event<'a>> {
        if let Some(root) = self.root.take() {
            let token = match root {
                Root::Value(v) => self.enter(v),
                Root::Items(items) => self.open_items(items),
                Root::Entries(entries) => self.open_entries(entries),
            };
            return Some(Event::Enter(Slot::Root, token));
        }
        let (next, slot) = match self.stack.last_mut()? {
            Frame::Items { items, first } => {
                let slot = Slot::Element { first: *first };
                *first = false;
                (items.next(), slot)
            }
            Frame::Entries {
                entries,
                pending_value,
                first,
            } => match pending_value.take() {
                Some(v) => (Some(v), Slot::MapValue),
                None => {
                    let slot = Slot::Key { first: *first };
                    *first = false;
                    let key = entries.next().map(|(k, v)| {
                        *pending_value = Some(v);
                        k
                    });
                    (key, slot)
                }
            },
        };
        Some(match next {
            Some(v) => Event::Enter(slot, self.enter(v)),
            None => match self.stack.pop() {
                Some(Frame::Entries { .. }) => Event::Leave(Container::Map),
                _ => Event::Leave(Container::Array),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_of_a_nested_value() {
        let value = Value::from(vec![
            Value::from(1u8),
            Value::from(vec![(Value::from("k"), Value::from(Vec::<Value>::new()))]),
        ]);
        let events: Vec<String> = Walk::new(Root::Value(&value))
            .map(|e| match e {
                Event::Enter(slot, token) => format!("{slot:?} {token:?}"),
                Event::Leave(c) => format!("leave {c:?}"),
            })
            .collect();
        assert_eq!(
            events,
            [
                "Root Array(2)",
                "Element { first: true } Integer(1)",
                "Element { first: false } Map(1)",
                "Key { first: true } Str(Held(\"k\"))",
                "MapValue Array(0)",
                "leave Array",
                "leave Map",
                "leave Array",
            ]
        );
    }
}
