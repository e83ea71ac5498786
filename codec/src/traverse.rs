//! One iterative pre-order walk over a [`Value`], shared by encoding, equality, cloning and
//! debug printing. The walk keeps its position on a heap stack, one frame per open non-empty
//! container, so the native stack stays flat whatever the nesting.

use std::fmt;
use std::slice;

use crate::leaf::Str;
use crate::timestamp::Timestamp;
use crate::value::{Integer, Value};

/// The text of a str token: held by a [`Str`], or a `str` from elsewhere (rmpv, a lossy
/// decode). Both are known to be UTF-8.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Text<'a> {
    Held(&'a Str),
    #[cfg_attr(not(feature = "rmpv"), allow(dead_code))]
    Borrowed(&'a str),
}

impl<'a> Text<'a> {
    pub(crate) fn as_bytes(self) -> &'a [u8] {
        match self {
            Text::Held(s) => s.as_bytes(),
            Text::Borrowed(s) => s.as_bytes(),
        }
    }

    pub(crate) fn as_str(self) -> &'a str {
        match self {
            Text::Held(s) => s.as_str(),
            Text::Borrowed(s) => s,
        }
    }
}

/// One item of a walk: a scalar with its data borrowed, or a container header with its count
/// (elements for an array, entries for a map) after which that many items (twice as many for a
/// map: key, value, key, ...) follow.
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

/// Where a walk starts: a value, or the children of an array or map (walked as that array or
/// map).
#[derive(Clone, Copy)]
pub(crate) enum Root<'a> {
    Value(&'a Value),
    Items(&'a [Value]),
    Entries(&'a [(Value, Value)]),
}

enum Frame<'a> {
    Items(slice::Iter<'a, Value>),
    /// Entries still to walk, and the value of the entry whose key was just yielded.
    Entries(slice::Iter<'a, (Value, Value)>, Option<&'a Value>),
}

/// The pre-order tokens of a value.
pub(crate) struct Tokens<'a> {
    root: Option<Root<'a>>,
    stack: Vec<Frame<'a>>,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(root: Root<'a>) -> Self {
        Tokens {
            root: Some(root),
            stack: Vec::new(),
        }
    }

    #[inline]
    fn open_items(&mut self, items: &'a [Value]) -> Token<'a> {
        if !items.is_empty() {
            self.stack.push(Frame::Items(items.iter()));
        }
        Token::Array(items.len())
    }

    #[inline]
    fn open_entries(&mut self, entries: &'a [(Value, Value)]) -> Token<'a> {
        if !entries.is_empty() {
            self.stack.push(Frame::Entries(entries.iter(), None));
        }
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

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    #[inline]
    fn next(&mut self) -> Option<Token<'a>> {
        if let Some(root) = self.root.take() {
            return Some(match root {
                Root::Value(v) => self.enter(v),
                Root::Items(items) => self.open_items(items),
                Root::Entries(entries) => self.open_entries(entries),
            });
        }
        loop {
            let next = match self.stack.last_mut()? {
                Frame::Items(items) => items.next(),
                Frame::Entries(entries, pending_value) => match pending_value.take() {
                    Some(v) => Some(v),
                    None => entries.next().map(|(k, v)| {
                        *pending_value = Some(v);
                        k
                    }),
                },
            };
            match next {
                Some(v) => return Some(self.enter(v)),
                None => {
                    self.stack.pop();
                }
            }
        }
    }
}

struct OpenContainer {
    is_map: bool,
    items: usize,
    seen: usize,
}

/// Writes tokens in the notation of `Value`'s `Debug`.
pub(crate) fn write_debug(tokens: Tokens<'_>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let mut open: Vec<OpenContainer> = Vec::new();
    for token in tokens {
        if let Some(top) = open.last_mut() {
            let separator = match (top.seen, top.is_map && top.seen % 2 == 1) {
                (0, _) => "",
                (_, true) => ": ",
                (_, false) => ", ",
            };
            f.write_str(separator)?;
            top.seen = top.seen.saturating_add(1);
        }
        match token {
            Token::Nil => f.write_str("nil")?,
            Token::Bool(b) => write!(f, "{b}")?,
            Token::Integer(n) => write!(f, "{n}")?,
            Token::F32(x) => write!(f, "{x:?}f32")?,
            Token::F64(x) => write!(f, "{x:?}")?,
            Token::Str(s) => write!(f, "{:?}", s.as_str())?,
            Token::Bin(b) => write!(f, "b\"{}\"", b.escape_ascii())?,
            Token::Ext(t, b) => write!(f, "ext({t}, b\"{}\")", b.escape_ascii())?,
            Token::Timestamp(ts) => write!(f, "ts({}, {})", ts.seconds(), ts.nanoseconds())?,
            Token::Array(0) => f.write_str("[]")?,
            Token::Map(0) => f.write_str("{}")?,
            Token::Array(n) | Token::Map(n) => {
                let is_map = matches!(token, Token::Map(_));
                f.write_str(if is_map { "{" } else { "[" })?;
                let items = if is_map { n.saturating_mul(2) } else { n };
                open.push(OpenContainer {
                    is_map,
                    items,
                    seen: 0,
                });
                continue;
            }
        }
        while let Some(top) = open.last() {
            if top.seen < top.items {
                break;
            }
            f.write_str(if top.is_map { "}" } else { "]" })?;
            open.pop();
        }
    }
    Ok(())
}
