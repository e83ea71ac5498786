//! The document trees: the owned [`Value`] and the borrowed [`ValueRef`].
//!
//! Reading a decoded document is what serde_json users expect: indexing never panics (an absent
//! key or position, or indexing a non-container, gives a shared nil), accessors answer only for
//! their kind, and `Display` prints JSON wherever JSON can say it.
//!
//! ```
//! use hardpack::{decode, msgpack, Value};
//!
//! let doc = decode(b"\x81\xa4user\x82\xa2id\x07\xa4tags\x91\xa1a")?; // {"user": {"id": 7, "tags": ["a"]}}
//! assert_eq!(doc["user"]["id"].as_u64(), Some(7));
//! assert!(doc["user"]["missing"][3].is_nil());
//! assert_eq!(u8::try_from(&doc["user"]["id"])?, 7);
//! assert_eq!(doc.to_string(), r#"{"user": {"id": 7, "tags": ["a"]}}"#);
//!
//! let id = 7;
//! let built = msgpack!({"user": {"id": id, "tags": ["a"]}}); // a key: one token or (expr)
//! assert_eq!(built, doc);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - Integers keep the whole `u64` and `i64` ranges ([`Integer`]); non-negative values are held
//!   unsigned, so `uint 8` 5 and `int 64` 5 are equal. `F32` and `F64` stay apart and compare by
//!   their bits, so `Value: Eq + Hash`.
//! - Maps keep wire order and duplicate keys; [`Map::get`] and `value["key"]` return the *first*
//!   entry with that key (most serde maps keep the last: use strict mode where two readers must
//!   agree).
//! - [`Str`] holds up to 23 bytes inline (no allocation); it dereferences to `str`. [`Ext`]
//!   keeps its type byte with its data, which keeps `size_of::<Value>()` at 24.
//! - Every operation that visits children (drop, clone, equality, hashing, printing, encoding)
//!   walks an explicit heap stack: a value nested a million deep is handled on a 64 KiB thread.
//!   [`ValueBuilder`] builds one item by item in pre-order, without recursion.
//! - A [`ValueRef`] is one flat tape in pre-order, each container knowing where its
//!   descendants end: one allocation per document, a `Drop` that is one free, every walk a loop.
//!   Read it through [`ValueRef::root`], a [`Node`] with the accessors of `Value`; its strs,
//!   bins and ext data borrow from the input.

use crate::prelude::*;
use core::ops::{Deref, DerefMut};

use crate::invariant;
use crate::timestamp::Timestamp;

mod access;
pub(crate) mod assemble;
pub(crate) mod borrowed;
#[cfg(feature = "serde")]
mod borrowed_de;
mod convert;
#[cfg(feature = "serde")]
mod de;
pub(crate) mod display;
mod drop;
mod hash;
pub(crate) mod leaf;
#[cfg(feature = "serde")]
pub(crate) mod ser;
#[macro_use]
mod macros;
pub(crate) mod token;
pub(crate) mod walk;

pub use access::{Index, MapIndex, TryFromValueError};
pub use assemble::ValueBuilder;
pub use borrowed::{Node, ValueRef};
pub use drop::DROP_RESERVE_PER_CONTAINER;
pub use leaf::{Ext, Str};
use walk::{Event, Root, Walk};

/// A MessagePack value.
///
/// Integers keep the whole `u64` and `i64` ranges in [`Integer`]; `F32` and `F64` stay apart
/// (and compare by their bits, so a NaN equals itself and `Value` is `Eq`). Maps keep wire
/// order and duplicate keys. Ext type -1 decodes to [`Value::Timestamp`]; an `Ext` with type -1
/// built by hand is encoded as given.
pub enum Value {
    /// nil
    Nil,
    /// true or false
    Bool(bool),
    /// Any integer from `i64::MIN` to `u64::MAX`.
    Integer(Integer),
    /// float 32
    F32(f32),
    /// float 64
    F64(f64),
    /// UTF-8 text (short text inline, see [`Str`]).
    Str(Str),
    /// Bytes.
    Bin(Box<[u8]>),
    /// A sequence of values.
    Array(Array),
    /// Key-value pairs in wire order, duplicates kept.
    Map(Map),
    /// An extension value other than a timestamp: its type and payload.
    Ext(Ext),
    /// The timestamp extension (type -1).
    Timestamp(Timestamp),
}

// Ten million empty arrays cost 24 bytes each; keep it that way.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(core::mem::size_of::<Value>() == 24);

/// An integer from `i64::MIN` to `u64::MAX`. Non-negative values are always held as unsigned
/// and negative ones as signed, so equal numbers are equal whichever wire format (`uint 8` or
/// `int 64`, say) carried them, and each encodes to its smallest form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Integer(IntRepr);

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum IntRepr {
    // Order matters for Ord: every negative value sorts before every non-negative one.
    Negative(i64),
    NonNegative(u64),
}

impl Integer {
    /// The value as `u64`, if it is non-negative.
    pub const fn as_u64(self) -> Option<u64> {
        match self.0 {
            IntRepr::NonNegative(n) => Some(n),
            IntRepr::Negative(_) => None,
        }
    }

    /// The value as `i64`, if it fits.
    pub const fn as_i64(self) -> Option<i64> {
        match self.0 {
            IntRepr::Negative(n) => Some(n),
            IntRepr::NonNegative(n) if n <= i64::MAX as u64 => Some(n as i64),
            IntRepr::NonNegative(_) => None,
        }
    }

    /// True for values below zero.
    pub const fn is_negative(self) -> bool {
        matches!(self.0, IntRepr::Negative(_))
    }

    /// The value as `i128`, which holds every integer MessagePack can carry.
    pub const fn as_i128(self) -> i128 {
        match self.0 {
            IntRepr::Negative(n) => n as i128,
            IntRepr::NonNegative(n) => n as i128,
        }
    }
}

/// The elements of an array value. Dereferences to `[Value]`.
#[derive(Default)]
pub struct Array(pub(crate) Box<[Value]>);

/// The entries of a map value, in wire order. Dereferences to `[(Value, Value)]`.
#[derive(Default)]
pub struct Map(pub(crate) Box<[(Value, Value)]>);

impl Array {
    /// The elements as a `Vec` (no copy).
    pub fn into_vec(mut self) -> Vec<Value> {
        core::mem::take(&mut self.0).into_vec()
    }
}

impl Map {
    /// The entries as a `Vec` (no copy).
    pub fn into_vec(mut self) -> Vec<(Value, Value)> {
        core::mem::take(&mut self.0).into_vec()
    }
}

impl From<Vec<Value>> for Array {
    fn from(items: Vec<Value>) -> Self {
        Array(items.into_boxed_slice())
    }
}

impl From<Vec<(Value, Value)>> for Map {
    fn from(entries: Vec<(Value, Value)>) -> Self {
        Map(entries.into_boxed_slice())
    }
}

impl Deref for Array {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.0
    }
}

impl DerefMut for Array {
    fn deref_mut(&mut self) -> &mut [Value] {
        &mut self.0
    }
}

impl Deref for Map {
    type Target = [(Value, Value)];
    fn deref(&self) -> &[(Value, Value)] {
        &self.0
    }
}

impl DerefMut for Map {
    fn deref_mut(&mut self) -> &mut [(Value, Value)] {
        &mut self.0
    }
}

/// Puts `value` into `slot`, which holds nil: the placeholder owns nothing, so it is not
/// dropped (skipping its drop glue is what lets the write go straight into the slot).
#[inline(always)]
pub(crate) fn fill_nil(slot: &mut Value, value: Value) {
    debug_assert!(
        matches!(slot, Value::Nil),
        "fill_nil into a slot that is not nil"
    );
    core::mem::forget(core::mem::replace(slot, value));
}

impl Value {
    /// A short name of the variant: `nil`, `bool`, `integer`, `f32`, `f64`, `str`, `bin`,
    /// `array`, `map`, `ext` or `timestamp`.
    pub const fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "bool",
            Value::Integer(_) => "integer",
            Value::F32(_) => "f32",
            Value::F64(_) => "f64",
            Value::Str(_) => "str",
            Value::Bin(_) => "bin",
            Value::Array(_) => "array",
            Value::Map(_) => "map",
            Value::Ext(_) => "ext",
            Value::Timestamp(_) => "timestamp",
        }
    }

    /// Shape of the tree: values, containers and the deepest nesting, counted without
    /// recursion.
    ///
    /// ```
    /// use hardpack::{decode, value::Shape};
    ///
    /// let v = decode(&[0x92, 0x91, 0x90, 0x01])?; // [[[]], 1]
    /// assert_eq!(v.shape(), Shape { values: 4, containers: 3, max_depth: 3 });
    /// # Ok::<(), hardpack::Error>(())
    /// ```
    pub fn shape(&self) -> Shape {
        Shape::of(Walk::new(Root::Value(self)))
    }
}

/// Counts describing the shape of a [`Value`], from [`Value::shape`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Every value, the root and map keys included.
    pub values: usize,
    /// Arrays and maps.
    pub containers: usize,
    /// Deepest nesting of containers (0 for a scalar, 1 for a flat array).
    pub max_depth: usize,
}

impl Shape {
    /// The shape of what a walk meets.
    pub(crate) fn of<'a>(events: impl Iterator<Item = Event<'a>>) -> Shape {
        let mut shape = Shape::default();
        let mut depth = 0usize;
        for event in events {
            match event {
                Event::Enter(_, token) => {
                    shape.values = shape.values.saturating_add(1);
                    if matches!(token, walk::Token::Array(_) | walk::Token::Map(_)) {
                        shape.containers = shape.containers.saturating_add(1);
                        depth = depth.saturating_add(1);
                        shape.max_depth = shape.max_depth.max(depth);
                    }
                }
                Event::Leave(_) => depth = depth.saturating_sub(1),
            }
        }
        shape
    }
}

/// Copies a value by walking it into a [`ValueBuilder`]: the one cloning path, without
/// recursion.
fn rebuild(root: Root<'_>) -> Value {
    let mut builder = ValueBuilder::new();
    for event in Walk::new(root) {
        if let Event::Enter(_, token) = event {
            if let Some(done) = builder.push_token(token) {
                return done;
            }
        }
    }
    invariant::broken("a walk that did not close the value it opened");
    Value::Nil
}

impl Clone for Value {
    fn clone(&self) -> Self {
        rebuild(Root::Value(self))
    }
}

impl Clone for Array {
    fn clone(&self) -> Self {
        match rebuild(Root::Items(&self.0)) {
            Value::Array(a) => a,
            _ => {
                invariant::broken("cloning an array gave another kind of value");
                Array::default()
            }
        }
    }
}

impl Clone for Map {
    fn clone(&self) -> Self {
        match rebuild(Root::Entries(&self.0)) {
            Value::Map(m) => m,
            _ => {
                invariant::broken("cloning a map gave another kind of value");
                Map::default()
            }
        }
    }
}

impl PartialEq for Value {
    /// Structural equality; floats compare by their bits. Iterative.
    fn eq(&self, other: &Self) -> bool {
        Walk::new(Root::Value(self)).eq(Walk::new(Root::Value(other)))
    }
}

impl Eq for Value {}

impl PartialEq for Array {
    fn eq(&self, other: &Self) -> bool {
        Walk::new(Root::Items(&self.0)).eq(Walk::new(Root::Items(&other.0)))
    }
}

impl Eq for Array {}

impl PartialEq for Map {
    fn eq(&self, other: &Self) -> bool {
        Walk::new(Root::Entries(&self.0)).eq(Walk::new(Root::Entries(&other.0)))
    }
}

impl Eq for Map {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_accessors_at_the_edges_of_each_range() {
        let i64_max = u64::try_from(i64::MAX).unwrap_or(0);
        assert_eq!(Integer::from(i64_max).as_i64(), Some(i64::MAX));
        assert_eq!(Integer::from(i64_max + 1).as_i64(), None);
        assert_eq!(Integer::from(0u64).as_i64(), Some(0));
        assert_eq!(Integer::from(i64::MIN).as_i64(), Some(i64::MIN));
        assert!(Integer::from(-1i64).is_negative());
        assert!(Integer::from(i64::MIN).is_negative());
        assert!(!Integer::from(0i64).is_negative());
        assert!(!Integer::from(u64::MAX).is_negative());
        assert_eq!(Integer::from(-1i64).as_i128(), -1);
        assert_eq!(Integer::from(u64::MAX).as_i128(), i128::from(u64::MAX));
    }

    fn sample_array() -> Array {
        Array::from(vec![Value::from(1u8), Value::from(vec![Value::from("x")])])
    }

    fn sample_map() -> Map {
        Map::from(vec![
            (Value::from("a"), Value::from(1u8)),
            (Value::from("a"), Value::from(vec![Value::Nil])),
        ])
    }

    #[test]
    fn arrays_and_maps_hand_back_their_items_in_order() {
        let items = sample_array().into_vec();
        assert_eq!(
            items,
            [Value::from(1u8), Value::from(vec![Value::from("x")])]
        );
        let entries = sample_map().into_vec();
        assert_eq!(entries.len(), 2, "the duplicate key is kept");
        assert_eq!(entries[1].1, Value::from(vec![Value::Nil]));
        assert!(Map::default().into_vec().is_empty());
    }

    #[test]
    fn arrays_and_maps_are_changed_in_place_through_deref_mut() {
        let mut array = sample_array();
        array[0] = Value::from(7u8);
        assert_eq!(array[0], Value::from(7u8));
        let mut map = sample_map();
        map[1].1 = Value::from(false);
        assert_eq!(map[1], (Value::from("a"), Value::from(false)));
        assert_eq!(map.len(), 2);
    }

    #[test]
    fn arrays_and_maps_clone_and_compare_by_their_items() {
        let array = sample_array();
        assert!(array.clone() == array);
        assert!(array != Array::default());
        assert!(Array::from(vec![Value::from(1u8)]) != Array::from(vec![Value::from(2u8)]));
        let map = sample_map();
        assert!(map.clone() == map);
        assert!(map != Map::default());
        let mut other = sample_map();
        other[0].0 = Value::from("b");
        assert!(map != other, "keys take part");
        assert!(Map::default() == Map::default());
    }
}
