//! [`ValueRef`]: a decoded document that borrows its str, bin and ext payloads from the
//! input, held as one flat tape of items in pre-order (each container knows where its
//! descendants end) rather than as a tree of vectors.
//!
//! The tape is what makes it both safe and fast: one vector per document instead of one per
//! container, so decoding makes a handful of allocations, dropping it is one free with no
//! traversal at all, cloning is one copy, and every walk over it is a loop. Equality,
//! encoding, printing and [`to_owned`](ValueRef::to_owned) go through the same walk events
//! as [`Value`]'s.

use crate::prelude::*;
use core::fmt;

use crate::timestamp::Timestamp;
use crate::value::access::Index;
use crate::value::token::{wide, Token};
use crate::value::walk::{self, checked_str, Container, Event, Root, Slot, Text, Walk};
use crate::value::{Integer, Shape, Value, ValueBuilder};

/// One item of the tape. Every variant is plain data (no drop glue).
#[derive(Clone, Copy, Debug)]
pub(crate) enum TapeItem<'a> {
    Nil,
    Bool(bool),
    Integer(Integer),
    F32(f32),
    F64(f64),
    /// Checked to be UTF-8 (see [`Text`] for why it is kept as bytes).
    Str(&'a [u8]),
    Bin(&'a [u8]),
    Ext(i8, &'a [u8]),
    Timestamp(Timestamp),
    /// `end` is the index just past the container's last descendant.
    Array {
        len: u32,
        end: usize,
    },
    Map {
        len: u32,
        end: usize,
    },
}

impl<'a> TapeItem<'a> {
    pub(crate) fn from_token(token: Token<'a>) -> Self {
        match token {
            Token::Nil => TapeItem::Nil,
            Token::Bool(b) => TapeItem::Bool(b),
            Token::Integer(n) => TapeItem::Integer(n),
            Token::F32(x) => TapeItem::F32(x),
            Token::F64(x) => TapeItem::F64(x),
            Token::Str(s) => TapeItem::Str(s.as_bytes()),
            Token::Bin(b) => TapeItem::Bin(b),
            Token::Ext(t, d) => TapeItem::Ext(t, d),
            Token::Timestamp(ts) => TapeItem::Timestamp(ts),
            // The end is set when the container closes.
            Token::Array(len) => TapeItem::Array { len, end: 0 },
            Token::Map(len) => TapeItem::Map { len, end: 0 },
        }
    }

    fn token(&self) -> Token<'a> {
        match *self {
            TapeItem::Nil => Token::Nil,
            TapeItem::Bool(b) => Token::Bool(b),
            TapeItem::Integer(n) => Token::Integer(n),
            TapeItem::F32(x) => Token::F32(x),
            TapeItem::F64(x) => Token::F64(x),
            TapeItem::Str(s) => Token::Str(checked_str(s)),
            TapeItem::Bin(b) => Token::Bin(b),
            TapeItem::Ext(t, d) => Token::Ext(t, d),
            TapeItem::Timestamp(ts) => Token::Timestamp(ts),
            TapeItem::Array { len, .. } => Token::Array(len),
            TapeItem::Map { len, .. } => Token::Map(len),
        }
    }

    /// Sets the end of a container item.
    pub(crate) fn close(&mut self, at: usize) {
        match self {
            TapeItem::Array { end, .. } | TapeItem::Map { end, .. } => *end = at,
            _ => crate::invariant::broken("closing a tape item that is not a container"),
        }
    }
}

/// A document decoded without copying: str, bin and ext payloads are borrowed from the
/// input (`'a`), the structure is one flat tape. Read it through [`root`](Self::root) (a
/// [`Node`], with the same accessors as [`Value`]); compare it with a `Value`, encode it, or
/// copy it out with [`to_owned`](Self::to_owned).
///
/// Made by [`decode_ref`](crate::decode_ref) and [`Decoder::decode_ref`](crate::Decoder::decode_ref)
/// under the same [`Limits`](crate::Limits) as the owned decode: the tape is charged to
/// `max_alloc_bytes` (24 bytes an item); borrowed payloads allocate nothing.
///
/// ```
/// use hardpack::{decode, decode_ref};
///
/// let input = [0x82, 0xa1, b'k', 0x92, 0x01, 0x02, 0xa1, b'b', 0xc4, 0x02, 0xff, 0x00];
/// let doc = decode_ref(&input)?;
/// let root = doc.root();
/// assert_eq!(root.get("k").and_then(|k| k.get(1)).and_then(|n| n.as_u64()), Some(2));
/// assert_eq!(root.get("b").and_then(|b| b.as_bin()), Some(&[0xff, 0x00][..]));
/// assert_eq!(doc, decode(&input)?);
/// assert_eq!(doc.to_string(), r#"{"k": [1, 2], "b": b"\xff\x00"}"#);
/// # Ok::<(), hardpack::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct ValueRef<'a> {
    tape: Vec<TapeItem<'a>>,
}

impl<'a> ValueRef<'a> {
    pub(crate) fn from_tape(tape: Vec<TapeItem<'a>>) -> Self {
        ValueRef { tape }
    }

    /// The top-level value. (An empty `ValueRef`, from `Default`, reads as nil.)
    pub fn root(&self) -> Node<'_, 'a> {
        Node {
            tape: &self.tape,
            at: 0,
        }
    }

    /// An owned copy.
    #[allow(clippy::should_implement_trait)]
    pub fn to_owned(&self) -> Value {
        self.root().to_owned()
    }

    /// Values, containers and the deepest nesting, counted without recursion.
    pub fn shape(&self) -> Shape {
        self.root().shape()
    }

    /// Appends the smallest encoding of the document (the same bytes as
    /// [`encode`](fn@crate::encode) of its [`to_owned`](Self::to_owned)).
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        self.root().encode_into(out);
    }

    /// The smallest encoding of the document.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    fn events(&self) -> TapeWalk<'_, 'a> {
        self.root().events()
    }
}

/// One value inside a [`ValueRef`]: a scalar, or an array or map whose children are nodes
/// too. Cheap to copy; its payloads live as long as the input (`'a`).
#[derive(Clone, Copy)]
pub struct Node<'t, 'a> {
    tape: &'t [TapeItem<'a>],
    at: usize,
}

const NIL_ITEM: TapeItem<'static> = TapeItem::Nil;

impl<'t, 'a> Node<'t, 'a> {
    fn item(&self) -> &'t TapeItem<'a> {
        self.tape.get(self.at).unwrap_or(&NIL_ITEM)
    }

    /// Index just past this node's last descendant.
    fn end(&self) -> usize {
        match *self.item() {
            TapeItem::Array { end, .. } | TapeItem::Map { end, .. } => end,
            _ => self.at.saturating_add(1),
        }
    }

    /// The node as a [`Token`]: its scalar, or its container's count.
    pub fn token(&self) -> Token<'a> {
        self.item().token()
    }

    /// The same name as [`Value::type_name`].
    pub fn type_name(&self) -> &'static str {
        match self.item() {
            TapeItem::Nil => "nil",
            TapeItem::Bool(_) => "bool",
            TapeItem::Integer(_) => "integer",
            TapeItem::F32(_) => "f32",
            TapeItem::F64(_) => "f64",
            TapeItem::Str(_) => "str",
            TapeItem::Bin(_) => "bin",
            TapeItem::Array { .. } => "array",
            TapeItem::Map { .. } => "map",
            TapeItem::Ext(..) => "ext",
            TapeItem::Timestamp(_) => "timestamp",
        }
    }

    /// The children of an array (its elements) or a map (keys and values, alternating).
    fn children(&self) -> Children<'t, 'a> {
        Children {
            tape: self.tape,
            next: self.at.saturating_add(1),
            end: self.end(),
        }
    }

    /// The elements, if this is an array.
    pub fn items(&self) -> Option<impl ExactSizeIterator<Item = Node<'t, 'a>> + 't> {
        match *self.item() {
            TapeItem::Array { len, .. } => Some(Counted {
                inner: self.children(),
                left: wide(len),
            }),
            _ => None,
        }
    }

    /// The key-value pairs, in order, if this is a map.
    pub fn entries(
        &self,
    ) -> Option<impl ExactSizeIterator<Item = (Node<'t, 'a>, Node<'t, 'a>)> + 't> {
        match *self.item() {
            TapeItem::Map { len, .. } => Some(Pairs {
                inner: self.children(),
                left: wide(len),
            }),
            _ => None,
        }
    }

    /// True for an array or map with no children.
    pub fn is_empty(&self) -> bool {
        self.len() == Some(0)
    }

    /// Elements of an array or entries of a map; `None` for a scalar.
    pub fn len(&self) -> Option<usize> {
        match *self.item() {
            TapeItem::Array { len, .. } | TapeItem::Map { len, .. } => Some(wide(len)),
            _ => None,
        }
    }

    /// The element at a position, or the value of the first entry with that str key (as
    /// [`Value::get`]: under duplicate keys the first wins); `None` when absent or when this
    /// is not an array (map).
    pub fn get<I: Index>(&self, index: I) -> Option<Node<'t, 'a>> {
        index.index_into_node(*self)
    }

    pub(crate) fn element(&self, position: usize) -> Option<Node<'t, 'a>> {
        self.items()?.nth(position)
    }

    pub(crate) fn value_of(&self, key: &str) -> Option<Node<'t, 'a>> {
        self.entries()?
            .find(|(k, _)| matches!(k.item(), TapeItem::Str(s) if *s == key.as_bytes()))
            .map(|(_, v)| v)
    }

    /// True for nil.
    pub fn is_nil(&self) -> bool {
        matches!(self.item(), TapeItem::Nil)
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match *self.item() {
            TapeItem::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The integer, if this is one.
    pub fn as_integer(&self) -> Option<Integer> {
        match *self.item() {
            TapeItem::Integer(n) => Some(n),
            _ => None,
        }
    }

    /// The integer as `u64`, if this is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        self.as_integer()?.as_u64()
    }

    /// The integer as `i64`, if this is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.as_integer()?.as_i64()
    }

    /// The float as `f64`, if this is a float (integers are not converted, as in
    /// [`Value::as_f64`]).
    pub fn as_f64(&self) -> Option<f64> {
        match *self.item() {
            TapeItem::F32(x) => Some(f64::from(x)),
            TapeItem::F64(x) => Some(x),
            _ => None,
        }
    }

    /// The text, borrowed from the input, if this is a str. Text of up to 23 bytes is kept
    /// as checked bytes and checked again here (15 ns or so, as for [`Str`](crate::value::Str)):
    /// prefer [`as_str_bytes`](Self::as_str_bytes) or comparing bytes in hot loops.
    pub fn as_str(&self) -> Option<&'a str> {
        match *self.item() {
            TapeItem::Str(s) => Some(checked_str(s)),
            _ => None,
        }
    }

    /// The bytes of the text (UTF-8), if this is a str.
    pub fn as_str_bytes(&self) -> Option<&'a [u8]> {
        match *self.item() {
            TapeItem::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The bytes, borrowed from the input, if this is a bin.
    pub fn as_bin(&self) -> Option<&'a [u8]> {
        match *self.item() {
            TapeItem::Bin(b) => Some(b),
            _ => None,
        }
    }

    /// The type and data (borrowed from the input), if this is an ext (timestamps are
    /// [`as_timestamp`](Self::as_timestamp)).
    pub fn as_ext(&self) -> Option<(i8, &'a [u8])> {
        match *self.item() {
            TapeItem::Ext(t, d) => Some((t, d)),
            _ => None,
        }
    }

    /// The timestamp, if this is one.
    pub fn as_timestamp(&self) -> Option<Timestamp> {
        match *self.item() {
            TapeItem::Timestamp(ts) => Some(ts),
            _ => None,
        }
    }

    /// True for an array.
    pub fn is_array(&self) -> bool {
        matches!(self.item(), TapeItem::Array { .. })
    }

    /// True for a map.
    pub fn is_map(&self) -> bool {
        matches!(self.item(), TapeItem::Map { .. })
    }

    /// An owned copy of this node and everything under it.
    #[allow(clippy::should_implement_trait)]
    pub fn to_owned(&self) -> Value {
        let mut builder = ValueBuilder::new();
        for event in self.events() {
            if let Event::Enter(_, token) = event {
                if let Some(done) = builder.push_token(token) {
                    return done;
                }
            }
        }
        crate::invariant::broken("a tape walk that did not close the value it opened");
        Value::Nil
    }

    /// Values, containers and the deepest nesting under this node.
    pub fn shape(&self) -> Shape {
        Shape::of(self.events())
    }

    /// Appends the smallest encoding of this node.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        if crate::encode::write_events(self.events(), out).is_err() {
            crate::invariant::broken("a decoded length that cannot be written back");
        }
    }

    fn events(&self) -> TapeWalk<'t, 'a> {
        TapeWalk {
            tape: self.tape,
            next: self.at,
            end: self.end().min(self.tape.len()),
            started: false,
            stack: Vec::new(),
        }
    }
}

/// Children of a container, each skipped past its descendants.
struct Children<'t, 'a> {
    tape: &'t [TapeItem<'a>],
    next: usize,
    end: usize,
}

impl<'t, 'a> Iterator for Children<'t, 'a> {
    type Item = Node<'t, 'a>;

    fn next(&mut self) -> Option<Node<'t, 'a>> {
        if self.next >= self.end {
            return None;
        }
        let node = Node {
            tape: self.tape,
            at: self.next,
        };
        // A node's end is past its own index, so this always moves forward.
        self.next = node.end().max(self.next.saturating_add(1));
        Some(node)
    }
}

struct Counted<'t, 'a> {
    inner: Children<'t, 'a>,
    left: usize,
}

impl<'t, 'a> Iterator for Counted<'t, 'a> {
    type Item = Node<'t, 'a>;

    fn next(&mut self) -> Option<Node<'t, 'a>> {
        let node = self.inner.next()?;
        self.left = self.left.saturating_sub(1);
        Some(node)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Counted<'_, '_> {}

struct Pairs<'t, 'a> {
    inner: Children<'t, 'a>,
    left: usize,
}

impl<'t, 'a> Iterator for Pairs<'t, 'a> {
    type Item = (Node<'t, 'a>, Node<'t, 'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let key = self.inner.next()?;
        let value = self.inner.next()?;
        self.left = self.left.saturating_sub(1);
        Some((key, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Pairs<'_, '_> {}

/// A container the tape walk is inside.
struct Frame {
    end: usize,
    is_map: bool,
    /// Children met so far.
    seen: usize,
}

/// The walk events of a tape (the same as [`Walk`] gives for the equal `Value`), keeping
/// the open containers on a heap stack.
pub(crate) struct TapeWalk<'t, 'a> {
    tape: &'t [TapeItem<'a>],
    next: usize,
    end: usize,
    started: bool,
    stack: Vec<Frame>,
}

impl<'t, 'a> Iterator for TapeWalk<'t, 'a> {
    type Item = Event<'t>;

    fn next(&mut self) -> Option<Event<'t>> {
        if let Some(frame) = self.stack.last() {
            if frame.end <= self.next {
                let kind = if frame.is_map {
                    Container::Map
                } else {
                    Container::Array
                };
                self.stack.pop();
                return Some(Event::Leave(kind));
            }
        }
        if self.next >= self.end && self.started {
            return None;
        }
        let item = self.tape.get(self.next)?;
        let slot = match self.stack.last_mut() {
            None => Slot::Root,
            Some(frame) => {
                let first = frame.seen == 0;
                let slot = match (frame.is_map, frame.seen % 2) {
                    (false, _) => Slot::Element { first },
                    (true, 0) => Slot::Key { first },
                    (true, _) => Slot::MapValue,
                };
                frame.seen = frame.seen.saturating_add(1);
                slot
            }
        };
        self.started = true;
        self.next = self.next.saturating_add(1);
        let token = match item {
            TapeItem::Array { end, .. } | TapeItem::Map { end, .. } => {
                self.stack.push(Frame {
                    end: *end,
                    is_map: matches!(item, TapeItem::Map { .. }),
                    seen: 0,
                });
                item.token().as_walk_token()
            }
            TapeItem::Str(s) => walk::Token::Str(Text::Checked(s)),
            _ => item.token().as_walk_token(),
        };
        Some(Event::Enter(slot, token))
    }
}

impl PartialEq for ValueRef<'_> {
    /// Structural equality, as for [`Value`]: floats by their bits. Iterative.
    fn eq(&self, other: &Self) -> bool {
        self.events().eq(other.events())
    }
}

impl Eq for ValueRef<'_> {}

/// `value_ref == value` (only this way round: a `Value == ValueRef` impl would make
/// `value == x.into()` ambiguous in callers' code).
impl PartialEq<Value> for ValueRef<'_> {
    fn eq(&self, other: &Value) -> bool {
        self.events().eq(Walk::new(Root::Value(other)))
    }
}

impl PartialEq<Value> for Node<'_, '_> {
    fn eq(&self, other: &Value) -> bool {
        self.events().eq(Walk::new(Root::Value(other)))
    }
}

impl PartialEq for Node<'_, '_> {
    fn eq(&self, other: &Self) -> bool {
        self.events().eq(other.events())
    }
}

impl fmt::Debug for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::value::display::write_debug(self.events(), f)
    }
}

impl fmt::Display for ValueRef<'_> {
    /// JSON where JSON can say it, as for [`Value`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::value::display::write_display(self.events(), f)
    }
}

impl fmt::Debug for Node<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::value::display::write_debug(self.events(), f)
    }
}

impl fmt::Display for Node<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::value::display::write_display(self.events(), f)
    }
}
