//! What one read step hands the deserializer: an item as plain fields, and the sink that
//! holds it and counts it in the open containers.

use crate::prelude::*;

use super::deserializer::OpenContainers;
use crate::decode::budget::Budget;
use crate::decode::read::Sink;
use crate::error::ErrorKind;
use crate::timestamp::Timestamp;
use crate::value::Value;

/// What one read step handed out, as plain fields. (Not the [`Token`](crate::decode::Token) enum: an enum moved
/// from the read to the visit went through memory, written a field at a time and loaded 16
/// bytes at a time, and stalled on store forwarding; a struct of scalars stays in registers.)
#[derive(Clone, Copy)]
pub(super) struct Item<'a> {
    /// Where the item starts.
    pub(super) offset: usize,
    /// The containers open around it.
    pub(super) depth: usize,
    pub(super) kind: Kind,
    /// A bool (0 or 1), an integer (an `Int`'s bits), a float's bits, an array's or map's
    /// count, an ext's type (its byte).
    pub(super) word: u64,
    pub(super) text: &'a str,
    /// A bin's bytes, an ext's data.
    pub(super) bytes: &'a [u8],
    pub(super) timestamp: Timestamp,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Nil,
    Bool,
    /// A non-negative integer.
    Uint,
    /// A negative integer.
    Int,
    F32,
    F64,
    Str,
    Bin,
    Ext,
    Timestamp,
    Array,
    Map,
}

impl<'a> Item<'a> {
    /// An item at `offset` and `depth`, its content still to be read.
    #[inline(always)]
    pub(super) fn at(offset: usize, depth: usize) -> Self {
        Item {
            offset,
            depth,
            kind: Kind::Nil,
            word: 0,
            text: "",
            bytes: &[],
            timestamp: Timestamp::UNIX_EPOCH,
        }
    }

    #[inline(always)]
    pub(super) fn set_scalar(&mut self, value: &Value) {
        match *value {
            Value::Nil => self.kind = Kind::Nil,
            Value::Bool(b) => {
                self.kind = Kind::Bool;
                self.word = u64::from(b);
            }
            Value::Integer(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => {
                    self.kind = Kind::Uint;
                    self.word = u;
                }
                (None, Some(i)) => {
                    self.kind = Kind::Int;
                    self.word = u64::from_ne_bytes(i.to_ne_bytes());
                }
                (None, None) => crate::invariant::broken("an integer neither u64 nor i64"),
            },
            Value::F32(x) => {
                self.kind = Kind::F32;
                self.word = u64::from(x.to_bits());
            }
            Value::F64(x) => {
                self.kind = Kind::F64;
                self.word = x.to_bits();
            }
            Value::Timestamp(ts) => {
                self.kind = Kind::Timestamp;
                self.timestamp = ts;
            }
            _ => crate::invariant::broken("a scalar item that owns heap"),
        }
    }

    /// An array's or map's count.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        usize::try_from(self.word).unwrap_or(usize::MAX)
    }

    pub(super) fn ext_type(&self) -> i8 {
        i8::from_ne_bytes([self.word.to_ne_bytes()[0]])
    }

    /// What the item is, for messages.
    pub(super) fn describe(&self) -> String {
        match self.kind {
            Kind::Nil => "nil".to_string(),
            Kind::Bool => "a bool".to_string(),
            Kind::Uint | Kind::Int => "an integer".to_string(),
            Kind::F32 | Kind::F64 => "a float".to_string(),
            Kind::Str => "a str".to_string(),
            Kind::Bin => "a bin".to_string(),
            Kind::Ext => "an ext".to_string(),
            Kind::Timestamp => "a timestamp".to_string(),
            Kind::Array => format!("an array of {}", self.len()),
            Kind::Map => format!("a map of {}", self.len()),
        }
    }
}

/// The low 32 bits of a word (an f32's bits).
#[inline(always)]
pub(super) fn narrow_word(word: u64) -> u32 {
    let [a, b, c, d, ..] = word.to_le_bytes();
    u32::from_le_bytes([a, b, c, d])
}

/// Holds the one item a read step hands out, and counts it in the open containers.
pub(super) struct TypedSink<'s, 'a> {
    pub(super) open: &'s mut OpenContainers,
    pub(super) budget: &'s mut Budget,
    pub(super) item: Item<'a>,
}

impl TypedSink<'_, '_> {
    /// One item read; true at the top level (the value is complete when the type's
    /// `Deserialize` returns: serde's recursion knows where each container ends).
    #[inline(always)]
    pub(super) fn item_done(&mut self) -> bool {
        self.open.depth == 0
    }
}

impl<'a> Sink<'a> for TypedSink<'_, 'a> {
    const SHORT_TEXT: bool = false;

    #[inline(always)]
    fn depth(&self) -> usize {
        self.open.depth
    }

    #[inline(always)]
    fn levels(&self) -> usize {
        self.open.levels()
    }

    #[inline(always)]
    fn pending_after_current(&self) -> usize {
        self.open.pending_after_current()
    }

    #[inline(always)]
    fn scalar(&mut self, value: Value) -> bool {
        self.item.set_scalar(&value);
        core::mem::forget(value);
        self.item_done()
    }

    #[inline(always)]
    fn str(&mut self, text: &'a str) -> Result<bool, ErrorKind> {
        self.item.kind = Kind::Str;
        self.item.text = text;
        Ok(self.item_done())
    }

    #[inline(always)]
    fn bin(&mut self, bytes: &'a [u8]) -> Result<bool, ErrorKind> {
        self.item.kind = Kind::Bin;
        self.item.bytes = bytes;
        Ok(self.item_done())
    }

    #[inline(always)]
    fn ext(&mut self, ext_type: i8, data: &'a [u8]) -> Result<bool, ErrorKind> {
        self.item.kind = Kind::Ext;
        self.item.word = u64::from(ext_type.to_ne_bytes()[0]);
        self.item.bytes = data;
        Ok(self.item_done())
    }

    #[inline(always)]
    fn open(&mut self, is_map: bool, len: usize) -> Result<bool, ErrorKind> {
        self.item.kind = if is_map { Kind::Map } else { Kind::Array };
        self.item.word = u64::try_from(len).unwrap_or(u64::MAX);
        if len == 0 {
            return Ok(self.item_done());
        }
        // Its items are counted when serde's recursion enters it (`OpenContainers::enter`).
        self.open.depth = self.open.depth.saturating_add(1);
        Ok(false)
    }

    fn charge(&mut self, bytes: usize) -> Result<(), ErrorKind> {
        // Strict mode's heap.
        self.budget.charge(bytes)
    }
}
